"""A real ``table-controller run --sim --manual`` killed with SIGKILL mid-hand and started
again on the same journal: the live hand is rebuilt from the journal and goes on where it
was (preflop after the hole cards, in the middle of the flop's deal, in the middle of the
turn's betting), and ends once; a card moved while the controller was down is reported; a
hand the journal cannot rebuild is voided with an alert and a record; ``run --sim`` playing
alone picks the killed hand up and plays it on."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hw_sim.devices.sim_table import sensor_lag
from hw_sim.harness.console_dealer import ConsoleDealer
from hw_sim.harness.run_sim import sim_devices
from table_controller.cli import main
from table_controller.config import TableConfig, load_config
from table_controller.daemon.build import Devices, build_controller
from table_controller.daemon.journal import Journal
from table_controller.daemon.resume import NOT_RESUMED
from table_controller.monitor import DealingMonitor
from tests.station_daemon import Daemon, config_text, start_daemon
from tests.test_daemon_run import start, stop
from tests.test_run_sim_alone import sim_config


def count(folder: Path, sql: str, *args: Any) -> int:
    db = sqlite3.connect(f"file:{folder / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        return int(db.execute(sql, args).fetchone()[0])
    finally:
        db.close()


def wait_until(what: str, check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def cards_seen(folder: Path, hand: int, zone_like: str) -> int:
    """Card placements the monitor took in hand ``hand`` in zones like ``zone_like``."""
    return count(folder, "SELECT COUNT(*) FROM observations WHERE hand = ? AND kind = 'card' "
                 "AND event = 'placed' AND accepted = 1 AND zone LIKE ?", hand, zone_like)


def kill(d: Daemon) -> None:
    d.proc.send_signal(signal.SIGKILL)
    d.proc.communicate(timeout=30)
    assert d.proc.returncode == -signal.SIGKILL


def act(d: Daemon, kind: str, amount: int | None = None) -> dict[str, Any]:
    """The seat to act does ``kind``; on a street dealt but not yet handed to the engine (its
    first action hands it over), the first seat in the deal order still in the hand."""
    snap = d.ask({"cmd": "snapshot"})["snapshot"]
    seat = snap["to_act"]
    if seat is None:
        seat = next(s for s in snap["deal_order"] if s not in snap["folded"])
    request: dict[str, Any] = {"cmd": "action", "seat": seat, "kind": kind}
    if amount is not None:
        request["amount"] = amount
    return d.ask(request)


def deal(d: Daemon, folder: Path, street: str, hand: int = 1) -> None:
    zone = {"hole": "seat%", "flop": "board", "turn": "board", "river": "board"}[street]
    before = cards_seen(folder, hand, zone)
    d.ask({"cmd": "sim_deal", "street": street})
    d.idle()
    want = {"hole": 6, "flop": 3, "turn": 1, "river": 1}[street]
    wait_until(f"the {street} seen", lambda: cards_seen(folder, hand, zone) >= before + want)


def start_hand(d: Daemon, folder: Path) -> None:
    d.ask({"cmd": "sim_press"})
    d.until("hand 1", lambda s: s["hand"] == 1)
    deal(d, folder, "hole")


def until_street_done(d: Daemon) -> None:
    """Call or check until the street's betting is over."""
    for _ in range(10):
        snap = d.ask({"cmd": "snapshot"})["snapshot"]
        legal = snap.get("legal") or {}
        act(d, "call" if legal.get("call") else "check")
        status = d.ask({"cmd": "status"})
        if status["to_act"] is None or status["hand"] is None:
            return
    raise AssertionError("the betting never ended")


def show_down(d: Daemon, folder: Path) -> None:
    """The river, its betting, the hands shown and the pots awarded."""
    deal(d, folder, "river")
    until_street_done(d)
    d.ask({"cmd": "sim_show", "seats": [1, 2, 3]})
    d.idle()
    d.ask({"cmd": "showdown"})
    assert d.ask({"cmd": "status"})["hand"] is None


def hands_json(folder: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    capsys.readouterr()
    assert main(["journal", str(folder / "journal.sqlite"), "hands", "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def alert_codes(folder: Path) -> list[str]:
    db = sqlite3.connect(f"file:{folder / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        return [r[0] for r in db.execute("SELECT code FROM alerts ORDER BY id")]
    finally:
        db.close()


def check_one_end(folder: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    hands = hands_json(folder, capsys)
    assert [(h["run"], h["hand"]) for h in hands] == [(1, 1)], hands  # one record, one end
    hand = hands[0]
    assert hand["ended"] and not hand["voided"], hand
    assert sum(hand["end_stacks"].values()) == sum(hand["start_stacks"].values())
    assert hand["end_stacks"] != hand["start_stacks"]  # the blinds went to someone
    return hand


def test_killed_preflop_after_the_hole_cards(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    d = start_daemon(tmp_path)
    try:
        start_hand(d, tmp_path)
        first = d.ask({"cmd": "status"})["to_act"]
        act(d, "call")
        to_act = d.ask({"cmd": "status"})["to_act"]
        assert to_act != first
    finally:
        kill(d)
    d = start_daemon(tmp_path)
    try:
        status = d.ask({"cmd": "status"})
        assert status["hand"] == 1 and status["to_act"] == to_act  # where it was
        while d.ask({"cmd": "status"})["hand"] is not None:
            act(d, "fold")
        assert d.ask({"cmd": "status"})["last_hand"] == 1
    finally:
        code, err = d.stop()
    assert code == 0, err
    hand = check_one_end(tmp_path, capsys)
    assert hand["end_stacks"][str(first)] == 200 + 2 + 1  # he called, the others folded
    assert "CARDS_MOVED_WHILE_DOWN" not in alert_codes(tmp_path)
    assert "HAND_NOT_RESUMED" not in alert_codes(tmp_path)


def test_killed_in_the_middle_of_the_flop(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    d = start_daemon(tmp_path, config_text(tmp_path, move_interval=0.4))
    try:
        start_hand(d, tmp_path)
        until_street_done(d)
        d.ask({"cmd": "sim_deal", "street": "flop"})
        wait_until("the first flop card", lambda: cards_seen(tmp_path, 1, "board") >= 1)
    finally:
        kill(d)
    on_board = cards_seen(tmp_path, 1, "board")
    assert on_board < 3
    d = start_daemon(tmp_path)
    try:
        snap = d.ask({"cmd": "snapshot"})["snapshot"]
        assert snap["hand"] == 1
        for _ in range(3 - on_board):  # the dealer finishes the flop
            d.ask({"cmd": "sim_put", "zone": "board", "face": "up"})
            d.idle()
        wait_until("the flop seen", lambda: cards_seen(tmp_path, 1, "board") >= 3)
        until_street_done(d)
        assert len(d.ask({"cmd": "snapshot"})["snapshot"]["board"]) == 3
        deal(d, tmp_path, "turn")
        until_street_done(d)
        show_down(d, tmp_path)
    finally:
        code, err = d.stop()
    assert code == 0, err
    check_one_end(tmp_path, capsys)
    assert not {"HAND_NOT_RESUMED", "CARDS_MOVED_WHILE_DOWN"} & set(alert_codes(tmp_path))


def test_killed_in_the_middle_of_the_turns_betting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = start_daemon(tmp_path)
    try:
        start_hand(d, tmp_path)
        until_street_done(d)
        deal(d, tmp_path, "flop")
        until_street_done(d)
        deal(d, tmp_path, "turn")
        act(d, "bet", 2)
        alerts_before = alert_codes(tmp_path)
    finally:
        kill(d)
    d = start_daemon(tmp_path)
    try:
        status = d.ask({"cmd": "status"})
        assert status["hand"] == 1 and status["to_act"] is not None
        snap = d.ask({"cmd": "snapshot"})["snapshot"]
        assert len(snap["board"]) == 4
        until_street_done(d)  # the others call the bet
        show_down(d, tmp_path)
    finally:
        code, err = d.stop()
    assert code == 0, err
    check_one_end(tmp_path, capsys)
    assert alert_codes(tmp_path) == alerts_before  # none raised again, none new
    j = Journal.open(tmp_path / "journal.sqlite", readonly=True)
    try:
        record = j.hand(1, run=1)
        assert record is not None and record.phh is not None  # played out: its history
        runs = j.runs()
    finally:
        j.close()
    assert json.loads(runs[1]["config"])["resumed"] == {"hand": 1, "run": 1}


def _moving_devices(move: Callable[[ConsoleDealer], None]) -> Any:
    def devices(config: TableConfig, monitor: DealingMonitor,
                closers: list[Callable[[], None]]) -> Devices:
        opened = sim_devices(config, monitor, closers)
        lay_out = opened.resume
        dealer = opened.sensors[0]
        assert isinstance(dealer, ConsoleDealer) and lay_out is not None

        def resume(m: DealingMonitor) -> None:
            lay_out(m)
            move(dealer)  # while the controller was down
        opened.resume = resume
        return opened
    return devices


def test_a_card_moved_while_down_is_reported(tmp_path: Path) -> None:
    d = start_daemon(tmp_path)
    try:
        start_hand(d, tmp_path)
    finally:
        kill(d)
    j = Journal.open(tmp_path / "journal.sqlite", readonly=True)
    try:
        seat1 = [o.fields for o in j.observations(hand=1) if o.fields.get("zone") == "seat1"]
    finally:
        j.close()
    card = seat1[0]["card"]

    def move(dealer: ConsoleDealer) -> None:
        model = dealer.table.model
        pc = next(c for c in model.in_zone("seat1") if str(c.card) == card)
        model.move(pc, "muck")
        model.discard(model.in_zone("seat2")[0])

    config = load_config(tmp_path / "table.toml", sim=True)
    controller = build_controller(
        config, devices=_moving_devices(move),
        monitor_config=replace(config.table.monitor, stub_visible=False,
                               sensor_lag=sensor_lag(config.table.monitor.sensors)))
    try:
        deadline = time.monotonic() + 20
        while controller.reconcile is not None or controller.monitor.hand is None:
            assert time.monotonic() < deadline, "the sensors' picture never came"
            controller.step(wait=0.02)
        for _ in range(80):  # the removal settles
            controller.step(wait=0.02)
        assert controller.monitor.hand is not None and controller.monitor.hand.number == 1
        zones = {str(tc.card): tc.zone for tc in controller.monitor.fusion.picture}
        assert zones[card] == "muck"
    finally:
        controller.close()
    j = Journal.open(tmp_path / "journal.sqlite", readonly=True)
    try:
        moved = [a for a in j.alerts(run=2) if a["code"] == "CARDS_MOVED_WHILE_DOWN"]
    finally:
        j.close()
    assert len(moved) == 1
    assert f"{card} moved from seat1 to muck" in moved[0]["message"]
    assert "vanished from seat2" in moved[0]["message"]
    assert moved[0]["hand"] == 1


def test_a_hand_the_journal_cannot_rebuild_is_voided_with_an_alert(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = start_daemon(tmp_path)
    try:
        start_hand(d, tmp_path)
        act(d, "call")
    finally:
        kill(d)
    db = sqlite3.connect(tmp_path / "journal.sqlite")
    db.execute("UPDATE console SET request = ? WHERE request LIKE ?",  # the engine refuses it
               ('{"cmd": "action", "kind": "raise", "seat": 5, "amount": 7}', '%"action"%'))
    db.commit()
    db.close()
    d = start_daemon(tmp_path)
    try:
        status = d.ask({"cmd": "status"})
        assert status["hand"] is None and status["last_hand"] == 1
        d.ask({"cmd": "sim_collect"})
        d.idle()
        d.ask({"cmd": "sim_press"})
        d.until("hand 2", lambda s: s["hand"] == 2)
    finally:
        code, err = d.stop()
    assert code == 0, err
    hands = hands_json(tmp_path, capsys)
    first = hands[0]
    assert (first["run"], first["hand"]) == (1, 1)
    assert first["voided"] and first["end_stacks"] == first["start_stacks"]
    assert (hands[1]["run"], hands[1]["hand"]) == (2, 2)
    j = Journal.open(tmp_path / "journal.sqlite", readonly=True)
    try:
        record = j.hand(1, run=1)
        assert record is not None and record.cause is not None
        assert record.cause.startswith(NOT_RESUMED)
        alerts = [a for a in j.alerts(run=2) if a["code"] == "HAND_NOT_RESUMED"]
    finally:
        j.close()
    assert len(alerts) == 1 and alerts[0]["hand"] == 1
    assert "the monitor refuses the journal's console request" in alerts[0]["message"]


def test_run_sim_alone_resumes_the_killed_hand(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(sim_config(tmp_path))
    journal_path = tmp_path / "journal.sqlite"
    proc, _ = start(["run", "--sim", "--config", str(cfg), "--error-rate", "0"], tmp_path)
    try:
        wait_until("hand 2 under way", lambda: journal_path.exists() and count(
            tmp_path, "SELECT COUNT(*) FROM console WHERE hand = 2 AND request LIKE "
            "'%\"action\"%'") >= 1, timeout=120)
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert count(tmp_path, "SELECT COUNT(*) FROM hand_ends WHERE number = 2") == 0
    proc, _ = start(["run", "--sim", "--config", str(cfg), "--error-rate", "0"], tmp_path)
    try:
        wait_until("hand 3 started", lambda: count(
            tmp_path, "SELECT COUNT(*) FROM hand_starts WHERE number = 3") == 1, timeout=90)
    finally:
        code, _out, err = stop(proc, signal.SIGTERM)
    assert code == 0, err
    hands = hands_json(tmp_path, capsys)
    keys = [(h["run"], h["hand"]) for h in hands]
    assert keys[:3] == [(1, 1), (1, 2), (2, 3)]  # numbers go on; hand 2 kept its record
    second = hands[1]
    assert second["ended"] and not second["voided"]  # played on by the simulated table
    assert hands[2]["start_stacks"] == second["end_stacks"]  # the chips carried over
    assert count(tmp_path, "SELECT COUNT(*) FROM console WHERE run = 2 AND hand = 2") >= 1


def test_an_open_alert_stays_open_under_its_id(tmp_path: Path) -> None:
    d = start_daemon(tmp_path)
    try:
        start_hand(d, tmp_path)
        d.ask({"cmd": "sim_put", "zone": "board", "face": "up"})  # before any betting
        d.idle()
        d.until("the premature card", lambda s: "PREMATURE_BOARD_CARD" in s["open_alerts"])
        before = d.ask({"cmd": "snapshot"})["snapshot"]["open_alerts"]
    finally:
        kill(d)
    (raised,) = [a for a in before if a["code"] == "PREMATURE_BOARD_CARD"]
    d = start_daemon(tmp_path)
    try:
        status = d.ask({"cmd": "status"})
        assert "PREMATURE_BOARD_CARD" in status["open_alerts"]
        assert raised["id"] in status["unacknowledged"]
        after = d.ask({"cmd": "snapshot"})["snapshot"]["open_alerts"]
        assert [a["id"] for a in after if a["code"] == "PREMATURE_BOARD_CARD"] == [raised["id"]]
        d.ask({"cmd": "sim_remedy", "code": "PREMATURE_BOARD_CARD"})
        d.idle()

        def resolved() -> bool:  # verified once the card's removal has settled
            d.ask({"cmd": "resolve", "code": "PREMATURE_BOARD_CARD"})
            return "PREMATURE_BOARD_CARD" not in d.ask({"cmd": "status"})["open_alerts"]
        wait_until("the remedy verified", resolved)
    finally:
        code, err = d.stop()
    assert code == 0, err
    j = Journal.open(tmp_path / "journal.sqlite", readonly=True)
    try:
        rows = [(run, a) for run, a in j.all_alerts() if a.get("id") == raised["id"]]
    finally:
        j.close()
    firsts = [run for run, a in rows if a["type"] == "alert" and not a.get("update")]
    assert firsts == [1]  # published once, by the killed run
    assert (rows[-1][0], rows[-1][1]["type"]) == (2, "alert_resolved")  # its end, under its id
    assert alert_codes(tmp_path).count("PREMATURE_BOARD_CARD") == 1  # not raised again


def test_the_stations_requests_are_replayed_too(tmp_path: Path) -> None:
    """An undo and a called clock (the dealer station's commands, docs/station.md) in the
    killed hand are carried out again by the replay."""
    d = start_daemon(tmp_path)
    try:
        start_hand(d, tmp_path)
        act(d, "raise", 6)
        d.ask({"cmd": "undo"})
        act(d, "call")
        to_act = d.ask({"cmd": "status"})["to_act"]
        d.ask({"cmd": "call_clock", "seat": to_act})
    finally:
        kill(d)
    d = start_daemon(tmp_path)
    try:
        status = d.ask({"cmd": "status"})
        assert status["hand"] == 1 and status["to_act"] == to_act
        snap = d.ask({"cmd": "snapshot"})["snapshot"]
        assert max(snap["bets"].values()) == 2  # the raise was undone
        refused = d.ask({"cmd": "call_clock", "seat": to_act}, ok=False)
        assert "already runs" in refused["error"]  # the clock called before the kill runs on
    finally:
        code, err = d.stop()
    assert code == 0, err
    assert "HAND_NOT_RESUMED" not in alert_codes(tmp_path)
