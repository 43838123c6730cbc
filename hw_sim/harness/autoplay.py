"""Continuous play on the simulated table: hands one after another, a dealer who sometimes errs.

Used by ``table-controller demo`` and the soak benchmark. Each hand is made of the same steps a
scenario file holds (green button, deal, card, actions, resolve, showdown, fault), generated as
the hand goes and performed by the same :class:`~hw_sim.harness.runner.ScenarioRunner`, so the
daemon's controller sees exactly what it would see from a scenario (and journals it, given a
journal).

Players and the dealer's errors follow the seeded policy of :mod:`hw_sim.harness.policy` (the
same one ``run --sim`` plays by). When the controller raises an alert, the dealer carries out
its remedy and the floor acknowledges it, as a ``resolve`` step does.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hw_sim.harness.expectations import RaisedAlert
from hw_sim.harness.policy import ERRORS, choose_action, error_kinds, plan_error

__all__ = ["ERRORS", "AutoPlayError", "AutoTable", "HandReport", "demo_scenario"]
from hw_sim.harness.runner import Listeners, ScenarioRunner, build_runner
from hw_sim.harness.scenario import (
    Actions,
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
CAMERA_FAULTS = ("camera_freeze",)
GAME_SEVERITIES = (Severity.STOP, Severity.FIX, Severity.WARN)


@dataclass(slots=True)
class HandReport:
    """One hand of continuous play: the error injected (if any), and what the controller said."""

    number: int
    error: str | None = None  # planned for this hand
    injected: bool = False  # the hand got as far as the error and the dealer made it
    expected: str | None = None
    alerts: list[RaisedAlert] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    voided: bool = False
    problem: str = ""

    @property
    def detected(self) -> bool:
        return self.injected and any(r.alert.code == self.expected for r in self.alerts)

    @property
    def false_alerts(self) -> list[RaisedAlert]:
        """Game alerts (stop, fix, warn) other than the one the injected error must raise."""
        expected = self.expected if self.injected else None
        return [r for r in self.alerts if r.alert.severity in GAME_SEVERITIES
                and r.alert.code != expected]


def demo_scenario(*, seats: int, stack: int, blinds: tuple[int, int], seed: int,
                  sensors: tuple[str, ...] = ("rfid", "camera")) -> Scenario:
    """A table with every seat taken, for continuous play (steps come from :class:`AutoTable`)."""
    table = TableSpec(seats=seats, game="nlhe", small_blind=blinds[0], big_blind=blinds[1],
                      ante=0, button=1, rules="tda", sensors=sensors)
    return Scenario(path="<demo>", name="demo", table=table,
                    players={s: stack for s in range(1, seats + 1)}, deck_seed=seed,
                    deck_order=(), steps=(PressGreenButton(1),))


class AutoTable:
    """Plays hands on a simulated table through the real controller."""

    def __init__(self, *, seats: int = 6, stack: int = 200, blinds: tuple[int, int] = (1, 2),
                 seed: int = 1, error_rate: float = 0.1, fault_rate: float = 0.0,
                 sensors: tuple[str, ...] = ("rfid", "camera"),
                 on_alert: Callable[[RaisedAlert], None] = lambda _a: None,
                 on_hand_end: Callable[[dict[str, Any]], None] = lambda _h: None,
                 journal: Journal | None = None,
                 on_update: Callable[[RaisedAlert], None] = lambda _a: None,
                 on_resolved: Callable[[dict[str, Any]], None] = lambda _r: None) -> None:
        if not 0.0 <= error_rate <= 1.0 or not 0.0 <= fault_rate <= 1.0:
            raise ValueError("error_rate and fault_rate are fractions between 0 and 1")
        self.scenario = demo_scenario(seats=seats, stack=stack, blinds=blinds, seed=seed,
                                      sensors=sensors)
        self.rng = random.Random(f"autoplay:{seed}")
        self.error_rate = error_rate
        self.error_kinds = error_kinds(sensors)
        self.fault_kinds = ((LINK_FAULTS if "rfid" in sensors else ())
                            + (CAMERA_FAULTS if "camera" in sensors else ()))
        self.fault_rate = fault_rate
        self._report: HandReport | None = None
        self._on_alert = on_alert
        self._on_hand_end = on_hand_end
        self.runner: ScenarioRunner = build_runner(
            self.scenario, listeners=Listeners(on_alert=self._alert, on_hand_end=self._end,
                                               on_update=on_update, on_resolved=on_resolved),
            journal=journal)
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

    def _do(self, make: Callable[[int], Step], *, answer: bool = True) -> None:
        self.steps += 1
        if not self.runner.do(make(self.steps)):
            raise _HandAborted(self.runner.record.errors[-1])
        if answer:
            self._answer_alerts()

    def _hand_over(self, hands_before: int) -> bool:
        return self.runner.record.hands > hands_before or self.monitor.hand is None

    def _answer_alerts(self) -> None:
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
            report.expected = ERRORS[report.error]
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

    def _play(self, report: HandReport, hands_before: int) -> None:
        self._do(lambda n: PressGreenButton(n))
        if self.monitor.hand is None:
            raise _HandAborted("the green button started no hand")
        self._maybe_fault(report)
        self._deal_hole(report)
        for street in ("preflop", "flop", "turn", "river"):
            if self._hand_over(hands_before):
                return
            if street != "preflop":
                self._deal_street(street, report)
                if self._hand_over(hands_before):
                    return
            self._bet(street, report, hands_before)
            self._maybe_fault(report)
        if not self._hand_over(hands_before):
            self._do(lambda n: Showdown(n))

    def _place(self, zone: str, face: str, *, answer: bool = True) -> None:
        self._do(lambda n: PlaceCard(n, None, False, zone, face), answer=answer)

    def _act(self, action: ScenarioAction) -> None:
        self._do(lambda n: Actions(n, (action,)))

    def _maybe_fault(self, report: HandReport) -> None:
        if self.fault_rate and self.rng.random() < self.fault_rate:
            kind = self.rng.choice(self.fault_kinds)
            report.faults.append(kind)
            self._do(lambda n: Fault(n, kind))

    def _deal_hole(self, report: HandReport) -> None:
        order = list(self.monitor.deal_order())
        if report.error == "wrong_first_seat" and len(order) > 1:
            report.injected = True
            self._do(lambda n: PlaceCard(n, None, False, seat_zone(order[1]), "down"))
            return
        if report.error == "exposed_card" and len(order) >= 2:
            report.injected = True
            # [000] [003]: the dealer finishes the deal before the remedy is carried out
            for i, seat in enumerate(order * 2):
                face = "up" if i == 2 else "down"
                self._place(seat_zone(seat), face, answer=False)
            self._answer_alerts()
            return
        self._do(lambda n: Deal(n, "hole"))

    def _deal_street(self, street: str, report: HandReport) -> None:
        if report.error == "missing_burn" and street == "turn":
            report.injected = True
            self._do(lambda n: PlaceCard(n, None, False, "board", "up"))
            return
        if report.error == "duplicate" and street == "flop":
            hole = self.runner.table.model.in_zone(seat_zone(self.monitor.deal_order()[0]))
            card = hole[0].card if hole else None
            if card is not None:
                report.injected = True
                self._do(lambda n: PlaceCard(n, None, False, "burn", "down"))
                self._do(lambda n: PlaceCard(n, card, False, "board", "up", copy=True))
                return
        self._do(lambda n: Deal(n, street))
        if report.error == "four_card_flop" and street == "flop":
            report.injected = True
            self._do(lambda n: PlaceCard(n, None, False, "board", "up"))

    def _bet(self, street: str, report: HandReport, hands_before: int) -> None:
        premature_due = report.error == "premature_flop" and street == "preflop"
        for _ in range(200):
            # the street on the board goes to the engine once its betting may start (the
            # dealer console's first action would do the same)
            self.monitor.commit_street(strict=False)
            hand = self.monitor.hand
            if hand is None or self._hand_over(hands_before) or hand.to_act is None:
                return
            if premature_due and self._big_blind_option(hand):
                premature_due = False
                report.injected = True
                self._do(lambda n: Deal(n, "flop"))
                continue
            self._act(self._choose(hand))

    @staticmethod
    def _big_blind_option(hand: Any) -> bool:
        """Preflop, the player to act may check: the big blind's option is pending, so a
        flop dealt now is premature ([003], TDA RP-5)."""
        return bool(hand.legal_actions().can_check) and hand.street.value == "preflop"

    def _choose(self, hand: Any) -> ScenarioAction:
        legal = hand.legal_actions()
        kind, amount = choose_action(legal, self.rng)
        return ScenarioAction(legal.seat, kind, amount)


class AutoPlayError(RuntimeError):
    """The simulated table cannot play (its first look at the table failed); the text says
    why."""


class _HandAborted(Exception):
    """A step of the generated hand could not be carried out."""
