"""``--check``: compare what happened in a run with the scenario's ``[[expect]]`` and ``[result]``.

Meaning (scenario.md "Expectations"):

- one alert is one error: its updates (same id) are neither a second match nor unexpected, so
  the record holds only the first publication of each alert;
- ``alert = CODE`` must be raised at least once, in the given hand, about the given seat and
  while the given step was performed (after step N and before step N+1);
- ``no_alert = CODE`` must never be raised;
- ``strict`` (default true): every alert raised must match some ``alert`` expectation, except
  alerts of severity ``fault`` and ``info`` whose code no expectation names;
- ``hands``: the number of ``hand_end`` records; ``stacks``: the stacks after the last hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hw_sim.harness.scenario import Expectation, Scenario
from table_controller.vocabulary.alerts import Alert, Severity


@dataclass(frozen=True, slots=True)
class RaisedAlert:
    """An alert and the scenario step during which it was raised (0: before step 1). ``id``:
    the id the controller published it under; ``update``: a restatement of an alert raised
    before (same id), which ``--check`` does not count (scenario.md, "Expectations")."""

    alert: Alert
    step: int
    id: int | None = None
    update: bool = False

    def describe(self) -> str:
        a = self.alert
        seat = "" if a.seat is None else f", seat {a.seat}"
        return f"{a.code} (hand {a.hand}{seat}, step {self.step})"


@dataclass(slots=True)
class RunRecord:
    """What a run produced, as far as ``--check`` cares."""

    alerts: list[RaisedAlert] = field(default_factory=list)
    hands: int = 0
    stacks: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # steps the run could not carry out


def matches(expect: Expectation, raised: RaisedAlert) -> bool:
    a = raised.alert
    return (a.code == expect.code
            and (expect.hand is None or a.hand == expect.hand)
            and (expect.seat is None or a.seat == expect.seat)
            and (expect.step is None or raised.step == expect.step))


def differences(scenario: Scenario, record: RunRecord) -> list[str]:
    """Every way the run differs from the scenario's expectations; empty when it passes."""
    out = list(record.errors)
    wanted = [e for e in scenario.expectations if e.expected]
    for e in scenario.expectations:
        hits = [r for r in record.alerts if matches(e, r)]
        if e.expected and not hits:
            near = [r.describe() for r in record.alerts if r.alert.code == e.code]
            seen = f"; raised instead: {', '.join(near)}" if near else "; it was never raised"
            out.append(f"expected {e.describe()}{seen}")
        if not e.expected and hits:
            out.append(f"expected no {e.code}, but it was raised: "
                       f"{', '.join(r.describe() for r in hits)}")
    if scenario.result.strict:
        named = {e.code for e in scenario.expectations}
        for r in record.alerts:
            exempt = r.alert.severity in (Severity.FAULT, Severity.INFO)
            if exempt and r.alert.code not in named:
                continue
            if not any(matches(e, r) for e in wanted):
                out.append(f"unexpected alert {r.describe()}")
    result = scenario.result
    if result.hands is not None and record.hands != result.hands:
        out.append(f"expected {result.hands} hand(s), {record.hands} ended")
    if result.stacks is not None:
        for seat, stack in sorted(result.stacks.items()):
            got = record.stacks.get(seat)
            if got != stack:
                out.append(f"seat {seat}: expected stack {stack}, got "
                           f"{'no stack' if got is None else got}")
    return out
