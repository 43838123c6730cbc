"""Real hand histories (tests/data/phh-real, from phh-dataset): big-blind antes at the WSOP,
Pluribus hands whose finishing stacks hold half chips, a no-op check pokerkit writes."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pokerkit as pk
import pytest

from table_controller import cli
from table_controller.engine import AnteFormat, AnteOrder, Posted, PostKind
from table_controller.phh import load, loads
from table_controller.phh.replay import game_config, replay, replay_file
from tests.phh_pokerkit import AUTOMATIONS, pokerkit_finishing_stacks

REAL = Path(__file__).resolve().parent / "data" / "phh-real"
WSOP = sorted((REAL / "wsop").glob("*.phh"))
WSOP_NT = [p for p in WSOP if load(p).variant == "NT"]
HALF_CHIPS = sorted((REAL / "pluribus").glob("*.phh"))


def test_the_data_is_what_the_readme_says() -> None:
    assert len(WSOP) == 18 and len(WSOP_NT) == 11 and len(HALF_CHIPS) == 8
    for path in WSOP_NT:
        history = load(path)
        assert history.antes.count(0) == 4 and history.antes[1] > 0  # the big blind's ante


@pytest.mark.parametrize("path", WSOP_NT, ids=lambda p: p.name)
def test_wsop_big_blind_ante_hands_replay_to_their_finishing_stacks(path: Path) -> None:
    history = load(path)
    config = game_config(history)
    assert config.ante_format is AnteFormat.BIG_BLIND
    assert config.ante == history.antes[1]
    # the file does not say which comes first: pokerkit's order (the ante), rules.md §2
    assert config.ante_order is AnteOrder.ANTE_FIRST
    replayed = replay(history)
    assert list(replayed.finishing_stacks) == list(history.finishing_stacks or ())
    hand = replayed.hand
    antes = [(r.seat, r.amount) for r in hand.log
             if isinstance(r, Posted) and r.kind is PostKind.ANTE]
    assert antes == [(hand.big_blind_seat, config.ante)]  # one ante for the table, dead
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert pokerkit_finishing_stacks(path.read_text()) == list(replayed.finishing_stacks)


def test_every_wsop_hand_passes_the_command_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["phh", "replay", str(REAL / "wsop"), "--check", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 18 and all("finishing_stacks" in line for line in lines)


@pytest.mark.parametrize("path", HALF_CHIPS, ids=lambda p: p.name)
def test_half_chips_in_finishing_stacks_do_not_stop_the_replay(path: Path) -> None:
    """The file's figure is kept as written; the replay gives the odd chip to one winner
    (TDA 2024 rule 20, [002 #16]) and pokerkit agrees chip for chip."""
    history = load(path)
    assert history.finishing_stacks is None
    figure = history.unread["finishing_stacks"]
    assert any(value != int(value) for value in figure)
    stacks = list(replay_file(path).finishing_stacks)
    assert sum(stacks) == sum(history.starting_stacks)
    halves = [i for i, v in enumerate(figure) if v != int(v)]
    assert len(halves) == 2 and sorted(stacks[i] - figure[i] for i in halves) == [-0.5, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert pokerkit_finishing_stacks(path.read_text()) == stacks


def test_half_chip_files_replay_and_check_says_the_figure_differs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = str(REAL / "pluribus")
    assert cli.main(["phh", "replay", folder]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 8 and all(": NT 6 players: " in line for line in out)
    assert cli.main(["phh", "replay", folder, "--check", "--json"]) == 1
    errors = [json.loads(line)["error"] for line in capsys.readouterr().out.splitlines()]
    assert len(errors) == 8
    assert all("field 'finishing_stacks': the file says [" in e and "(not whole chips)" in e
               for e in errors)
    assert any("10112.5" in e for e in errors)


def _pokerkit_no_op_check_text() -> str:
    """A hand pokerkit plays and writes: the big blind's only caller is all-in for less than
    the blind, the small blind folds, and pokerkit still asks the big blind, who checks."""
    game = pk.NoLimitTexasHoldem(AUTOMATIONS, True, 0, (50, 100), 100, mode=pk.Mode.CASH_GAME)
    state = game((1000, 1000, 60), 3)
    for cards in ("AsKs", "7h2d", "QcQd"):
        state.deal_hole(cards)
    state.check_or_call()  # p3 all-in for 60
    state.fold()  # p1
    assert state.actor_index == 1 and state.checking_or_calling_amount == 0
    state.check_or_call()  # p2: the check the engine does not need
    boards = iter(("3d4sKd", "9s", "3s"))
    while state.status:
        if state.can_deal_board():
            state.deal_board(next(boards))
        else:
            state.show_or_muck_hole_cards(True)
    text: str = pk.HandHistory.from_game_state(game, state).dumps()
    return text


def test_a_check_pokerkit_writes_when_nobody_can_bet_is_a_no_op() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = _pokerkit_no_op_check_text()
        theirs = pokerkit_finishing_stacks(text)
    assert "'p3 cc', 'p1 f', 'p2 cc'" in text
    history = loads(text)
    assert list(replay(history).finishing_stacks) == theirs == [950, 940, 170]
    # the same check with chips still to call, or by a player who has folded, stays an error
    from table_controller.phh import PhhError

    with pytest.raises(PhhError, match="action 6 'p1 cc'"):
        replay(loads(text.replace("'p2 cc'", "'p1 cc'")))


def test_a_check_that_is_no_no_op_is_still_refused() -> None:
    """Both opponents are all-in, but one for more than the checker's bet: he must call or
    fold, so ``cc`` is a call there, not a skipped check."""
    text = """\
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 1000, 300]
actions = ["d dh p1 AsKs", "d dh p2 7h2d", "d dh p3 QcQd", "p3 cbr 300", "p1 f", "p2 cc",
           "d db 3d4sKd", "d db 9s", "d db 3s", "p3 sm QcQd", "p2 sm 7h2d"]
"""
    assert list(replay(loads(text)).finishing_stacks) == [950, 700, 650]
