"""One simulated table: the cards, the dealer's hands, the shuffler, every sensor chain, the lamps
and the one clock they all run on.

::

    TableModel (every physical card)  <--  Dealer (one card movement at a time)
        |                      |                          |
    VirtualRfidController   VirtualCamera frames     shuffler button on SimGpio (bounce)
    on a pty (wiring)       (camera_chain)           (wiring.SimButton)
        |                      |                          |
    REAL SerialLink +       REAL vision analyser     REAL ShufflerButton debouncer
    RfidReader              and tracker
        \\______________________ sensors ___________________/  -> the controller polls them
    AlertOutputs (lamps, buzzer) on the same SimGpio

Everything here is built once per simulated table, the same way for a scenario (``sim``), for
continuous play (``demo``) and for ``run --sim``; they differ only in the options (which
sensors, whether the reader and the camera cover the shuffler tray). The clock is a
:class:`~hw_sim.devices.clock.SimClock`: whoever drives the table moves it, stopping at each
time a device has something scheduled (:meth:`SimTable.next_due`), so every debouncer sees
exact times; :class:`PacedClock` makes it follow real time for ``run --sim``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Literal

from firmware_bridge.outputs import AlertOutputs
from hw_sim.devices import wiring
from hw_sim.devices.clock import SimClock
from hw_sim.devices.dealer import Dealer
from hw_sim.devices.table_model import TableModel, shuffled_deck
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import Face

LAMP_PINS = {"red": 22, "amber": 23, "buzzer": 24}  # docs/wiring.md
SENSORS = frozenset({"rfid", "camera"})
CATCH_UP_STOPS = 200
"""At most this many scans and frames are made up in one move of the clock (20 seconds of
the reader's scans and the camera's frames)."""


def sensor_lag(sensors: Collection[str]) -> float:
    """The monitor's ``sensor_lag`` for the simulated devices (the reader's and the tracker's
    defaults, :func:`table_controller.monitor.fusion.sensor_lag`), the camera counted at its
    least frame rate (:data:`hw_sim.devices.camera_chain.FRAME_INTERVAL`: the table stops its
    clock for frames the controller's loop came too late for); 0 with one sensor."""
    if frozenset(sensors) != SENSORS:
        return 0.0
    from hw_sim.devices.camera_chain import FRAME_INTERVAL  # OpenCV: when simulated
    from table_controller.monitor.fusion import sensor_lag as lag
    from vision.tracker import CardTracker

    tracker = CardTracker()
    return lag(hold_time=wiring.HOLD_TIME, confirm_frames=tracker.confirm_frames,
               drop_frames=tracker.drop_frames, frame_rate=1.0 / FRAME_INTERVAL)


class SimTable:
    """The simulated devices of one table.

    ``seed``: the shuffler's decks, the dealer's reshuffles, the reader's flicker and the
    button's bounce all derive from it. ``sensors``: ``rfid``, ``camera`` or both.
    ``first_order``: the top of the first deck. ``missing``/``extra``: a short or over-full
    deck. ``stub_antenna``: an antenna under the shuffler tray reads the stub; ``stub_view``:
    the camera's layout covers the tray (it sees the stub's top card). ``rfid_link``: ``pty``
    (the real serial link to the virtual controller on a pseudo-terminal) or ``in_process``
    (the controller end played in-process, no serial bytes). ``felt`` and ``light``: the
    camera's cloth (:data:`vision.props.FELTS`) and the room's light
    (:data:`hw_sim.devices.camera.LIGHTS`). ``camera_cache``: the frames and laid felts the
    simulated camera keeps to draw the next frame faster (None: its default,
    :data:`hw_sim.devices.camera_chain.FRAMES_KEPT`; 0: none, for a long-running daemon whose
    memory is the controller's).
    """

    def __init__(self, *, seed: int, sensors: Collection[str] = ("rfid",),
                 first_order: Sequence[Card] = (), missing: Iterable[Card] = (),
                 extra: Iterable[Card] = (), stub_antenna: bool = False,
                 stub_view: bool = False, rfid_link: Literal["pty", "in_process"] = "pty",
                 clock: SimClock | None = None, felt: str = "green",
                 light: str = "neutral", camera_cache: int | None = None) -> None:
        chosen = frozenset(sensors)
        if not chosen or not chosen <= SENSORS:
            raise ValueError(f"the simulated table has the sensors rfid and camera, not "
                             f"{sorted(chosen)}")
        self.clock = clock or SimClock()
        self.model = TableModel(missing=missing, extra=extra)
        self.dealer = Dealer(self.model, rng=random.Random(f"dealer:{seed}"))
        self._deck_rng = random.Random(seed)
        self._first_order = tuple(first_order)
        self._decks = 0
        self._deck_fresh = False
        self.rfid: Any = None
        self.camera: Any = None
        self.button = wiring.build_button(self.clock, random.Random(f"button:{seed}"))
        self._closed = False
        try:
            if "rfid" in chosen and rfid_link == "pty":
                self.rfid = wiring.build_pty_rfid(self.model, self.clock, seed=seed,
                                                  stub_antenna=stub_antenna)
            elif "rfid" in chosen:
                self.rfid = wiring.build_rfid(self.model, self.clock)
            if "camera" in chosen:
                from hw_sim.devices.camera_chain import build_camera  # OpenCV: when simulated

                self.camera = build_camera(self.model, seed=seed, stub_view=stub_view,
                                           felt=felt, light=light, cache=camera_cache)
        except BaseException:
            self.close()  # what was opened (a pty, a serial link) is closed again
            raise
        self.dealer.new_hand(self._next_deck())  # the shuffler prepares the first deck

    # ------------------------------------------------------------------ what is read
    @property
    def sensors(self) -> list[Any]:
        """The sensor chains the controller polls, in this order: RFID, camera, button."""
        return [chain for chain in (self.rfid, self.camera, self.button) if chain is not None]

    def outputs(self) -> AlertOutputs:
        """Lamps and buzzer on the simulated GPIO (docs/wiring.md pins)."""
        return AlertOutputs(self.button.gpio, red=LAMP_PINS["red"], amber=LAMP_PINS["amber"],
                            buzzer=LAMP_PINS["buzzer"])

    # ------------------------------------------------------------------ the shuffler
    def _next_deck(self) -> list[Card]:
        """A freshly shuffled deck of the cards the shuffler holds; only the first one starts
        with ``first_order``."""
        top = self._first_order if self._decks == 0 else ()
        self._decks += 1
        self._deck_fresh = True
        return shuffled_deck(self._deck_rng, top, self.model.deck_faces())

    def press_green_button(self) -> None:
        """The dealer presses the shuffler's green button (it bounces). Each press starts a
        hand from a freshly shuffled deck: the first one was prepared before; later ones come
        once the felt is clear."""
        self.prepare_deck()
        self._deck_fresh = False
        self.button.press(self.clock())

    def lay_out(self, cards: Sequence[tuple[str, str, Face]]) -> list[str]:
        """The new simulated table set as a killed run's hand left the old one (``run --sim``
        resuming, docs/running.md "Restart after a crash"): each ``(tag UID hex, zone, face)``
        card of the active deck is taken from the shuffler and laid there, in order; the rest
        stays in the shuffler. Returns the tags that are not the deck's own (a copy, a foreign
        card, a joker: the new table has none of them). The next hand gets a freshly shuffled
        deck."""
        by_uid = {pc.uid_hex: pc for pc in self.model.stub}
        missing: list[str] = []
        for uid, zone, face in cards:
            pc = by_uid.pop(uid, None)
            if pc is None:
                missing.append(uid)
                continue
            self.model.place(self.model.take_from_stub(pc), zone, face)
        self._deck_fresh = False
        return missing

    def prepare_deck(self) -> None:
        """The shuffler delivers the next hand's fresh deck now, if the felt is clear and it has
        not done so yet (the green button then starts the hand on it): something can happen to
        the deck before the press (a card falls off the table)."""
        if not self.model.felt and not self._deck_fresh:
            self.dealer.new_hand(self._next_deck())

    # ------------------------------------------------------------------ time and faults
    def next_due(self, now: float) -> float | None:
        """The next time after ``now`` at which a device has something scheduled (a bounce
        edge, a cable plugged back, a frozen camera thawing); None if none has."""
        due = [t for chain in self.sensors
               if (t := chain.next_due(now)) is not None and t > now]
        return min(due) if due else None

    def advance_to(self, target: float) -> float:
        """Move the clock to ``target`` without a controller looking at every stop: the clock
        stops at each bounce edge of the button, which samples it there (its presses are
        delivered at its next poll), and, when ``target`` lies further ahead than the reader's
        scan period or the camera's frame interval, at each scan and frame the devices owe
        meanwhile (a real reader and camera work on their own time, not when the controller
        looks; what they report comes out of their next poll, at its own times). At most
        :data:`CATCH_UP_STOPS` such stops: a longer jump passes the rest at once."""
        timed = [chain for chain in (self.rfid, self.camera)
                 if chain is not None and hasattr(chain, "owed")]
        stops = 0
        while True:
            now = self.clock()
            due = self.button.next_due(now)
            if due is not None and due > target:
                due = None
            # A scan or frame owed before ``now`` (the clock was read since the last look, too
            # early for it to be due then) is made now: skipping it would leave the device
            # idle until the next look, however long the loop stalls.
            owed = [(max(t, now), chain) for chain in timed
                    if (t := chain.owed(target)) is not None] if stops < CATCH_UP_STOPS else []
            first = min((t for t, _ in owed), default=None)
            if due is None and first is None:
                break
            if first is not None and (due is None or first < due):
                self.clock.advance_to(first)
                for t, chain in owed:
                    if t == first:
                        chain.catch_up(first)
                stops += 1
                continue
            assert due is not None
            self.clock.advance_to(due)
            self.button.sample(due)
        return self.clock.advance_to(target)

    def scans(self) -> int:
        """How many scan cycles the reader has made (0 without one that flickers)."""
        return self.rfid.scans if isinstance(self.rfid, wiring.PtyRfid) else 0

    def read_since(self, scans: int) -> bool:
        """Whether the reader has scanned the table often enough since it had made ``scans``
        cycles to have reported every tag laid before: a flicker burst or a ``tag_dropout``
        makes a tag miss a few cycles, never more (:attr:`wiring.PtyRfid.read_within`). True
        without a reader over the pty (the in-process one reads every tag at each look)."""
        if not isinstance(self.rfid, wiring.PtyRfid):
            return True
        return self.rfid.scans - scans >= self.rfid.read_within

    def fault(self, kind: str, now: float) -> bool:
        """Inject a sensor fault (scenario.md ``fault``); False if no sensor here carries it."""
        return any(chain.fault(kind, now) for chain in self.sensors)

    def close(self) -> None:
        """Close every sensor chain and the deck registry. A controller that polls the chains
        closes them itself; it then closes only :attr:`model`."""
        if self._closed:
            return
        self._closed = True
        for chain in self.sensors:
            chain.close()
        self.model.close()


class PacedClock:
    """The table's simulated clock made to follow real time (``run --sim``)."""

    def __init__(self, table: SimTable) -> None:
        self._table = table
        self._base = table.clock()
        self._start = time.monotonic()

    def __call__(self) -> float:
        return self._table.advance_to(self._base + time.monotonic() - self._start)

