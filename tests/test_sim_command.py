"""``table-controller sim``: exit statuses, --json lines, --check, --journal, and every scenario
file: the built-in ones (table_controller/data/scenarios, the shared set's copies) and the
project's own (tests/scenarios/*.toml)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.cli import main

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "table_controller/data/scenarios"
OWN = Path(__file__).resolve().parent / "scenarios"


def test_invalid_scenario_exits_2_naming_file_and_step(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text((PROJECT / "03-misdeal-wrong-first-seat.toml").read_text()
                   .replace('to = "seat3"', 'to = "seat9"'))
    assert main(["sim", str(bad), "--check"]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "step 2" in err and "seat9" in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", str(tmp_path / "none.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err


def scenario_files() -> list[Path]:
    return sorted(PROJECT.glob("*.toml")) + sorted(OWN.glob("*.toml"))


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_scenario_passes_check(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["sim", str(path), "--json", "--check"])
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and lines[-1]["type"] == "summary"
    assert rc == 0, err
    assert lines[-1]["passed"] is True
    ends = [obj for obj in lines if obj["type"] == "hand_end"]
    assert len(ends) == lines[-1]["hands"]
    assert [e["hand"] for e in ends] == list(range(1, len(ends) + 1))
    for obj in lines[:-1]:
        assert obj["type"] in ("alert", "alert_resolved", "hand_end")
        if obj["type"] == "alert":  # alerts.md: the object, with its id ("Lifecycle")
            assert set(obj) - {"update"} == {"type", "id", "code", "severity", "hand", "seat",
                                             "cards", "rule", "message", "remedy", "time"}
        if obj["type"] == "alert_resolved":
            assert set(obj) == {"type", "id", "code", "hand", "by", "time"}


def test_check_names_a_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "wrong.toml"
    wrong.write_text((PROJECT / "07-heads-up-order.toml").read_text()
                     .replace("stacks = {3 = 49, 6 = 51}", "stacks = {3 = 50, 6 = 50}"))
    assert main(["sim", str(wrong), "--check"]) == 1
    assert "seat 3: expected stack 50, got 49" in capsys.readouterr().err


def test_list_and_run_a_built_in_scenario_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "02-four-card-flop-tda: four-card flop under TDA rules" in listed
    assert main(["sim"]) == 2
    assert "give a scenario file" in capsys.readouterr().err


def test_built_in_scenario_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "07-heads-up-order", "--check"]) == 0
    assert "check passed" in capsys.readouterr().err


def test_a_seating_step_the_table_refuses_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A player cannot leave during a hand he is in (rules.md §3 [000]: no chips taken off
    the table during a hand): the step is named, the run exits 1."""
    bad = tmp_path / "leave.toml"
    bad.write_text((OWN / "antes-big-blind.toml").read_text().replace(
        '[[step]]\ndeal = "hole"', '[[step]]\nleave = 4\n[[step]]\ndeal = "hole"', 1))
    assert main(["sim", str(bad), "--check"]) == 1
    err = capsys.readouterr().err
    assert "step 2" in err and "seat 4 is in hand 1" in err


def test_sim_journal_is_a_table_journal(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``sim --journal`` goes through the daemon's controller: the journal command reads the
    scenario's hands, alerts, console requests and hand history as it reads a table's."""
    journal = tmp_path / "sim.sqlite"
    scenario = PROJECT / "03-misdeal-wrong-first-seat.toml"
    assert main(["sim", str(scenario), "--check", "--journal", str(journal)]) == 0
    capsys.readouterr()
    assert main(["journal", str(journal), "runs"]) == 0
    assert "table first card to the wrong seat" in capsys.readouterr().out
    assert main(["journal", str(journal), "hands"]) == 0
    hands = capsys.readouterr().out.splitlines()
    assert len(hands) == 2
    assert hands[0].startswith("hand    1") and "void (MISDEAL_WRONG_FIRST_SEAT)" in hands[0]
    assert hands[1].startswith("hand    2") and "played" in hands[1]
    assert "stacks 1:100 2:99 3:101 4:100" in hands[1]
    assert main(["journal", str(journal), "alerts", "--hand", "1"]) == 0
    alerts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(a["type"], a["code"], a.get("seat")) for a in alerts] == [
        ("alert", "MISDEAL_WRONG_FIRST_SEAT", 3),
        ("alert_resolved", "MISDEAL_WRONG_FIRST_SEAT", None)]  # alerts.md "Lifecycle"
    assert alerts[0]["id"] == alerts[1]["id"] and alerts[1]["by"] == "floor"
    assert main(["journal", str(journal), "show", "2"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [json.loads(c["request"]) for c in shown["console"]] == [
        {"cmd": "action", "seat": 4, "kind": "fold"},
        {"cmd": "action", "seat": 1, "kind": "fold"},
        {"cmd": "action", "seat": 2, "kind": "fold"}]
    assert main(["journal", str(journal), "export-phh", "2"]) == 0
    phh = capsys.readouterr().out  # seats in PHH order: the small blind first
    assert "seats = [2, 3, 4, 1]" in phh and "finishing_stacks = [99, 101, 100, 100]" in phh
    assert main(["journal", str(journal), "observations", "--hand", "2"]) == 0
    seen = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sum(o["kind"] == "button" for o in seen) == 1
    assert [o["zone"] for o in seen if o["kind"] == "card" and o["event"] == "placed"
            and o["source"] == "rfid"][:8] == ["seat2", "seat3", "seat4", "seat1"] * 2


def test_sim_journal_that_cannot_be_opened_exits_2(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "07-heads-up-order", "--journal", str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err


def test_json_prints_one_alert_with_its_updates_and_its_end(
        capsys: pytest.CaptureFixture[str]) -> None:
    """scenario.md: one error is one alert id; --json shows its updates and alert_resolved."""
    path = Path("tests/scenarios/monitor/premature-flop-camera.toml")
    assert main(["sim", str(path), "--json", "--check"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    life = [o for o in lines if o.get("code") == "PREMATURE_BOARD_CARD"]
    assert [(o["type"], o.get("update", False), len(o.get("cards", ()))) for o in life] == [
        ("alert", False, 1), ("alert", True, 2), ("alert", True, 3),
        ("alert_resolved", False, 0)]
    assert len({o["id"] for o in life}) == 1 and life[-1]["by"] == "verified"
    assert lines[-1]["alerts"] == 1  # the summary counts errors, not publications
