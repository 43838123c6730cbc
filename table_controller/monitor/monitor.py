"""The dealing monitor façade: observations, console actions and floor decisions in, alerts out.

Pure: no I/O, no clock (every input carries its monotonic time), randomness only through the
injectable ``burn_chooser`` (TDA four-card flop, [002 #33]). See docs/monitor.md for the state
machine, every check with its rule, and the fusion of the two sensors.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence

from table_controller.engine import Action, ActionKind, EngineError, Hand, Street, Table
from table_controller.monitor import checks
from table_controller.monitor.alerting import make, seat_text
from table_controller.monitor.fusion import Change, Fused, SensorFusion
from table_controller.monitor.hand_run import HandRun
from table_controller.monitor.records import (
    BETTING_KINDS,
    ConsoleAction,
    HandEnd,
    MonitorConfig,
    MonitorError,
)
from table_controller.monitor.remedies import RemedyBook
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

BurnChooser = Callable[[Sequence[Card]], Card]

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

    ``table``: the engine's :class:`Table` with seats, stacks and button set. Every method
    returns the alerts raised (possibly none); bad input raises :class:`MonitorError` and
    leaves the state as it was.
    """

    def __init__(self, table: Table, *, config: MonitorConfig | None = None,
                 burn_chooser: BurnChooser | None = None) -> None:
        self.table = table
        self.config = config or MonitorConfig()
        self.choose_burn: BurnChooser = burn_chooser or secure_burn_choice
        self.fusion = SensorFusion(sensors=self.config.sensors,
                                   settle_time=self.config.settle_time,
                                   sensor_lag=self.config.sensor_lag)
        self.book = RemedyBook()
        self.events: list[HandEnd] = []
        self.run: HandRun | None = None
        self.last_number = 0
        self._online = {Source.RFID: True, Source.CAMERA: True}
        self.no_hand_seen: set[tuple[str, int]] = set()  # (code, pid) reported between hands

    # ------------------------------------------------------------------ queries
    @property
    def hand(self) -> Hand | None:
        """The engine's hand in progress, None between hands."""
        return self.run.hand if self.run is not None else None

    @property
    def hand_number(self) -> int:
        """The number of the hand in progress, or of the last one (0 before the first)."""
        return self.last_number

    @property
    def hand_ends(self) -> list[HandEnd]:
        """The same records as :attr:`events`: one per hand that ended, in order."""
        return self.events

    @property
    def open_alerts(self) -> tuple[Alert, ...]:
        """Alerts whose remedy the floor has not yet confirmed (stop, fix and warn)."""
        return self.book.alerts

    @property
    def halted(self) -> str | None:
        """The stop alert that froze the hand until it is resolved, if any."""
        return self.run.halted if self.run is not None else None

    def deal_order(self) -> tuple[int, ...]:
        """Seats dealt in for the hand in progress, first card first (empty between hands)."""
        return tuple(self.run.hand.deal_order) if self.run is not None else ()

    # ------------------------------------------------------------------- inputs
    def observe(self, obs: Observation) -> list[Alert]:
        """A sensor observation: a card, the green button, a sensor's status."""
        if isinstance(obs, CardObservation):
            try:
                check_zone(obs.zone)
            except ZoneError as exc:
                raise MonitorError(f"observation from {obs.source.value}: {exc}") from None
            out = self.tick(obs.t)
            return out + self._apply(self.fusion.observe(obs))
        if isinstance(obs, ButtonPressed):
            return self.tick(obs.t) + self._green_button(obs.t)
        if isinstance(obs, SensorStatus):
            return self.tick(obs.t) + self._sensor_status(obs)
        raise MonitorError(f"not an observation: {obs!r}")

    def tick(self, now: float) -> list[Alert]:
        """Time passes: removals and sensor disagreements older than the settle time count."""
        out = self._apply(self.fusion.tick(now))
        if self.run is not None and self.run.halted is None:
            out += checks.camera_duplicates(self, now)
        return out

    def console(self, action: ConsoleAction) -> list[Alert]:
        """An action as the dealer console records it (betting, time expired, button report)."""
        run = self.run
        if action.kind == "button":
            return checks.button_report(self, action)
        if run is None:
            raise MonitorError(f"console {action.kind} by seat {action.seat}: no hand is running")
        if run.halted is not None:
            return []  # the hand is frozen by a stop alert until the floor resolves it
        hand = run.hand
        if action.kind == "time_expired":
            try:
                hand.time_expired(action.seat)
            except EngineError as exc:
                raise MonitorError(f"time expired for seat {action.seat}: {exc}") from None
            expired = make(self, "TIME_EXPIRED", action.t, seat=action.seat,
                                  message=f"Seat {action.seat}: the clock ran out",
                                  remedy=f"Seat {action.seat}'s hand is dead")
            return [expired, *self._after_action(action.t)]
        assert action.kind in BETTING_KINDS
        out: list[Alert] = []
        if not run.deal_over:
            out += checks.deal_end(self, action.t)
            if run.halted is not None:
                return out
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
                self, "ACTION_OUT_OF_TURN", action.t, seat=action.seat,
                message=f"Seat {action.seat} acted out of turn ({action.kind}); "
                        f"seat {seat_text(hand.to_act)} was to act",
                remedy="The action is binding unless the action to seat "
                       f"{action.seat} changes before his turn ([002 #35])"))
            self.book.open(out[-1])
        return out + self._after_action(action.t)

    def resolve(self, code: str, t: float) -> list[Alert]:
        """The floor says the remedy of the last open alert with ``code`` was carried out.
        The monitor checks the table; if the picture disagrees it states the remedy again."""
        if self.book.latest(code) is None:
            raise MonitorError(f"resolve {code}: no open {code} alert")
        out = self.tick(t)
        done = self.book.resolve(code, t)
        return out + (done or [])

    def showdown_order(self) -> list[int]:
        """Who shows first (rules.md §4, TDA 2024 17 [002 #12]); the players turning their
        cards up after this call are showing down, not exposing cards."""
        run = self._live("showdown order")
        self.commit_street()
        run.showdown_called = True
        return list(run.hand.showdown_order())

    def showdown(self, t: float) -> list[Alert]:
        """Award the pots with the hole cards the sensors see (cards speak, [002 #10])."""
        run = self._live("showdown")
        if run.halted is not None:
            raise MonitorError(f"showdown: the hand is stopped by {run.halted}; resolve it first")
        out = self.tick(t)
        if run.halted is not None:
            return out  # the table just showed a stop condition: no pots are awarded
        self.commit_street()
        run.showdown_called = True
        holes, mucked = checks.visible_hole_cards(self)
        try:
            run.hand.showdown(holes, mucked=mucked)
        except EngineError as exc:
            raise MonitorError(f"showdown: {exc}") from None
        return out + self._finish(t)

    # ----------------------------------------------------------------- internals
    def _live(self, what: str) -> HandRun:
        if self.run is None:
            raise MonitorError(f"{what}: no hand is running")
        return self.run

    def _apply(self, changes: list[Fused]) -> list[Alert]:
        out: list[Alert] = []
        for f in changes:
            if f.change is Change.ENTERED:
                out += checks.entered(self, f)
            elif f.change is Change.LEFT:
                checks.left(self, f)
            elif f.change is Change.FACE:
                out += checks.face(self, f)
            elif f.change is Change.IDENTITY:
                out += checks.identity(self, f)
            else:
                out += checks.conflict(self, f)
        return out

    def _green_button(self, t: float) -> list[Alert]:
        """The shuffler's green button starts a hand (rules.md §2, TDA 2024 23 [002 #19])."""
        if self.run is not None:
            alert = make(self, "GREEN_BUTTON_DURING_HAND", t,
                                message=f"Green button pressed during hand {self.last_number}",
                                remedy=f"Ignored: hand {self.last_number} goes on")
            self.book.open(alert)
            return [alert]
        self.book.close_hand()
        try:
            hand = self.table.start_hand()
        except EngineError as exc:
            raise MonitorError(f"green button: the table cannot start a hand: {exc}") from None
        self.run = HandRun.start(hand)
        self.last_number = hand.number
        return checks.deck_check(self, t)

    def _sensor_status(self, obs: SensorStatus) -> list[Alert]:
        if self._online[obs.source] == obs.online:
            return []
        self._online[obs.source] = obs.online
        out = self._apply(self.fusion.set_online(obs.source, obs.online, obs.t))
        name = "RFID reader" if obs.source is Source.RFID else "camera"
        detail = f": {obs.detail}" if obs.detail else ""
        if obs.online:
            return [*out, make(self, "SENSOR_RECOVERED", obs.t,
                                      message=f"The {name} answers again{detail}")]
        return [*out, make(
            self, "SENSOR_OFFLINE", obs.t, message=f"The {name} stopped answering{detail}",
            remedy=f"Check the {name}; the controller keeps the hand state")]

    def commit_street(self, *, strict: bool = True) -> bool:
        """Hand the street on the board to the engine once its betting may start (a complete
        street, the betting before it complete). Returns whether it was handed over. An engine
        refusal is a :class:`MonitorError` when ``strict``; otherwise the street waits."""
        run = self.run
        if run is None or run.halted is not None:
            return False
        b = run.board
        if not b.full or not run.hand.betting_complete:
            return False
        cards = [self.fusion.picture.get(pid) for pid in b.street]
        known = [tc.card for tc in cards if tc is not None and tc.card is not None]
        if len(known) != len(b.street):
            return False  # identities not known yet: the engine cannot take the street
        try:
            run.hand.deal_board(known)
        except EngineError as exc:
            if not strict:
                return False
            raise MonitorError(f"the {b.name} {' '.join(map(str, known))}: {exc}") from None
        run.committed.update(b.street)
        b.commit()
        return True

    def _after_action(self, t: float) -> list[Alert]:
        run = self.run
        if run is not None and run.hand.street is Street.COMPLETE:
            return self._finish(t)
        return []

    def _finish(self, t: float) -> list[Alert]:
        """A hand played out (all folded but one, or showdown): the engine commits stacks and
        moves the button (rules.md §2)."""
        run = self._live("finish")
        self.table.finish_hand(run.hand)
        self._record_end(run, voided=False, cause=None, t=t)
        return []

    def void(self, cause: str, t: float) -> list[Alert]:
        """Misdeal or fouled deck: every chip returned, the button stays (rules.md §5)."""
        run = self._live("void")
        try:
            run.hand.void(cause)
        except EngineError as exc:
            raise MonitorError(f"void: {exc}") from None
        self.table.finish_hand(run.hand)
        self._record_end(run, voided=True, cause=cause, t=t)
        return []

    def _record_end(self, run: HandRun, *, voided: bool, cause: str | None, t: float) -> None:
        self.events.append(HandEnd(number=run.hand.number, voided=voided, cause=cause,
                                   stacks=dict(self.table.stacks), t=t,
                                   result=run.hand.result))
        self.book.close_hand()
        self.run = None
