"""The dealing monitor façade: observations, console actions and floor decisions in; what
happened out (a :class:`~table_controller.monitor.output.MonitorOutput` per call).

Pure: no I/O, no clock (every input carries its monotonic time), randomness only through the
injectable ``burn_chooser`` (TDA four-card flop, [002 #33]). See docs/monitor.md for the state
machine, every check with its rule, and the fusion of the two sensors.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence

from table_controller.engine import Action, ActionKind, EngineError, Hand, Street, Table
from table_controller.monitor import checks
from table_controller.monitor.alerting import make, seat_text
from table_controller.monitor.arrivals import in_procedure_order
from table_controller.monitor.context import BurnChooser, CheckContext
from table_controller.monitor.fusion import Change, Fused, SensorFusion
from table_controller.monitor.hand_run import HandRun
from table_controller.monitor.output import NOTHING, MonitorOutput, ended, raised
from table_controller.monitor.records import (
    BETTING_KINDS,
    ConsoleAction,
    HandEnd,
    MonitorConfig,
    MonitorError,
)
from table_controller.monitor.remedies import RemedyBook
from table_controller.monitor.streets import commit_street
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardObservation,
    Observation,
    SensorStatus,
    Source,
)
from table_controller.vocabulary.zones import ZoneError, check_zone

__all__ = ["BurnChooser", "DealingMonitor", "secure_burn_choice"]

_KINDS = {
    "fold": ActionKind.FOLD, "check": ActionKind.CHECK, "call": ActionKind.CALL,
    "bet": ActionKind.BET, "raise": ActionKind.RAISE, "allin": ActionKind.ALL_IN,
}


def secure_burn_choice(cards: Sequence[Card]) -> Card:
    """The controller's random pick of the four-card flop's burn card (TDA 2024 39-A,
    [002 #33]): ``secrets`` so that nobody can predict it."""
    if not cards:
        raise MonitorError("no card to choose the burn card from")
    return cards[secrets.randbelow(len(cards))]


class DealingMonitor:
    """Follows the dealing procedure at one table and drives its rules engine.

    ``table``: the engine's :class:`Table` with seats, stacks and button set. Every input method
    returns a :class:`~table_controller.monitor.output.MonitorOutput` (the alerts raised, the
    hand started or ended); bad input raises :class:`MonitorError` and leaves the state as it
    was. The state the checks work on is :attr:`ctx` (:class:`CheckContext`).
    """

    def __init__(self, table: Table, *, config: MonitorConfig | None = None,
                 burn_chooser: BurnChooser | None = None) -> None:
        config = config or MonitorConfig()
        self.ctx = CheckContext(
            table=table, config=config,
            fusion=SensorFusion(sensors=config.sensors, settle_time=config.settle_time,
                                sensor_lag=config.sensor_lag,
                                peek_time=config.peek_time),
            book=RemedyBook(), choose_burn=burn_chooser or secure_burn_choice)
        self.events: list[HandEnd] = []  # one record per hand that ended, in order
        self._online = {Source.RFID: True, Source.CAMERA: True}

    # ------------------------------------------------------------------ queries
    @property
    def table(self) -> Table:
        return self.ctx.table

    @property
    def config(self) -> MonitorConfig:
        return self.ctx.config

    @property
    def fusion(self) -> SensorFusion:
        """The sensor fusion; its ``picture`` is where every card lies."""
        return self.ctx.fusion

    @property
    def book(self) -> RemedyBook:
        return self.ctx.book

    @property
    def run(self) -> HandRun | None:
        """The hand in progress as the monitor follows it, None between hands."""
        return self.ctx.run

    @property
    def hand(self) -> Hand | None:
        """The engine's hand in progress, None between hands."""
        return self.ctx.run.hand if self.ctx.run is not None else None

    @property
    def hand_number(self) -> int:
        """The number of the hand in progress, or of the last one (0 before the first)."""
        return self.ctx.last_number

    @property
    def open_alerts(self) -> tuple[Alert, ...]:
        """Alerts whose remedy the floor has not yet confirmed (stop, fix and warn)."""
        return self.book.alerts

    @property
    def halted(self) -> str | None:
        """The stop alert that froze the hand until it is resolved, if any."""
        return self.ctx.run.halted if self.ctx.run is not None else None

    def deal_order(self) -> tuple[int, ...]:
        """Seats dealt in for the hand in progress, first card first (empty between hands)."""
        run = self.ctx.run
        return tuple(run.hand.deal_order) if run is not None else ()

    def secret_cards(self) -> frozenset[Card]:
        """The hole cards of this hand that nobody at the table has seen (alerts.md: only the
        floor's channel names them). Read off the card picture (:mod:`.hole_cards`)."""
        return self.ctx.holes.secret

    # ------------------------------------------------------------------- inputs
    def in_procedure_order(self, observations: Iterable[Observation]) -> list[Observation]:
        """``observations`` in the order to observe them: by time, and those a sensor reported
        at one moment (one scan cycle, one frame) in the order the dealing procedure expects
        (:mod:`.arrivals`: the sensor cannot tell which of them came first)."""
        return in_procedure_order(observations, self.ctx.run)

    def observe(self, obs: Observation) -> MonitorOutput:
        """A sensor observation: a card, the green button, a sensor's status."""
        if isinstance(obs, CardObservation):
            try:
                check_zone(obs.zone)
            except ZoneError as exc:
                raise MonitorError(f"observation from {obs.source.value}: {exc}") from None
            out = self.tick(obs.t)
            return out + self._raised(self._apply(self.fusion.observe(obs)))
        if isinstance(obs, ButtonPressed):
            return self.tick(obs.t) + self._green_button(obs.t)
        if isinstance(obs, SensorStatus):
            return self.tick(obs.t) + self._raised(self._sensor_status(obs))
        raise MonitorError(f"not an observation: {obs!r}")

    def tick(self, now: float) -> MonitorOutput:
        """Time passes: removals and sensor disagreements older than the settle time count."""
        out = self._apply(self.fusion.tick(now))
        run = self.ctx.run
        if run is not None and run.halted is None:
            out += checks.camera_duplicates(self.ctx, now)
        return self._raised(out)

    def console(self, action: ConsoleAction) -> MonitorOutput:
        """An action as the dealer console records it (betting, time expired, button report)."""
        ctx, run = self.ctx, self.ctx.run
        if action.kind == "button":
            return self._raised(checks.button_report(ctx, action))
        if run is None:
            raise MonitorError(f"console {action.kind} by seat {action.seat}: no hand is running")
        if run.halted is not None:
            return NOTHING  # the hand is frozen by a stop alert until the floor resolves it
        hand = run.hand
        if action.kind == "time_expired":
            try:
                hand.time_expired(action.seat)
            except EngineError as exc:
                raise MonitorError(f"time expired for seat {action.seat}: {exc}") from None
            expired = make(ctx, "TIME_EXPIRED", action.t, seat=action.seat,
                           message=f"Seat {action.seat}: the clock ran out",
                           remedy=f"Seat {action.seat}'s hand is dead")
            return self._raised([expired]) + self._after_action(action.t)
        assert action.kind in BETTING_KINDS
        out: list[Alert] = []
        if not run.deal_over:
            out += checks.deal_end(ctx, action.t)
            if run.halted is not None:
                return self._raised(out)
        self.commit_street()
        act = Action(seat=action.seat, kind=_KINDS[action.kind], amount=action.amount)
        in_turn = hand.to_act == action.seat
        try:
            hand.act(act)
        except EngineError as exc:
            raise MonitorError(f"console action {act}: {exc}") from None
        run.deal_over = True
        if not in_turn:
            out.append(make(
                ctx, "ACTION_OUT_OF_TURN", action.t, seat=action.seat,
                message=f"Seat {action.seat} acted out of turn ({action.kind}); "
                        f"seat {seat_text(hand.to_act)} was to act",
                remedy="The action is binding unless the action to seat "
                       f"{action.seat} changes before his turn ([002 #35])"))
            self.book.open(out[-1])
        return self._raised(out) + self._after_action(action.t)

    def resolve(self, code: str, t: float) -> MonitorOutput:
        """The floor says the remedy of the last open alert with ``code`` was carried out.
        The monitor checks the table; if the picture disagrees it states the remedy again. A
        misdeal or fouled deck carried out voids the hand (rules.md §5)."""
        if self.book.latest(code) is None:
            raise MonitorError(f"resolve {code}: no open {code} alert")
        out = self.tick(t)
        resolution = self.book.resolve(code, t)
        if resolution is None:
            return out
        if not resolution.done:
            return out + self._raised([resolution.alert])
        assert resolution.ended is not None
        self.ctx.reported.discard(resolution.ended.ref)
        out += ended([resolution.ended])
        if resolution.voids_hand:
            return out + self.void(code, t)
        return out

    def showdown_order(self) -> list[int]:
        """Who shows first (rules.md §4, TDA 2024 17 [002 #12]); the players turning their
        cards up after this call are showing down, not exposing cards."""
        run = self._live("showdown order")
        self.commit_street()
        run.showdown_called = True
        return list(run.hand.showdown_order())

    def showdown(self, t: float) -> MonitorOutput:
        """Award the pots with the hole cards the sensors see (cards speak, [002 #10])."""
        run = self._live("showdown")
        if run.halted is not None:
            raise MonitorError(f"showdown: the hand is stopped by {run.halted}; resolve it first")
        out = self.tick(t)
        if run.halted is not None:
            return out  # the table just showed a stop condition: no pots are awarded
        self.commit_street()
        run.showdown_called = True
        holes, mucked = checks.visible_hole_cards(self.ctx)
        try:
            run.hand.showdown(holes, mucked=mucked)
        except EngineError as exc:
            raise MonitorError(f"showdown: {exc}") from None
        return out + self._finish(t)

    def void(self, cause: str, t: float) -> MonitorOutput:
        """Misdeal or fouled deck: every chip returned, the button stays (rules.md §5)."""
        run = self._live("void")
        try:
            run.hand.void(cause)
        except EngineError as exc:
            raise MonitorError(f"void: {exc}") from None
        self.table.finish_hand(run.hand)
        return self._record_end(run, voided=True, cause=cause, t=t)

    def commit_street(self, *, strict: bool = True) -> bool:
        """Hand the street on the board to the engine once its betting may start
        (:func:`~table_controller.monitor.streets.commit_street`)."""
        return commit_street(self.ctx, strict=strict)

    # ----------------------------------------------------------------- internals
    def _live(self, what: str) -> HandRun:
        if self.ctx.run is None:
            raise MonitorError(f"{what}: no hand is running")
        return self.ctx.run

    def _apply(self, changes: list[Fused]) -> list[Alert]:
        ctx = self.ctx
        out: list[Alert] = []
        for f in changes:
            ctx.holes.note(f.card, f.zone)
            if f.change is Change.ENTERED:
                out += checks.entered(ctx, f)
            elif f.change is Change.LEFT:
                checks.left(ctx, f)
            elif f.change is Change.FACE:
                out += checks.face(ctx, f)
            elif f.change is Change.IDENTITY:
                out += checks.identity(ctx, f)
            else:
                out += checks.conflict(ctx, f)
        return out

    def _green_button(self, t: float) -> MonitorOutput:
        """The shuffler's green button starts a hand (rules.md §2, TDA 2024 23 [002 #19])."""
        ctx = self.ctx
        if ctx.run is not None:
            alert = make(ctx, "GREEN_BUTTON_DURING_HAND", t,
                         message=f"Green button pressed during hand {ctx.last_number}",
                         remedy=f"Ignored: hand {ctx.last_number} goes on")
            self.book.open(alert)
            return self._raised([alert])
        try:
            hand = self.table.start_hand()
        except EngineError as exc:
            raise MonitorError(f"green button: the table cannot start a hand: {exc}") from None
        closed = self._close_book(t)  # between-hands alerts end as the next hand begins
        ctx.no_hand_seen.clear()  # and the next time between hands is a time of its own
        ctx.run = HandRun.start(hand)
        ctx.last_number = hand.number
        ctx.holes.new_hand()
        return (closed + MonitorOutput(hand_started=hand)
                + self._raised(checks.deck_check(ctx, t)))

    def _sensor_status(self, obs: SensorStatus) -> list[Alert]:
        if self._online[obs.source] == obs.online:
            return []
        self._online[obs.source] = obs.online
        out = self._apply(self.fusion.set_online(obs.source, obs.online, obs.t))
        name = "RFID reader" if obs.source is Source.RFID else "camera"
        detail = f": {obs.detail}" if obs.detail else ""
        if obs.online:
            return [*out, make(self.ctx, "SENSOR_RECOVERED", obs.t,
                               message=f"The {name} answers again{detail}")]
        return [*out, make(
            self.ctx, "SENSOR_OFFLINE", obs.t, message=f"The {name} stopped answering{detail}",
            remedy=f"Check the {name}; the controller keeps the hand state")]

    def _after_action(self, t: float) -> MonitorOutput:
        run = self.ctx.run
        if run is not None and run.hand.street is Street.COMPLETE:
            return self._finish(t)
        return NOTHING

    def _finish(self, t: float) -> MonitorOutput:
        """A hand played out (all folded but one, or showdown): the engine commits stacks and
        moves the button (rules.md §2)."""
        run = self._live("finish")
        self.table.finish_hand(run.hand)
        return self._record_end(run, voided=False, cause=None, t=t)

    def _record_end(self, run: HandRun, *, voided: bool, cause: str | None, t: float
                    ) -> MonitorOutput:
        """The hand's end record; the alerts still open end with it (``hand_end``)."""
        end = HandEnd(number=run.hand.number, voided=voided, cause=cause,
                      stacks=dict(self.table.stacks), t=t, result=run.hand.result,
                      hand=run.hand)
        self.events.append(end)
        closed = self._close_book(t)
        self.ctx.run = None
        return MonitorOutput(hand_ended=end) + closed

    def _close_book(self, t: float) -> MonitorOutput:
        closed = self.book.close_hand(t)
        self.ctx.reported.clear()
        return ended(closed)

    def _raised(self, alerts: list[Alert] | tuple[Alert, ...]) -> MonitorOutput:
        """The alerts of a check: new ones, and updates of open ones (a ``ref`` reported)."""
        return raised(alerts, self.ctx.reported)
