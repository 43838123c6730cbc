"""``table-controller sim``: exit statuses, --json lines, --check, and every scenario file
(the project's own copies always; the shared set when ../shared/scenarios exists)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / "../shared/scenarios"
PROJECT = ROOT / "table_controller/data/scenarios"
OWN = Path(__file__).resolve().parent / "scenarios"


def controller_ready() -> bool:
    try:
        return hasattr(importlib.import_module("table_controller.monitor"), "DealingMonitor")
    except ImportError:
        return False


needs_controller = pytest.mark.skipif(not controller_ready(),
                                      reason="the dealing monitor has not landed yet")


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


def scenario_files() -> list[Any]:
    files: list[Any] = sorted(PROJECT.glob("*.toml")) + sorted(OWN.glob("*.toml"))
    if SHARED.is_dir():
        files += sorted(SHARED.glob("*.toml"))
    else:
        files.append(pytest.param(SHARED, marks=pytest.mark.skip(
            reason="../shared/scenarios is not there (a user's clone)"), id="shared"))
    return files


@needs_controller
@pytest.mark.parametrize("path", scenario_files(),
                         ids=lambda p: f"{p.parent.name}/{p.name}" if isinstance(p, Path) else "")
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
        assert obj["type"] in ("alert", "hand_end")
        if obj["type"] == "alert":
            assert set(obj) == {"type", "code", "severity", "hand", "seat", "cards", "rule",
                                "message", "remedy", "time"}


@needs_controller
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


@needs_controller
def test_built_in_scenario_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "07-heads-up-order", "--check"]) == 0
    assert "check passed" in capsys.readouterr().err


@needs_controller
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
