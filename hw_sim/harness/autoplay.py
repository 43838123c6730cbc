"""Continuous play on the simulated table: hands one after another, a dealer who sometimes errs.

Used by ``table-controller demo`` and the soak benchmark. Each hand is made of the same steps a
scenario file holds (green button, deal, card, actions, resolve, showdown, fault), generated as
the hand goes and performed by the same :class:`~hw_sim.harness.runner.ScenarioRunner`, so the
daemon's controller sees exactly what it would see from a scenario (and journals it, given a
journal).

Players follow the seeded policy of :mod:`hw_sim.harness.policy` (the same one ``run --sim``
plays by). With probability ``error_rate`` a hand gets one dealer error, chosen among the kinds
of :mod:`hw_sim.harness.dealer_errors` the table's sensors can see, and made by
:mod:`hw_sim.harness.error_injection`. When the controller raises an alert, the dealer carries
out its remedy and the floor acknowledges it, as a ``resolve`` step does.

Players and the dealer also do what they do at every real table (:mod:`hw_sim.harness.
behaviours`: peeks, squared cards, chips and protectors on them, cards slid under the dealer's
hand, his hand over the board, folds pushed into the muck), as behaviour steps at seeded rates;
each hand's report lists them, so an alert can be traced to the behaviour that caused it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from hw_sim.harness import behaviours as behave
from hw_sim.harness import error_injection as inject
from hw_sim.harness.behaviours import OFF, Behaviours, chance
from hw_sim.harness.dealer_errors import BY_NAME, KINDS, ErrorKind, kinds_seen
from hw_sim.harness.expectations import RaisedAlert
from hw_sim.harness.policy import choose_action, plan_error

__all__ = ["ERRORS", "AutoPlayError", "AutoTable", "HandReport", "demo_scenario"]
from hw_sim.harness.runner import Listeners, ScenarioRunner, build_runner
from hw_sim.harness.scenario import (
    Actions,
    Behaviour,
    Deal,
    Fault,
    PlaceCard,
    PressGreenButton,
    Resolve,
    Scenario,
    ScenarioAction,
    Showdown,
    Step,
    TableSpec,
)
from table_controller.daemon.controller import Controller
from table_controller.daemon.journal import Journal
from table_controller.monitor import DealingMonitor
from table_controller.vocabulary.alerts import Severity
from table_controller.vocabulary.zones import seat_zone

LINK_FAULTS = ("serial_garbage", "tag_dropout", "serial_unplug")
IN_PROCESS_FAULTS = ("tag_dropout", "serial_unplug")
"""The RFID link played in-process carries no bytes, so no garbage on the line."""
CAMERA_FAULTS = ("camera_freeze",)
GAME_SEVERITIES = (Severity.STOP, Severity.FIX, Severity.WARN)
ERRORS: dict[str, str] = {k.name: k.code for k in KINDS}
"""Every dealer error kind continuous play can make -> the alert code it must raise."""


@dataclass(slots=True)
class HandReport:
    """One hand of continuous play: the error injected (if any), and what the controller said."""

    number: int
    error: str | None = None  # planned for this hand
    injected: bool = False  # the hand got as far as the error and the dealer made it
    expected: str | None = None
    allowed: frozenset[str] = frozenset()  # every code the error may raise (the expected one too)
    alerts: list[RaisedAlert] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    voided: bool = False
    problem: str = ""
    behaviours: list[tuple[int, str, str]] = field(default_factory=list)
    """(step, behaviour, zone) of every behaviour step of the hand, in order."""

    @property
    def detected(self) -> bool:
        return self.injected and any(r.alert.code == self.expected for r in self.alerts)

    @property
    def false_alerts(self) -> list[RaisedAlert]:
        """Game alerts (stop, fix, warn) other than those the injected error raises."""
        allowed = self.allowed if self.injected else frozenset()
        return [r for r in self.alerts if r.alert.severity in GAME_SEVERITIES
                and r.alert.code not in allowed]

    def cause(self, raised: RaisedAlert) -> str:
        """The behaviour an alert is traced to: the one of the step it was raised in, else
        the last one before it on the alert's seat; ``"none"`` when no behaviour explains it
        (the dealing itself, a fault)."""
        for step, kind, _zone in self.behaviours:
            if step == raised.step:
                return kind
        seat = raised.alert.seat
        if seat is not None:
            for step, kind, zone in reversed(self.behaviours):
                if step < raised.step and zone == seat_zone(seat):
                    return kind
        return "none"


def demo_scenario(*, seats: int, stack: int, blinds: tuple[int, int], seed: int,
                  sensors: tuple[str, ...] = ("rfid", "camera"),
                  table_seats: int | None = None, felt: str = "green",
                  light: str = "neutral") -> Scenario:
    """A table of ``table_seats`` seats (default ``seats``) with seats 1 to ``seats`` taken, for
    continuous play (steps come from :class:`AutoTable`), under the camera's ``felt`` and
    ``light``."""
    table = TableSpec(seats=table_seats or seats, game="nlhe", small_blind=blinds[0],
                      big_blind=blinds[1], ante=0, button=1, rules="tda", sensors=sensors)
    return Scenario(path="<demo>", name="demo", table=table,
                    players={s: stack for s in range(1, seats + 1)}, deck_seed=seed,
                    deck_order=(), steps=(PressGreenButton(1),), felt=felt, light=light)


class AutoTable:
    """Plays hands on a simulated table through the real controller."""

    def __init__(self, *, seats: int = 6, stack: int = 200, blinds: tuple[int, int] = (1, 2),
                 seed: int = 1, error_rate: float = 0.1, fault_rate: float = 0.0,
                 sensors: tuple[str, ...] = ("rfid", "camera"),
                 on_alert: Callable[[RaisedAlert], None] = lambda _a: None,
                 on_hand_end: Callable[[dict[str, Any]], None] = lambda _h: None,
                 journal: Journal | None = None,
                 on_update: Callable[[RaisedAlert], None] = lambda _a: None,
                 on_resolved: Callable[[dict[str, Any]], None] = lambda _r: None,
                 table_seats: int | None = None,
                 behaviours: Behaviours = OFF,
                 rfid_link: Literal["pty", "in_process"] = "pty") -> None:
        if not 0.0 <= error_rate <= 1.0 or not 0.0 <= fault_rate <= 1.0:
            raise ValueError("error_rate and fault_rate are fractions between 0 and 1")
        if table_seats is not None and not seats <= table_seats <= 10:
            raise ValueError("table_seats is at least seats and at most 10")
        self.scenario = demo_scenario(seats=seats, stack=stack, blinds=blinds, seed=seed,
                                      sensors=sensors, table_seats=table_seats,
                                      felt=behaviours.felt, light=behaviours.light)
        self.rng = random.Random(f"autoplay:{seed}")
        # the behaviours draw from their own generator: the cards, the players' choices and
        # the dealer's errors stay those of the same seed without behaviours
        self.behaviours = behaviours
        self.behave_rng = random.Random(f"behaviours:{seed}")
        self.error_rate = error_rate
        # names of dealer_errors.KINDS; the in-process link has no antenna under the tray
        self.error_kinds = kinds_seen(sensors, tray=rfid_link == "pty")
        link = LINK_FAULTS if rfid_link == "pty" else IN_PROCESS_FAULTS
        self.fault_kinds = ((link if "rfid" in sensors else ())
                            + (CAMERA_FAULTS if "camera" in sensors else ()))
        self.fault_rate = fault_rate
        self._report: HandReport | None = None
        self._peeked: set[int] = set()
        self._on_alert = on_alert
        self._on_hand_end = on_hand_end
        self.runner: ScenarioRunner = build_runner(
            self.scenario, listeners=Listeners(on_alert=self._alert, on_hand_end=self._end,
                                               on_update=on_update, on_resolved=on_resolved),
            journal=journal, rfid_link=rfid_link)
        self.controller: Controller = self.runner.controller
        self.steps = 0
        self.reports: list[HandReport] = []
        if not self.runner.start():
            self.runner.close()
            raise AutoPlayError(f"the simulated table did not start: "
                                f"{self.runner.record.errors[-1]}")

    # --- listeners ----------------------------------------------------------------------

    def _alert(self, raised: RaisedAlert) -> None:
        if self._report is not None:
            self._report.alerts.append(raised)
        self._on_alert(raised)

    def _end(self, record: dict[str, Any]) -> None:
        if self._report is not None:
            self._report.voided = bool(record.get("voided"))
        self._on_hand_end(record)

    # --- state --------------------------------------------------------------------------

    @property
    def monitor(self) -> DealingMonitor:
        return self.controller.monitor

    def stacks(self) -> dict[int, int]:
        return dict(self.controller.table.stacks)

    def close(self) -> None:
        self.runner.close()

    def do(self, make: Callable[[int], Step], *, answer: bool = True) -> None:
        """Perform the step ``make(number)``; then (``answer``) answer the alerts it raised."""
        self.steps += 1
        if not self.runner.do(make(self.steps)):
            raise _HandAborted(self.runner.record.errors[-1])
        if answer:
            self.answer_alerts()

    _do = do

    def _hand_over(self, hands_before: int) -> bool:
        return self.runner.record.hands > hands_before or self.monitor.hand is None

    def answer_alerts(self) -> None:
        """The dealer carries out every open remedy and the floor acknowledges it."""
        for _ in range(5):
            open_codes = [a.code for a in self.runner.open_alerts
                          if a.severity in GAME_SEVERITIES]
            if not open_codes:
                return
            self.steps += 1
            self.runner.do(Resolve(self.steps, open_codes[-1]))

    # --- one hand -----------------------------------------------------------------------

    def play_hand(self) -> HandReport:
        """Play one hand from the green button to its end; returns what happened."""
        hands_before = self.runner.record.hands
        report = HandReport(number=hands_before + 1)
        self._report = report
        self.reports.append(report)
        report.error = plan_error(self.rng, self.error_rate, self.error_kinds)
        if report.error is not None:
            kind = BY_NAME[report.error]
            report.expected, report.allowed = kind.code, kind.codes
        try:
            self._play(report, hands_before)
        except _HandAborted as exc:
            report.problem = str(exc)
        if not self._hand_over(hands_before):
            # the hand could not finish as played: void it so the table can go on
            report.problem = report.problem or "the hand did not end"
            self.runner.table.dealer.collect()
            self.runner.console({"cmd": "void", "cause": "simulation: hand abandoned"})
            self.runner.settle()
        self._report = None
        return report

    def _error(self, report: HandReport, moment: str) -> ErrorKind | None:
        """The hand's error, if it is due at ``moment`` and not made yet."""
        if report.error is None or report.injected:
            return None
        kind = BY_NAME[report.error]
        return kind if kind.moment == moment else None

    def _play(self, report: HandReport, hands_before: int) -> None:
        if (kind := self._error(report, "before_hand")) is not None:
            report.injected = inject.before_hand(kind, self)
        self.do(lambda n: PressGreenButton(n))
        if self.monitor.hand is None:
            raise _HandAborted("the green button started no hand")
        self._maybe_fault(report)
        self._deal_hole(report)
        if (kind := self._error(report, "after_deal")) is not None \
                and not self._hand_over(hands_before):
            report.injected = inject.after_deal(kind, self)
        self._after_deal(report, hands_before)
        for street in ("preflop", "flop", "turn", "river"):
            if self._hand_over(hands_before):
                return
            if street != "preflop":
                self._deal_street(street, report)
                if self._hand_over(hands_before):
                    return
                if chance(self.behave_rng, self.behaviours.reach):
                    seconds = behave.reach_seconds(self.behave_rng)
                    self._behave(report, "reach", "board", by="hand", seconds=seconds)
            self._bet(street, report, hands_before)
            self._maybe_fault(report)
        if not self._hand_over(hands_before):
            self.do(lambda n: Showdown(n))

    def _place(self, zone: str, face: str, *, answer: bool = True,
               under_hand: bool = False) -> None:
        self.do(lambda n: PlaceCard(n, None, False, zone, face, under_hand=under_hand),
                 answer=answer)

    # --- behaviours ---------------------------------------------------------------------

    def _behave(self, report: HandReport, kind: str, zone: str, *, by: str | None = None,
                seconds: float = 0.0) -> None:
        report.behaviours.append((self.steps + 1, kind, zone))
        self.do(lambda n: Behaviour(n, kind, zone, by=by, seconds=seconds))

    def _after_deal(self, report: HandReport, hands_before: int) -> None:
        """Players square their cards and lay a chip or a protector on them."""
        rates, rng = self.behaviours, self.behave_rng
        if not (rates.square or rates.protect):
            return
        for seat in self.monitor.deal_order():
            if self._hand_over(hands_before) or self.monitor.hand is None:
                return
            zone = seat_zone(seat)
            if len(self.runner.table.model.in_zone(zone)) != 2:
                continue
            if chance(rng, rates.square):
                self._behave(report, "square", zone)
            if chance(rng, rates.protect):
                by = behave.protector(rng)
                self._behave(report, "cover", zone, by=by)

    def _before_action(self, report: HandReport, seat: int, peeked: set[int]) -> None:
        """Before his first action of the hand a player may look at his cards."""
        if seat in peeked:
            return
        peeked.add(seat)
        zone = seat_zone(seat)
        if self.runner.table.model.in_zone(zone) and chance(self.behave_rng,
                                                            self.behaviours.peek):
            seconds = behave.peek_seconds(self.behave_rng)
            self._behave(report, "peek", zone, seconds=seconds)

    def _after_action(self, report: HandReport, action: ScenarioAction,
                      hands_before: int) -> None:
        """A folded hand is pushed into the muck."""
        zone = seat_zone(action.seat)
        if (action.kind == "fold" and not self._hand_over(hands_before)
                and self.runner.table.model.in_zone(zone)
                and chance(self.behave_rng, self.behaviours.muck)):
            self._behave(report, "muck", zone)

    def _act(self, action: ScenarioAction) -> None:
        self.do(lambda n: Actions(n, (action,)))

    def _maybe_fault(self, report: HandReport) -> None:
        if self.fault_rate and self.rng.random() < self.fault_rate:
            kind = self.rng.choice(self.fault_kinds)
            report.faults.append(kind)
            self.do(lambda n: Fault(n, kind))

    def _deal_hole(self, report: HandReport) -> None:
        if (kind := self._error(report, "deal")) is not None:
            report.injected = inject.deal(kind, self)
            if report.injected:
                return
        if self.behaviours.slide:
            # card by card, so the dealer can slide one in under his hand
            for seat in list(self.monitor.deal_order()) * 2:
                self._place(seat_zone(seat), "down", answer=False,
                            under_hand=chance(self.behave_rng, self.behaviours.slide))
            self.answer_alerts()
            return
        self.do(lambda n: Deal(n, "hole"))

    def _deal_street(self, street: str, report: HandReport) -> None:
        moment = {"flop": "flop", "turn": "turn"}.get(street)
        if moment is not None and (kind := self._error(report, moment)) is not None:
            report.injected = inject.flop(kind, self) if street == "flop" \
                else inject.turn(kind, self)
            if report.injected:
                return
        self.do(lambda n: Deal(n, street))

    def _bet(self, street: str, report: HandReport, hands_before: int) -> None:
        moment = {"preflop": "preflop", "flop": "flop_betting"}.get(street)
        actions = 0
        peeked = self._peeked if street != "preflop" else set()
        self._peeked = peeked
        for _ in range(200):
            # the street on the board goes to the engine once its betting may start (the
            # dealer console's first action would do the same)
            self.monitor.commit_street(strict=False)
            hand = self.monitor.hand
            if hand is None or self._hand_over(hands_before) or hand.to_act is None:
                return
            if moment is not None and (kind := self._error(report, moment)) is not None \
                    and inject.before_action(kind, self, hand, street, actions):
                report.injected = True
                continue
            action = self._choose(hand)
            self._before_action(report, action.seat, peeked)
            if self._hand_over(hands_before) or self.monitor.hand is None:
                return
            self._act(action)
            actions += 1
            self._after_action(report, action, hands_before)

    def _choose(self, hand: Any) -> ScenarioAction:
        legal = hand.legal_actions()
        kind, amount = choose_action(legal, self.rng)
        return ScenarioAction(legal.seat, kind, amount)


class AutoPlayError(RuntimeError):
    """The simulated table cannot play (its first look at the table failed); the text says
    why."""


class _HandAborted(Exception):
    """A step of the generated hand could not be carried out."""
