"""The firmware's PN5180 driver and ISO 15693 inventory against the simulated PN5180: stacked
tags read by anticollision, a tag leaving, a reader that stops answering, a garbled SPI reply,
and the signal figure that tells two antennas apart."""

from __future__ import annotations

import pytest

from firmware import iso15693
from firmware.antenna import Antenna
from firmware.pn5180 import ChipError
from hw_sim.devices.pn5180_sim import SimBus


def uid(low: int, serial: int = 1) -> bytes:
    """An ISO 15693 UID (E0 first) whose lowest byte, the one the slots split on, is ``low``."""
    return bytes((0xE0, 0x04, 0x01, 0x00, 0x00, 0x00, serial, low))


def reader(bus: SimBus, index: int = 0) -> Antenna:
    antenna = Antenna(bus.driver(index))
    antenna.recover()
    return antenna


def test_the_chip_answers_the_driver_s_set_up() -> None:
    bus = SimBus(1)
    antenna = reader(bus)
    assert antenna.chip.firmware == (4, 0)
    assert antenna.chip.tx_config & 0x400        # ISO 15693 RF configuration loaded
    assert antenna.scan() == {}


def test_two_stacked_tags_are_read_by_anticollision() -> None:
    bus = SimBus(1)
    antenna = reader(bus)
    a, b = uid(0x35), uid(0x75)                  # same low nibble: they collide in slot 5
    bus.chips[0].field = {a: 12, b: 12}
    assert set(antenna.scan()) == {a, b}
    inv = antenna.inventory
    assert inv.rounds >= 3     # 1-slot request (collides), 16-slot round, sub-round for slot 5
    rounds = inv.rounds
    assert set(antenna.scan()) == {a, b}         # known to be two: straight to 16 slots
    assert inv.rounds - rounds == 2              # the round and slot 5's sub-round
    c = uid(0x1C)
    bus.chips[0].field = {a: 12, b: 12, c: 12}
    assert set(antenna.scan()) == {a, b, c}


def test_a_tag_leaving_is_no_longer_read() -> None:
    bus = SimBus(1)
    antenna = reader(bus)
    a, b = uid(0x11), uid(0x22)
    bus.chips[0].field = {a: 12, b: 12}
    assert set(antenna.scan()) == {a, b}
    bus.chips[0].field = {b: 12}
    assert set(antenna.scan()) == {b}
    bus.chips[0].field = {}
    assert antenna.scan() == {}


def test_a_reader_that_stops_answering_raises_and_recovers() -> None:
    bus = SimBus(2)
    dead, alive = reader(bus, 0), reader(bus, 1)
    bus.chips[0].field = {uid(0x01): 12}
    bus.chips[1].field = {uid(0x02): 12}
    bus.chips[0].fail()
    with pytest.raises(ChipError, match="antenna 0: BUSY stayed low"):
        dead.scan()
    with pytest.raises(ChipError, match="antenna 0"):
        dead.recover()
    assert set(alive.scan()) == {uid(0x02)}      # the other chip on the bus is unaffected
    bus.chips[0].revive()
    dead.recover()
    assert set(dead.scan()) == {uid(0x01)}


def test_a_garbled_spi_reply_is_caught() -> None:
    bus = SimBus(1)
    antenna = reader(bus)
    a, b = uid(0x31), uid(0x42)
    bus.chips[0].field = {a: 12, b: 12}
    assert set(antenna.scan()) == {a, b}
    # an answer read back with flipped bits: the IRQ_STATUS reply has reserved bits set
    bus.chips[0].garble(1)
    with pytest.raises(ChipError, match="garbled reply"):
        antenna.scan()
    assert set(antenna.scan()) == {a, b}         # the next scan is clean again
    # noise on a data reply: the answer is not a UID (no E0), so its slot is asked again
    inv = antenna.inventory
    chip = antenna.chip
    chip.rf_on()
    try:
        found: set[bytes] = set()
        garbled = inv.garbled
        original = chip.read_data

        def noisy(n: int) -> bytearray:
            bus.chips[0].garble(1)
            chip.read_data = original  # type: ignore[method-assign]
            return original(n)

        chip.read_data = noisy  # type: ignore[method-assign]
        found = inv.run()
    finally:
        chip.rf_off()
    assert found == {a, b} and inv.garbled == garbled + 1


def test_the_signal_figure_tells_a_tag_on_the_antenna_from_one_at_its_edge() -> None:
    bus = SimBus(2)
    here, there = reader(bus, 0), reader(bus, 1)
    card = uid(0x5A)
    bus.chips[0].field = {card: 12}
    bus.chips[1].field = {card: 4}
    assert here.measure(card) == -100 + 6 * 12
    assert there.measure(card) == -100 + 6 * 4
    assert here.measure(uid(0x66)) is None       # not in this field at all
    assert bus.chips[0].regs[0x1C] >> 12 & 0xF == 0   # receiver threshold restored


def test_the_air_time_of_an_inventory_follows_iso15693() -> None:
    """One 16-slot round with two tags: request, 16 slot waits, two answers, 15 EOFs."""
    bus = SimBus(1)
    antenna = reader(bus)
    bus.chips[0].field = {uid(0x01): 12, uid(0x02): 12}
    antenna.scan()                               # learns that there are two
    t0 = bus.clock.now_us
    antenna.scan()
    took = bus.clock.now_us - t0
    request = iso15693.request_us(iso15693.request(0, 0, False))
    air = request + 15 * iso15693.EOF_US + 16 * (iso15693.T1_US + iso15693.TAG_SOF_US) \
        + 2 * (iso15693.ANSWER_US - iso15693.TAG_SOF_US + iso15693.T2_US)
    assert air < took < air + 1000 + 8000        # + field settling and the host's SPI work


def test_an_antenna_that_never_sees_a_newcomer_does_not_grow() -> None:
    """An antenna kept the result of every full inventory since its last newcomer; one that
    never gets one (an empty seat's) grew by a set per scan (10 a second: the Pico's RAM gone
    within minutes, and a union over all of them at every scan). It keeps their union now."""
    import tracemalloc

    bus = SimBus(2)
    empty, pile = reader(bus, 0), reader(bus, 1)
    bus.chips[1].field = {uid(low): 12 for low in range(3)}   # a seat's cards, unchanged
    for _ in range(50):
        empty.scan()
        pile.scan()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for _ in range(500):
            assert empty.scan() == {}
            assert len(pile.scan()) == 3
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename")
                if stat.traceback[0].filename.endswith("antenna.py"))
    assert grown < 4096
