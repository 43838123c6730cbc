"""The simulated dealer of ``run --sim``, told what to do through the console channel.

``sim_press``, ``sim_deal`` (``street``: hole, flop, turn, river), ``sim_show`` (``seats``) and
``sim_collect`` (docs/running.md) make the dealer of a :class:`~hw_sim.devices.sim_table.SimTable`
press the green button, deal, turn hands up or gather the cards, so a hand can be played on
``run --sim`` from any zmq client; ``sim_put`` (``zone``, ``face``) makes a dealer error and
``sim_remedy`` (``code``) carries out an open alert's remedy, as the dealer station's tests and
benchmark do. The dealer moves one card per :attr:`ConsoleDealer.move_interval`
simulated seconds (a real dealer's hands take time), and not before the reader has scanned the
table often enough to have reported the last one (:meth:`SimTable.read_since`), so each card
is seen before the next however seldom the controller's loop looks: on a loaded machine the
loop looks less often than the dealer moves, and a fresh card missed by its first scan (a
flicker) was reported with the next one, in the antennas' order, not the dealer's (a false
MISDEAL_OUT_OF_ORDER).

The dealer is polled by the controller like a sensor (it delivers no observation itself: the
table's sensor chains see what it moved).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hw_sim.devices.dealer import DealerError
from hw_sim.devices.sim_table import SimTable
from hw_sim.devices.table_model import ModelError
from table_controller.daemon.controller import Command, ConsoleError
from table_controller.monitor.output import NOTHING, MonitorOutput
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.observations import Face, Observation
from table_controller.vocabulary.zones import SHUFFLER, ZoneError, check_zone

STREETS = ("hole", "flop", "turn", "river")


class ConsoleDealer:
    """Drives ``table``'s dealer from console commands. ``deal_order`` gives the seats the hole
    cards go to (the controller's deal order, asked when the deal starts); ``open_alerts``:
    the monitor's open alerts and ``rules`` its profile, for ``sim_remedy``."""

    name = "sim-dealer"

    def __init__(self, table: SimTable, *, move_interval: float = 0.3,
                 deal_order: Callable[[], tuple[int, ...]] = tuple,
                 open_alerts: Callable[[], Sequence[Alert]] = tuple,
                 rules: str = "tda") -> None:
        self.table = table
        self.open_alerts = open_alerts
        self.rules = rules
        self.move_interval = move_interval
        self.deal_order = deal_order
        self._job: _Job | None = None
        self._next_move = 0.0
        self._moved_at: int | None = None  # the reader's scans when the last move was made
        table.dealer.after_move = self._pause

    # ------------------------------------------------------------------ as a sensor
    def poll(self, now: float) -> list[Observation]:
        """The dealer makes its next move when it is due and the reader has seen the last."""
        if (self._job is not None and now >= self._next_move
                and (self._moved_at is None or self.table.read_since(self._moved_at))):
            self._job.resume()
            self._next_move = now + self.move_interval
            self._moved_at = self.table.scans()
            if self._job.done:
                error, self._job = self._job.error, None
                if error is not None:
                    raise RuntimeError(f"simulated dealer: {error}")
        return []

    @property
    def busy(self) -> bool:
        return self._job is not None

    def status(self) -> dict[str, Any]:
        """For the console's status answer: ``sim_busy`` while the dealer is moving cards."""
        return {"sim_busy": self.busy}

    def close(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job = None

    # ------------------------------------------------------------------ what it is told
    def _pause(self) -> None:
        job = self._job
        if job is not None and threading.current_thread() is job.thread:
            job.pause()

    def _start(self, what: str, work: Callable[[], None]) -> None:
        if self._job is not None:
            raise ConsoleError(f"{what}: the simulated dealer is still busy")
        self._job = _Job(work)
        self._next_move = 0.0
        self._moved_at = None

    def perform(self, what: str, work: Callable[[], None]) -> None:
        """The dealer does ``work`` with the table's dealer, one movement per
        :attr:`move_interval` (a dealer error or a remedy the simulated station makes)."""
        self._start(what, work)

    def press(self) -> None:
        """The dealer presses the green button."""
        if self._job is not None:
            raise ConsoleError("sim_press: the simulated dealer is still busy")
        self.table.press_green_button()

    def deal(self, street: str) -> None:
        dealer = self.table.dealer
        if street not in STREETS:
            raise ConsoleError(f"sim_deal: street {street!r} is not one of {', '.join(STREETS)}")
        if street == "hole":
            order = self.deal_order()
            if not order:
                raise ConsoleError("sim_deal: no hand in progress to deal to")
            self._start("sim_deal", lambda: dealer.deal_hole(order))
        else:
            self._start("sim_deal", lambda: dealer.deal_street(street))

    def show(self, seats: list[int]) -> None:
        def work() -> None:
            for seat in seats:
                self.table.dealer.show(seat)
        self._start("sim_show", work)

    def collect(self) -> None:
        self._start("sim_collect", self.table.dealer.collect)

    def put(self, zone: str, face: Face) -> None:
        """The dealer puts the stub's top card in ``zone``, wherever the procedure says it
        should go (a dealer error for the monitor to catch)."""
        try:
            check_zone(zone)
        except ZoneError as exc:
            raise ConsoleError(f"sim_put: {exc}") from None
        if zone == SHUFFLER:
            raise ConsoleError("sim_put: a card is put on the felt, not in the shuffler")
        table = self.table

        def work() -> None:
            try:
                card = table.model.draw_top()
            except ModelError as exc:
                raise DealerError(str(exc)) from None
            table.dealer.put(card, zone, face)
        self._start("sim_put", work)

    def remedy(self, code: str) -> None:
        """The dealer carries out the remedy of the last open alert with ``code``."""
        alert = next((a for a in reversed(self.open_alerts()) if a.code == code), None)
        if alert is None:
            raise ConsoleError(f"sim_remedy: no open {code!r} alert")
        self._start("sim_remedy",
                    lambda: self.table.dealer.carry_out(alert, rules=self.rules))

    def commands(self) -> Mapping[str, tuple[Command, frozenset[str]]]:
        """Console commands that drive the simulated dealer (``run --sim`` only)."""
        def press(_r: Mapping[str, Any], _t: float) -> MonitorOutput:
            self.press()
            return NOTHING

        def deal(r: Mapping[str, Any], _t: float) -> MonitorOutput:
            street = r.get("street")
            if not isinstance(street, str):
                raise ConsoleError("sim_deal: 'street' is required (hole, flop, turn, river)")
            self.deal(street)
            return NOTHING

        def show(r: Mapping[str, Any], _t: float) -> MonitorOutput:
            seats = r.get("seats")
            if not isinstance(seats, list) or not all(
                    isinstance(s, int) and not isinstance(s, bool) for s in seats):
                raise ConsoleError("sim_show: 'seats' must be a list of seat numbers")
            self.show(seats)
            return NOTHING

        def collect(_r: Mapping[str, Any], _t: float) -> MonitorOutput:
            self.collect()
            return NOTHING

        def put(r: Mapping[str, Any], _t: float) -> MonitorOutput:
            zone, face = r.get("zone"), r.get("face", "down")
            if not isinstance(zone, str):
                raise ConsoleError("sim_put: 'zone' is required (seat1..seat10, board, burn, "
                                   "muck)")
            if face not in ("up", "down"):
                raise ConsoleError(f"sim_put: 'face' is up or down, not {face!r}")
            self.put(zone, Face.UP if face == "up" else Face.DOWN)
            return NOTHING

        def remedy(r: Mapping[str, Any], _t: float) -> MonitorOutput:
            code = r.get("code")
            if not isinstance(code, str):
                raise ConsoleError("sim_remedy: 'code' is required (an open alert's code)")
            self.remedy(code)
            return NOTHING

        return {"sim_press": (press, frozenset()),
                "sim_deal": (deal, frozenset({"street"})),
                "sim_show": (show, frozenset({"seats"})),
                "sim_collect": (collect, frozenset()),
                "sim_put": (put, frozenset({"zone", "face"})),
                "sim_remedy": (remedy, frozenset({"code"}))}


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
