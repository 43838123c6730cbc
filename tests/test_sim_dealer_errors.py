"""The dealer errors of continuous play (hw_sim.harness.dealer_errors, error_injection): every
code of the alert catalogue is either a dealer error kind or named as no dealer's error, and each
kind, made by the simulated dealer through the real controller, raises its alert and nothing else
in a sensor mode that can see it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.bench_soak import table
from hw_sim.harness.autoplay import ERRORS, AutoTable
from hw_sim.harness.dealer_errors import (
    BY_NAME,
    KINDS,
    MODES,
    MOMENTS,
    NOT_DEALER_ERRORS,
    kinds_seen,
    mode_of,
)
from table_controller.vocabulary.alerts import CATALOGUE

ROOT = Path(__file__).resolve().parent.parent
SENSORS = {"rfid": ("rfid",), "camera": ("camera",), "both": ("rfid", "camera")}
FACES = [k.name for k in KINDS if not k.seen_in("rfid")]
# Each kind is played once, in the faster of the single-sensor modes that sees it (the soak
# plays every kind in every mode that sees it: ``python -m benchmarks soak``).
ON_CAMERA = [*FACES, "missing_burn_flop", "duplicate_board", "extra_board_card", "joker",
             "short_deal"]
PLAYED = {"camera": ON_CAMERA,
          "rfid": [k for k in kinds_seen(("rfid",)) if k not in ON_CAMERA]}


def test_every_catalogue_code_is_a_kind_or_named_as_no_dealer_error() -> None:
    raised = {c for k in KINDS for c in k.codes}
    assert raised | set(NOT_DEALER_ERRORS) == set(CATALOGUE)
    assert not raised & set(NOT_DEALER_ERRORS)
    assert len(BY_NAME) == len(KINDS) and {k.name: k.code for k in KINDS} == ERRORS
    for kind in KINDS:
        assert kind.moment in MOMENTS, kind.name
        assert set(kind.unseen) <= set(MODES) and len(kind.unseen) < len(MODES), kind.name
        assert all(reason for reason in kind.unseen.values()), kind.name


def test_modes_and_what_they_see() -> None:
    assert [mode_of(SENSORS[m]) for m in MODES] == list(MODES)
    with pytest.raises(ValueError, match="not a sensor mode"):
        mode_of(("sonar",))
    assert "exposed_card" not in kinds_seen(("rfid",))
    assert "card_off_table" not in kinds_seen(("camera",))
    assert set(kinds_seen(("rfid", "camera"))) == set(BY_NAME)
    for mode, names in PLAYED.items():
        assert set(names) <= set(kinds_seen(SENSORS[mode])), mode
    assert sorted(PLAYED["rfid"] + PLAYED["camera"]) == sorted(BY_NAME)


@pytest.mark.parametrize("mode", sorted(PLAYED))
def test_each_kind_is_made_detected_and_raises_nothing_else(mode: str) -> None:
    """Each kind gets up to three hands to come up (a premature flop needs the betting still
    open); once made it must raise its code and no other game alert; chips are kept."""
    auto = AutoTable(seats=4, seed=7, error_rate=1.0, sensors=SENSORS[mode], table_seats=5)
    try:
        for name in PLAYED[mode]:
            auto.error_kinds = [name]
            for _ in range(3):
                report = auto.play_hand()
                assert report.problem == "", (name, report.problem)
                assert report.false_alerts == [], (name, [a.describe()
                                                          for a in report.false_alerts])
                if report.injected:
                    break
            assert report.injected, f"{name} was never made in {mode}"
            assert report.detected, (name, [a.describe() for a in report.alerts])
        assert sum(auto.stacks().values()) == 4 * 200
    finally:
        auto.close()


def test_the_soak_table_has_a_row_per_kind_and_says_what_a_mode_cannot_see() -> None:
    def phase(mode: str) -> dict[str, object]:
        rows: dict[str, object] = {}
        for kind in KINDS:
            rows[kind.name] = ({"code": kind.code, "unseen": kind.unseen[mode]}
                               if not kind.seen_in(mode) else
                               {"code": kind.code, "injected": 2, "detected": 2,
                                "false_alerts": 0})
        rows["(no error)"] = {"code": "-", "injected": 5, "detected": 0, "false_alerts": 0}
        return {"mode": mode, "hands": 9, "by_kind": rows, "errors_injected": 4,
                "errors_detected": 4, "false_alerts": 0}

    text = table([phase("rfid"), phase("camera")]).splitlines()
    assert text[0].startswith("| kind | code | rfid (9 hands)")
    exposed = next(line for line in text if line.startswith("| exposed_card |"))
    assert exposed.endswith("| cannot see | 2 / 2 / 0 |")
    assert len(text) == 2 + len(KINDS) + 2


def test_a_table_plays_the_same_hands_again_four_card_flops_included() -> None:
    """The simulated table picks a four-card flop's burn card from a generator seeded by the
    deck's seed (a table's daemon picks with ``secrets``): two tables of one seed name the same
    burn cards and play the same hands, so any hand of a soak can be replayed alone."""

    def play() -> list[tuple[object, ...]]:
        auto = AutoTable(seats=4, seed=11, error_rate=1.0, sensors=("rfid",), table_seats=5,
                         rfid_link="in_process")
        auto.error_kinds = ["four_card_flop"]
        try:
            out: list[tuple[object, ...]] = []
            for _ in range(6):
                report = auto.play_hand()
                burns = tuple(str(a.alert.extra.get("burn")) for a in report.alerts
                              if a.alert.code == "FOUR_CARD_FLOP")
                out.append((report.injected, burns, auto.steps, tuple(auto.stacks().items())))
            return out
        finally:
            auto.close()

    first = play()
    assert sum(bool(burns) for _, burns, _, _ in first) >= 4
    assert play() == first


def test_the_soak_hunts_chosen_kinds_and_names_a_kind_it_cannot_make(tmp_path: Path) -> None:
    """``bench_soak --kinds`` plays only those dealer errors, one in every hand unless told
    otherwise, over the tables asked for; a kind unknown, or one the mode cannot see, is
    refused by name before any hand is played."""
    out = tmp_path / "hunt.json"
    command = [sys.executable, "-m", "benchmarks.bench_soak", "--mode", "rfid", "--link",
               "in_process", "--hands", "4", "--kinds", "four_card_flop,joker", "--tables",
               "2", "--seed", "5", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())
    assert figures["hands"] == 4 and len(figures["tables"]) == 2
    planned = {k: v["planned"] for k, v in figures["by_kind"].items() if v.get("planned")}
    assert set(planned) == {"four_card_flop", "joker"} and sum(planned.values()) == 4
    assert figures["errors_detected"] == figures["errors_injected"] >= 3
    for kinds, said in (("bogus", "unknown error kind 'bogus'"),
                        ("card_off_table", "cannot see 'card_off_table'")):
        refused = subprocess.run([sys.executable, "-m", "benchmarks.bench_soak", "--mode",
                                  "camera", "--kinds", kinds], capture_output=True, text=True,
                                 timeout=60, cwd=ROOT)
        assert refused.returncode == 2 and said in refused.stderr
