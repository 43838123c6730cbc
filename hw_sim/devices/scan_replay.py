"""Replayed inventories: the firmware's ISO 15693 inventory on a simulated PN5180, run once per
distinct situation and replayed after.

An inventory of the firmware (:class:`firmware.iso15693.Inventory`) on a simulated chip
(:class:`hw_sim.devices.pn5180_sim.SimPn5180`) is deterministic: what it finds, every register
the chip ends with, how long it takes on the bus clock and how many rounds, slots, frames and
instructions it costs follow from the request (mask, mask length, a 1-slot request first or
an addressed one), the driver's state, the chip's state with its times taken from now
(:meth:`~hw_sim.devices.pn5180_sim.SimPn5180.state`) and the tags of the field the request can
hear (those whose UID matches the mask: no other answers any round or sub-round of it). A
scan cycle asks the same few things again and again (an empty antenna, a seat's two cards, a
board of five, one sixteenth of a stub in the tray), so :class:`ReplayInventory` runs each
distinct one through the real driver and chip simulation once, keeps its outcome, and
replays it when the same one comes again (so does :class:`ReplayPn5180` with the field
switched on and off around each antenna's scan): the same UIDs found, the chip put in the state the
real run left it in, the bus clock moved as far, the counters moved as much. The firmware's
scan schedule (:mod:`firmware.antenna`), its core and everything it sends are untouched; only
the register traffic of an inventory already simulated is not simulated again.

Not replayed: a chip that is dead or garbling answers (faults are simulated every time), an
inventory that raised (nothing is kept), a bus with a chip selected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from firmware.iso15693 import Inventory
from firmware.pn5180 import BUSY_POLL_US, Pn5180
from hw_sim.devices.pn5180_sim import ChipState, SimPn5180

MAX_OUTCOMES = 4096
"""Outcomes kept per cache; when full it starts again empty (a table in play needs a few
hundred)."""


class _Driver(NamedTuple):
    idle: bool
    field_on: bool
    min_level: int
    tx_config: int
    send_full: bytes
    send_eof: bytes


def _driver(chip: Pn5180) -> _Driver:
    return _Driver(chip._idle, chip.field_on, chip.min_level, chip.tx_config, chip._send_full,
                   chip._send_eof)


def _set_driver(chip: Pn5180, state: _Driver) -> None:
    chip._idle, chip.field_on, chip.min_level = state.idle, state.field_on, state.min_level
    chip.tx_config, chip._send_full, chip._send_eof = (state.tx_config, state.send_full,
                                                       state.send_eof)


class _Outcome(NamedTuple):
    found: frozenset[bytes]
    chip: ChipState  # RX_STATUS and its data left out: rx
    rx: tuple[int, bytes] | None  # as the request's answers left them; None: heard none
    answers: int
    driver: _Driver
    us: int
    instructions: int
    transfers: int
    rounds: int
    slots: int
    garbled: int


@dataclass(slots=True)
class ReplayCache:
    """Outcomes of inventories already simulated, shared by the chips of one bus."""

    outcomes: dict[tuple[object, ...], _Outcome] = field(default_factory=dict)
    simulated: int = 0
    replayed: int = 0


class ReplayPn5180(Pn5180):
    """The firmware's PN5180 driver for the simulated chip ``sim`` whose :meth:`rf_on` and
    :meth:`rf_off` (every antenna's every scan) replay an outcome already simulated."""

    def __init__(self, sim: SimPn5180, cache: ReplayCache, name: str) -> None:
        super().__init__(sim.bus.spi, sim.nss, sim.busy, sim.rst, sim.irq, sim.clock,
                         name=name)
        self.sim = sim
        self.cache = cache
        self.pending: ChipState | None = None
        self.pending_rx: tuple[int, bytes] = (0, b"")
        """The state a replay left the chip in, not yet written into :attr:`sim`: between the
        field switched on and off nothing but this driver touches the chip or moves the bus
        clock, so the next replay can start from it; anything else the driver does writes it
        first (:meth:`settle`), and so does switching the field off."""

    def settle(self) -> None:
        """Write the state the last replays left into the simulated chip."""
        if self.pending is not None:
            self.sim.set_state(self.pending)
            self.sim.set_rx(self.pending_rx)
            self.pending = None

    def rf_on(self) -> None:
        replay(self, None, ("rf_on",), (), lambda: _nothing(Pn5180.rf_on, self))

    def rf_off(self) -> None:
        replay(self, None, ("rf_off",), (), lambda: _nothing(Pn5180.rf_off, self))
        self.settle()

    # every other access to the chip goes through these: the chip must be as the replays
    # left it
    def _frame(self, out: bytes | None, into: bytearray | None) -> None:
        self.settle()
        super()._frame(out, into)

    def _wait_busy(self, level: int, timeout_us: int, what: str,
                   poll_us: int = BUSY_POLL_US) -> None:
        self.settle()
        super()._wait_busy(level, timeout_us, what, poll_us)

    def reset(self) -> None:
        self.settle()
        super().reset()


def _nothing(method: Callable[[Pn5180], None], chip: Pn5180) -> set[bytes]:
    method(chip)
    return set()


class ReplayInventory(Inventory):
    """:class:`~firmware.iso15693.Inventory` on a :class:`ReplayPn5180` whose :meth:`run` and
    :meth:`answers` replay an outcome already simulated when the situation is the same
    (module docstring)."""

    def __init__(self, chip: ReplayPn5180) -> None:
        super().__init__(chip)
        self.driver = chip

    def run(self, mask: int = 0, mask_len: int = 0, *, one_slot_first: bool = False
            ) -> set[bytes]:
        heard = self.driver.sim.heard(mask, mask_len)
        return set(replay(self.driver, self, ("run", mask, mask_len, one_slot_first), heard,
                          lambda: Inventory.run(self, mask, mask_len,
                                                one_slot_first=one_slot_first)))

    def answers(self, uid: bytes) -> bool:
        heard = self.driver.sim.heard(int.from_bytes(uid, "big"), 64)
        return bool(replay(self.driver, self, ("answers", uid), heard,
                           lambda: {uid} if Inventory.answers(self, uid) else set()))


def replay(chip: ReplayPn5180, inventory: Inventory | None, request: tuple[object, ...],
           heard: tuple[tuple[int, int], ...], simulate: Callable[[], set[bytes]]
           ) -> frozenset[bytes]:
    """``simulate()`` (what ``request`` does on ``chip``, the tags it can hear ``heard``), or
    its outcome replayed if the same situation was simulated before."""
    sim, cache = chip.sim, chip.cache
    if sim.dead or sim.bus.spi.selected is not None:
        chip.settle()
        return frozenset(simulate())
    # What the last answer left in RX_STATUS and for READ_DATA cannot be read before this
    # request's first transmission has cleared the interrupts and brought answers of its own
    # (and switching the field on or off reads neither): it is not part of the situation, and
    # stays as it was unless the request heard an answer.
    if chip.pending is not None:
        before, rx = chip.pending, chip.pending_rx
    else:
        before, rx = sim.state(rx=False), sim.rx()
    if before.garble:
        chip.settle()
        return frozenset(simulate())
    key = (request, heard, before, _driver(chip))
    known = cache.outcomes.get(key)
    clock, spi = sim.clock, sim.bus.spi
    if known is not None:
        cache.replayed += 1
        clock.now_us += known.us
        chip.pending = known.chip
        chip.pending_rx = known.rx if known.rx is not None else rx
        sim.answers += known.answers
        _set_driver(chip, known.driver)
        sim.instructions += known.instructions
        spi.transfers += known.transfers
        if inventory is not None:
            inventory.rounds += known.rounds
            inventory.slots += known.slots
            inventory.garbled += known.garbled
        return known.found
    chip.settle()
    counted = inventory or Inventory(chip)   # rf_on, rf_off: no rounds or slots to count
    counts = (clock.now_us, sim.instructions, spi.transfers, counted.rounds, counted.slots,
              counted.garbled)
    answers = sim.answers
    found = frozenset(simulate())  # raises: nothing kept
    cache.simulated += 1
    if len(cache.outcomes) >= MAX_OUTCOMES:
        cache.outcomes.clear()
    cache.outcomes[key] = _Outcome(
        found, sim.state(rx=False), sim.rx() if sim.answers != answers else None,
        sim.answers - answers, _driver(chip), clock.now_us - counts[0],
        sim.instructions - counts[1], spi.transfers - counts[2], counted.rounds - counts[3],
        counted.slots - counts[4], counted.garbled - counts[5])
    return found
