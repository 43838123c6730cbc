"""Alert ids and the lifecycle on the wire (alerts.md "Lifecycle"): the controller publishes one
id per error, its updates under the same id with ``"update": true``, and ``alert_resolved``; the
journal keeps all of it, and ids keep increasing over a restart on the same journal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_controller.daemon.controller import Controller
from table_controller.daemon.journal import Journal
from table_controller.monitor import ConsoleAction, MonitorOutput
from table_controller.vocabulary.observations import Observation
from table_controller.vocabulary.zones import BOARD, BURN
from tests.monitor_kit import Felt, monitor


class ThroughController:
    """Stands in for the monitor under a test felt: every input goes through the controller
    (its console requests, its loop's tick), so what the felt does is journaled."""

    def __init__(self, felt: Felt, journal: Journal) -> None:
        self.mon = felt.mon
        self.outs: list[MonitorOutput] = []
        self.controller = Controller(monitor=felt.mon, sensors=[], journal=journal,
                                     clock=lambda: felt.t, on_output=self.outs.append)
        self.felt = felt

    def _last(self, before: int) -> MonitorOutput:
        total = MonitorOutput()
        for out in self.outs[before:]:
            total += out
        return total

    def observe(self, obs: Observation) -> MonitorOutput:
        before = len(self.outs)
        self.controller.observe(obs)
        return self._last(before)

    def tick(self, _now: float) -> MonitorOutput:
        before = len(self.outs)
        self.controller.step()
        return self._last(before)

    def console(self, action: ConsoleAction) -> MonitorOutput:
        before = len(self.outs)
        request: dict[str, Any] = {"cmd": "action", "seat": action.seat, "kind": action.kind}
        if action.amount is not None:
            request["amount"] = action.amount
        assert self.controller.handle(request)["ok"]
        return self._last(before)

    def resolve(self, code: str, _t: float) -> MonitorOutput:
        before = len(self.outs)
        assert self.controller.handle({"cmd": "resolve", "code": code})["ok"]
        return self._last(before)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.mon, name)


def premature_flop_hand(journal: Journal, seed: int) -> None:
    felt = monitor({1: 100, 2: 100, 3: 100}, seats=3, seed=seed)
    felt.mon = ThroughController(felt, journal)  # type: ignore[assignment]
    felt.button()
    felt.deal_hole()
    felt.act("1 call")
    felt.place(BURN)
    cards = [felt.place(BOARD) for _ in range(3)]
    for card in cards[-1][0].cards:
        felt.take_back(str(card))
    felt.resolve("PREMATURE_BOARD_CARD")
    felt.act("2 call", "3 check")


def test_one_id_per_error_updates_and_resolution_across_restarts(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    ids: list[int] = []
    for run, seed in enumerate((31, 32)):
        journal = Journal.open(path)
        journal.start_run(t=0.0, wall="2026-01-01T00:00:00+00:00", table_name="t",
                          config="{}")
        premature_flop_hand(journal, seed)
        journal.flush(force=True)
        life = [a for a in journal.alerts() if a["code"] == "PREMATURE_BOARD_CARD"]
        kinds = [(a["type"], a.get("update", False)) for a in life]
        assert kinds == [("alert", False), ("alert", True), ("alert", True),
                         ("alert_resolved", False)], run
        assert len({a["id"] for a in life}) == 1
        assert [len(a["cards"]) for a in life[:3]] == [1, 2, 3]
        assert "Remedy not carried out" not in life[2]["message"]
        assert life[-1]["by"] == "verified" and life[-1]["hand"] == 1
        ids += [a["id"] for a in journal.alerts() if a["type"] == "alert"
                and not a.get("update")]
        journal.close()
    assert ids == sorted(ids) and len(set(ids)) == len(ids)  # increasing over the restart
