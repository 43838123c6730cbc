"""The simulated table for ``table-controller run --sim`` and the daemon's tests.

The devices are the simulator's (:mod:`hw_sim.devices.wiring`): the virtual RFID controller on a
pty read by the REAL serial link and reader, the shuffler's green button bouncing on a simulated
GPIO pin and debounced by the REAL :class:`~firmware_bridge.button.ShufflerButton`, and optionally
virtual camera whose rendered frames go through the REAL vision code
(:mod:`hw_sim.devices.camera_chain`); lamps and buzzer are driven on the same simulated GPIO. The
controller polls them through the same :class:`~table_controller.daemon.controller.Sensor`
interface as a table's devices.

A simulated dealer moves the cards, one card per :attr:`SimTable.move_interval` simulated
seconds, so each card is seen before the next (as a real dealer's hands take time). It is told
what to do through the console channel (``sim_press``, ``sim_deal``, ``sim_show``,
``sim_collect``; see docs/running.md), so a hand can be played on ``run --sim`` from any zmq
client.

Time: the simulator's :class:`~hw_sim.devices.clock.SimClock`. :meth:`SimTable.advance_to` moves it,
stopping at each scheduled bounce edge of the button so the debouncer sees exact times;
:class:`PacedClock` makes it follow real time for ``run --sim``, tests move it themselves.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from firmware_bridge.outputs import AlertOutputs
from hw_sim.devices import wiring
from hw_sim.devices.clock import SimClock
from hw_sim.devices.dealer import Dealer, DealerError
from hw_sim.devices.table_model import ModelError, TableModel, shuffled_deck
from table_controller.daemon.controller import Command, ConsoleError
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import Observation

STREETS = ("hole", "flop", "turn", "river")
SIM_FRAME_RATE = 10.0
"""The simulated camera analyses one frame per look at the table: ``run --sim`` looks every
loop (50 a second), the tests every 0.1 simulated seconds at the slowest."""


def sensor_lag(sensors: frozenset[str]) -> float:
    """The monitor's ``sensor_lag`` for the simulated devices (the reader's and the tracker's
    defaults, :func:`table_controller.monitor.fusion.sensor_lag`); 0 with one sensor."""
    if sensors != frozenset({"rfid", "camera"}):
        return 0.0
    from table_controller.monitor.fusion import sensor_lag as lag
    from vision.tracker import CardTracker

    tracker = CardTracker()
    return lag(hold_time=wiring.HOLD_TIME, confirm_frames=tracker.confirm_frames,
               drop_frames=tracker.drop_frames, frame_rate=SIM_FRAME_RATE)


class SimTable:
    """Simulated devices plus a dealer. ``seat_order`` gives the seats the hole cards go to
    (the controller's deal order, asked when the deal starts)."""

    name = "sim-dealer"

    def __init__(self, *, clock: SimClock, seed: int = 1, move_interval: float = 0.3,
                 deal_order: Callable[[], tuple[int, ...]] = tuple,
                 first_order: Sequence[Card] = (), rfid: bool = True,
                 camera: bool = False) -> None:
        self.clock = clock
        self.move_interval = move_interval
        self.deal_order = deal_order
        self.model = TableModel()
        self.dealer = Dealer(self.model, rng=random.Random(f"dealer:{seed}"),
                             after_move=self._pause)
        self.deck_rng = random.Random(seed)
        if not rfid and not camera:
            raise ValueError("the simulated table needs the RFID reader, the camera or both")
        self.rfid = wiring.build_pty_rfid(self.model, clock, seed=seed) if rfid else None
        self.camera: Any = None
        if camera:
            from hw_sim.devices.camera_chain import build_camera  # OpenCV: only when simulated

            self.camera = build_camera(self.model, seed=seed)
        self.button = wiring.build_button(clock, random.Random(f"button:{seed}"))
        self._buffer: list[Observation] = []
        self._deck_fresh = False
        self._job: _Job | None = None
        self._next_move = 0.0
        self.dealer.new_hand(self._deck(first_order))

    # ------------------------------------------------------------------ sensors
    @property
    def sensors(self) -> list[Any]:
        """What the controller polls: the dealer's hands first (and the button), then the RFID
        chain and the camera chain."""
        return [chain for chain in (self, self.rfid, self.camera) if chain is not None]

    def outputs(self) -> AlertOutputs:
        """Lamps and buzzer on the simulated GPIO (docs/wiring.md pins)."""
        return AlertOutputs(self.button.gpio, red=22, amber=23, buzzer=24)

    def poll(self, now: float) -> list[Observation]:
        """The dealer makes the next move when it is due; the button's debounced presses."""
        if self._job is not None and now >= self._next_move:
            self._job.resume()
            self._next_move = now + self.move_interval
            if self._job.done:
                error, self._job = self._job.error, None
                if error is not None:
                    self._buffer.clear()
                    raise RuntimeError(f"simulated dealer: {error}")
        out = self._buffer + self.button.poll(now)
        self._buffer = []
        return out

    def advance_to(self, target: float) -> float:
        """Move the simulated clock to ``target``, stopping at every bounce edge on the way."""
        while True:
            now = self.clock()
            due = self.button.next_due(now)
            if due is None or due > target:
                break
            self.clock.advance_to(due)
            self._buffer.extend(self.button.poll(due))
        return self.clock.advance_to(target)

    @property
    def busy(self) -> bool:
        return self._job is not None

    def status(self) -> dict[str, Any]:
        """For the console's status answer: ``sim_busy`` while the dealer is moving cards."""
        return {"sim_busy": self.busy}

    def close(self) -> None:
        if self._job is not None:
            self._job.cancel()
        for chain in (self.rfid, self.camera, self.button):
            if chain is not None:
                chain.close()

    # ------------------------------------------------------------------ the dealer
    def _deck(self, top: Sequence[Card] = ()) -> list[Card]:
        """A freshly shuffled deck; ``top``: its first cards (the first hand's, from the
        configuration's ``[sim] deck_order``)."""
        self._deck_fresh = True
        return shuffled_deck(self.deck_rng, top)

    def _pause(self) -> None:
        job = self._job
        if job is not None and threading.current_thread() is job.thread:
            job.pause()

    def _start(self, what: str, work: Callable[[], None]) -> None:
        if self._job is not None:
            raise ConsoleError(f"{what}: the simulated dealer is still busy")
        self._job = _Job(work)
        self._next_move = 0.0

    def press(self) -> None:
        """The dealer presses the green button; a fresh deck comes from the shuffler once the
        felt is clear."""
        if self._job is not None:
            raise ConsoleError("sim_press: the simulated dealer is still busy")
        if not self.model.felt and not self._deck_fresh:
            self.dealer.new_hand(self._deck())
        self._deck_fresh = False
        self.button.press(self.clock())

    def deal(self, street: str) -> None:
        if street not in STREETS:
            raise ConsoleError(f"sim_deal: street {street!r} is not one of {', '.join(STREETS)}")
        if street == "hole":
            order = self.deal_order()
            if not order:
                raise ConsoleError("sim_deal: no hand in progress to deal to")
            self._start("sim_deal", lambda: self.dealer.deal_hole(order))
        else:
            self._start("sim_deal", lambda: self.dealer.deal_street(street))

    def show(self, seats: list[int]) -> None:
        def work() -> None:
            for seat in seats:
                self.dealer.show(seat)
        self._start("sim_show", work)

    def collect(self) -> None:
        self._start("sim_collect", self.dealer.collect)

    def commands(self) -> Mapping[str, tuple[Command, frozenset[str]]]:
        """Console commands that drive the simulated dealer (``run --sim`` only)."""
        def press(_r: Mapping[str, Any], _t: float) -> list[Alert]:
            self.press()
            return []

        def deal(r: Mapping[str, Any], _t: float) -> list[Alert]:
            street = r.get("street")
            if not isinstance(street, str):
                raise ConsoleError("sim_deal: 'street' is required (hole, flop, turn, river)")
            self.deal(street)
            return []

        def show(r: Mapping[str, Any], _t: float) -> list[Alert]:
            seats = r.get("seats")
            if not isinstance(seats, list) or not all(
                    isinstance(s, int) and not isinstance(s, bool) for s in seats):
                raise ConsoleError("sim_show: 'seats' must be a list of seat numbers")
            self.show(seats)
            return []

        def collect(_r: Mapping[str, Any], _t: float) -> list[Alert]:
            self.collect()
            return []

        return {"sim_press": (press, frozenset()),
                "sim_deal": (deal, frozenset({"street"})),
                "sim_show": (show, frozenset({"seats"})),
                "sim_collect": (collect, frozenset())}


class _Job:
    """A dealer routine run one card movement at a time: the routine runs in its own thread but
    only while the caller of :meth:`resume` waits, so it never runs alongside the controller."""

    def __init__(self, work: Callable[[], None]) -> None:
        self._work = work
        self._go = threading.Semaphore(0)
        self._back = threading.Semaphore(0)
        self._cancelled = False
        self.done = False
        self.error: str | None = None
        self.thread = threading.Thread(target=self._run, name="sim-dealer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self._go.acquire()
        try:
            if not self._cancelled:
                self._work()
        except (DealerError, ModelError, _Cancelled) as exc:
            self.error = None if isinstance(exc, _Cancelled) else str(exc)
        finally:
            self.done = True
            self._back.release()

    def pause(self) -> None:
        """Called by the routine after each movement: hand control back, wait for the next."""
        self._back.release()
        self._go.acquire()
        if self._cancelled:
            raise _Cancelled

    def resume(self, timeout: float = 10.0) -> None:
        """Let the routine make its next movement (or finish)."""
        if self.done:
            return
        self._go.release()
        if not self._back.acquire(timeout=timeout):
            self.done, self.error = True, "the dealer routine did not come back"

    def cancel(self) -> None:
        self._cancelled = True
        self._go.release()
        self.thread.join(timeout=2.0)


class _Cancelled(Exception):
    pass


class PacedClock:
    """The simulated clock made to follow real time (``run --sim``)."""

    def __init__(self, table: SimTable) -> None:
        self._table = table
        self._base = table.clock()
        self._start = time.monotonic()

    def __call__(self) -> float:
        return self._table.advance_to(self._base + time.monotonic() - self._start)
