"""Replaying PHH files through our engine: the shipped examples, the command, bad files."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from table_controller import cli
from table_controller.phh import PhhError, load, loads
from table_controller.phh.replay import replay, replay_file
from tests.phh_pokerkit import pokerkit_finishing_stacks

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "table_controller" / "data" / "examples"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.phh"))

GOOD = """\
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AsKs", "d dh p2 QdQc", "d dh p3 7h6h", "p3 f", "p1 cbr 6", "p2 cc",
           "d db Jc3d5c", "p1 cbr 10", "p2 f"]
"""


def test_examples_are_varied() -> None:
    variants = {load(p).variant for p in EXAMPLE_FILES}
    assert variants == {"NT", "PT", "FT"}
    histories = [load(p) for p in EXAMPLE_FILES]
    assert any(h.player_count == 2 for h in histories)
    assert any(any(h.antes) for h in histories)
    assert any(len(h.blinds_or_straddles) > 2 and h.blinds_or_straddles[2] for h in histories)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_examples_replay_to_the_same_stacks_as_pokerkit(path: Path) -> None:
    history = load(path)
    ours = list(replay(history).finishing_stacks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pokerkit_finishing_stacks(path.read_text())
    assert ours == theirs
    assert history.finishing_stacks is not None
    assert ours == list(history.finishing_stacks)
    assert sum(ours) == sum(history.starting_stacks)


def test_replay_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["phh", "replay", str(EXAMPLES), "--json", "--check"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0
    assert [Path(d["file"]).name for d in lines] == [p.name for p in EXAMPLE_FILES]
    for entry in lines:
        assert entry["finishing_stacks"] == list(load(entry["file"]).finishing_stacks or ())


def test_replay_command_readable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "hand.phh"
    path.write_text(GOOD + 'players = ["Ann", "Bo", "Cy"]\n')
    assert cli.main(["phh", "replay", str(path)]) == 0
    assert capsys.readouterr().out.strip() == f"{path}: NT 3 players: Ann 106, Bo 94, Cy 100"


BAD_FILES = {
    "a-good.phh": (GOOD, None),
    "bad-toml.phh": ('variant = "NT\n', "not valid TOML"),
    "missing-field.phh": (GOOD.replace("min_bet = 2\n", ""), "field 'min_bet': missing"),
    "omaha.phh": (GOOD.replace('"NT"', '"PO"'), "field 'variant': unsupported variant 'PO'"),
    "illegal-raise.phh": (GOOD.replace("p1 cbr 6", "p1 cbr 3"), "action 5 'p1 cbr 3'"),
    "out-of-turn.phh": (GOOD.replace('"p3 f", "p1 cbr 6"', '"p1 cbr 6", "p3 f"'),
                        "action 4 'p1 cbr 6': not p1's turn: p3 is to act"),
    "bad-card.phh": (GOOD.replace("Jc3d5c", "Jc3d5x"), "action 7 'd db Jc3d5x': not a card: '5x'"),
    "twice.phh": (GOOD.replace("Jc3d5c", "Jc3dAs"), "card As is dealt twice"),
    "short.phh": (GOOD.replace(', "p2 f"', ""), "the actions end before the hand is over"),
}


def _write_bad_folder(folder: Path) -> None:
    (folder / "sub").mkdir()
    for name, (text, _) in BAD_FILES.items():
        target = folder / ("sub" if name.startswith("t") else ".") / name
        target.write_text(text)


def test_replay_command_reports_each_bad_file_and_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _write_bad_folder(tmp_path)
    status = cli.main(["phh", "replay", str(tmp_path), "--json"])
    assert status == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_name = {Path(d["file"]).name: d for d in lines}
    assert set(by_name) == set(BAD_FILES)
    assert by_name["a-good.phh"] == {"file": str(tmp_path / "a-good.phh"),
                                     "finishing_stacks": [106, 94, 100]}
    for name, (_, expected) in BAD_FILES.items():
        if expected is None:
            continue
        error = by_name[name]["error"]
        assert name in error, error
        assert expected in error, error


def test_replay_command_readable_errors_go_to_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _write_bad_folder(tmp_path)
    assert cli.main(["phh", "replay", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 1
    errors = captured.err.splitlines()
    assert len(errors) == len(BAD_FILES)  # one line per failed file and the count
    assert errors[-1] == f"{len(BAD_FILES) - 1} of {len(BAD_FILES)} file(s) failed"


def test_replay_command_check_catches_wrong_finishing_stacks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "claims.phh"
    path.write_text(GOOD + "finishing_stacks = [100, 100, 100]\n")
    assert cli.main(["phh", "replay", str(path), "--json"]) == 0
    capsys.readouterr()
    assert cli.main(["phh", "replay", str(path), "--json", "--check"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert "field 'finishing_stacks'" in error and "[106, 94, 100]" in error


def test_replay_command_missing_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli.main(["phh", "replay", str(tmp_path / "nope.phh"), "--json"]) == 1
    assert "cannot read" in json.loads(capsys.readouterr().out)["error"]
    assert cli.main(["phh", "replay", str(tmp_path)]) == 1  # empty folder
    assert "no .phh files" in capsys.readouterr().err


def test_console_entry_point(tmp_path: Path) -> None:
    path = tmp_path / "hand.phh"
    path.write_text(GOOD)
    run = subprocess.run(
        [sys.executable, "-m", "table_controller.cli", "phh", "replay", str(path), "--json"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"file": str(path), "finishing_stacks": [106, 94, 100]}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("antes = [0, 0, 0]", "antes = [5, 0, 0]", r"field 'antes': \[5, 0, 0\]: .*big blind"),
        ("antes = [0, 0, 0]", "antes = [0, 3, 5]", r"field 'antes': .*TDA 2024 RP-11"),
        ("min_bet = 2", "min_bet = 4", "field 'min_bet': 4 differs from the big blind 2"),
        ("[1, 2, 0]", "[1, 2, 8]", "field 'blinds_or_straddles': straddle of 8"),
        ("actions = [", "seats = [5, 2, 7]\nactions = [", "field 'seats'"),
        ("actions = [", "_odd_chip = \"coin flip\"\nactions = [", "field '_odd_chip'"),
        ("actions = [", "_tournament = true\n_rake_percent = 5\nactions = [",
         r"game configuration: .*\[002 #56\].*buy-ins"),
        ('"d dh p2 QdQc"', '"d dh p2 QdQcQh"', "2 hole cards"),
        ('"d dh p2 QdQc"', '"d dh p2 ??????"', "2 hole cards"),
        ('"d dh p3 7h6h"', '"d dh p3 7h6h", "d dh p3 2c2d"', "action 4 .*p3 already has hole"),
        ('"d dh p3 7h6h"', '"d dh p3 7h6h", "d dh p3 ????"', "action 4 .*p3 already has hole"),
        ('"d dh p3 7h6h"', '"d dh p3 QdKs"', "action 3 .*card Qd is dealt twice .*p2 and p3"),
        ('"d dh p3 7h6h"', '"d dh p3 7h7h"', "card 7h is dealt twice .*the same action"),
        ('"p2 f"', '"p2 f", "p1 sm KsAs", "p2 cc"', "no betting action is due"),
    ],
)
def test_replay_refuses_what_the_engine_cannot_play(old: str, new: str, expected: str) -> None:
    assert old in GOOD
    with pytest.raises(PhhError, match=expected):
        replay(loads(GOOD.replace(old, new)))


def test_replay_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "x.phh"
    path.write_text(GOOD.replace("p1 cbr 6", "p1 cbr 3"))
    with pytest.raises(PhhError, match=r"x\.phh: action 5 'p1 cbr 3': .*TDA"):
        replay_file(path)


def test_showdown_uses_shown_cards_when_holes_were_unknown() -> None:
    text = GOOD.replace('"d dh p2 QdQc"', '"d dh p2 ????"').replace(
        '"p1 cbr 10", "p2 f"',
        '"p1 cc", "p2 cc", "d db 2h", "p1 cc", "p2 cc", "d db 9s", "p1 cc", "p2 cc",'
        ' "p1 sm AsKs", "p2 sm QdQc"',
    )
    assert list(replay(loads(text)).finishing_stacks) == [94, 106, 100]
    mucked = text.replace('"p1 sm AsKs", "p2 sm QdQc"', '"p1 sm AsKs", "p2 sm"')
    assert list(replay(loads(mucked)).finishing_stacks) == [106, 94, 100]
    unknown = text.replace('"p1 sm AsKs", "p2 sm QdQc"', '"p1 sm AsKs"')
    with pytest.raises(PhhError, match="showdown"):
        replay(loads(unknown))


def test_hands_of_one_set_up_are_copies() -> None:
    """Hands of the same set-up start from one hand set up once: each replay gets its own
    copy, with its own number, and plays to the same result."""
    first = replay(loads(GOOD + "hand = 7\n"))
    second = replay(loads(GOOD + "hand = 8\n"))
    assert first.hand is not second.hand and first.hand.players is not second.hand.players
    assert (first.hand.number, second.hand.number) == (7, 8)
    assert first.finishing_stacks == second.finishing_stacks == (106, 94, 100)
    assert first.hand.log == second.hand.log
    other = replay(loads(GOOD.replace("[100, 100, 100]", "[100, 90, 100]")))
    assert other.finishing_stacks == (106, 84, 100)
