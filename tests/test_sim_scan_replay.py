"""Replayed inventories (hw_sim/devices/scan_replay.py): the firmware's scan cycles with
replayed inventories send exactly what fully simulated ones send, leave every chip and the bus
clock exactly where they leave them, and are actually replayed."""

from __future__ import annotations

import random

from firmware.antenna import Antenna
from firmware.controller import AntennaController
from firmware.hal import Reader
from hw_sim.devices.pn5180_sim import SimBus
from hw_sim.devices.rfid_controller import VirtualRfidController
from hw_sim.devices.scan_replay import ReplayCache, ReplayInventory, ReplayPn5180
from tests.test_firmware_core import CoreClock as Clock
from tests.test_firmware_core import uid

ANTENNAS = 6


class Wire:
    def __init__(self) -> None:
        self.sent = bytearray()

    def write(self, data: bytes, kind: int) -> bool:
        self.sent += data
        return True


class Rig:
    def __init__(self, replay: bool) -> None:
        self.bus = SimBus(ANTENNAS)
        self.wire = Wire()
        self.clock = Clock()
        self.cache = ReplayCache()
        antennas = []
        for i, sim in enumerate(self.bus.chips):
            if not replay:
                antennas.append(Antenna(self.bus.driver(i)))
                continue
            driver = ReplayPn5180(sim, self.cache, name=f"antenna {i}")
            antennas.append(Antenna(driver))
            antennas[-1].inventory = ReplayInventory(driver)
        readers: list[Reader] = list(antennas)
        self.antennas = antennas
        self.core = AntennaController(readers, self.wire, self.clock, self.bus.clock)
        self.core.power_up()

    def cycle(self, fields: list[dict[bytes, int]]) -> object:
        self.clock.ms += 100
        for chip, tags in zip(self.bus.chips, fields, strict=True):
            chip.field = dict(tags)
        edges = self.core.scan_cycle()
        return (edges, self.bus.clock.now_us, self.core.cycle_us, bytes(self.wire.sent),
                [chip.state() for chip in self.bus.chips],
                [(chip.instructions, chip.answers) for chip in self.bus.chips],
                self.bus.spi.transfers,
                [(a.inventory.rounds, a.inventory.slots, a.inventory.garbled)
                 for a in self.antennas],
                [a.rolling for a in self.antennas])


def test_replayed_scan_cycles_equal_simulated_ones() -> None:
    """A table in play for 600 cycles: a tray of 40 (inventoried rolling), two seats, a board
    dealt and taken away, a tag heard weakly by a neighbour, tags flickering, a tray tag
    gathered; midway a chip dies and comes back and one garbles an answer. Cycle by cycle the
    replaying firmware sends the same bytes, reports the same edges and cycle time, and every
    chip, counter and the bus clock are where full simulation leaves them."""
    rng = random.Random(7)
    full, replay = Rig(replay=False), Rig(replay=True)
    tray = {uid(n): 12 for n in range(40)}
    seat_a = {uid(100): 12, uid(101): 12}
    seat_b = {uid(102): 12, uid(103): 12}
    board = [uid(200 + k) for k in range(5)]
    for cycle in range(600):
        fields: list[dict[bytes, int]] = [dict(seat_a), dict(seat_b), {}, {}, {}, dict(tray)]
        fields[2] = {u: 12 for u in board[:max(0, min(5, (cycle - 100) // 20))]}
        if cycle > 400:
            fields[2] = {}
            fields[4] = {u: 12 for u in board}         # the board swept into the muck
        if 150 <= cycle < 300:
            fields[1][uid(100)] = 3                    # seat 1's card heard weakly next door
        if cycle == 250:
            fields[5][uid(300)] = 12                   # a card gathered into the tray
            tray[uid(300)] = 12
        for tags in fields:                            # flicker: a tag misses a read
            for u in list(tags):
                if rng.random() < 0.01:
                    del tags[u]
        for rig in (full, replay):
            if cycle == 320:
                rig.bus.chips[3].fail()
            if cycle == 330:
                rig.bus.chips[3].revive()
            if cycle == 340:
                rig.bus.chips[0].garble()
        assert replay.cycle(fields) == full.cycle(fields), f"cycle {cycle}"
    assert any(a.rolling for a in replay.antennas)
    assert replay.cache.replayed > 10 * replay.cache.simulated


def test_the_simulated_table_s_controller_replays_and_the_firmware_s_tests_do_not() -> None:
    """The virtual controller replays only when asked (the simulated table asks,
    hw_sim/devices/wiring.py); the firmware's own tests drive the chips through every
    register access."""
    plain = VirtualRfidController()
    asked = VirtualRfidController(replay=True)
    try:
        assert plain.replay is None
        assert not any(isinstance(a.inventory, ReplayInventory)  # type: ignore[attr-defined]
                       for a in plain.core.readers)
        assert asked.replay is not None
        assert all(isinstance(a.inventory, ReplayInventory)  # type: ignore[attr-defined]
                   for a in asked.core.readers)
    finally:
        plain.stop()
        asked.stop()
