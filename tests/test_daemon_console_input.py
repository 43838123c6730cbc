"""The console request bounds (table_controller.daemon.console_input) on their own: the nesting
scan skips strings, the betting word follows the round, refusals are journaled at a bounded
rate."""

from __future__ import annotations

import json

import pytest

from table_controller.daemon.console_input import (
    MAX_DEPTH,
    RefusalLog,
    RequestError,
    betting_word,
    decode,
    nesting,
)
from table_controller.engine import Action, ActionKind, GameConfig, Table


def test_brackets_inside_texts_are_not_nesting() -> None:
    text = json.dumps({"cmd": "void", "cause": "[[[[{{{{" * 10 + '\\"[[['})
    assert nesting(text) == 1
    assert decode([text.encode()])["cmd"] == "void"
    assert nesting("[" * (MAX_DEPTH + 5)) == MAX_DEPTH + 1  # counting stops past the limit
    with pytest.raises(RequestError, match="nested"):
        decode([b'{"a": ' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1)])
    assert decode([b'{"a": ' * (MAX_DEPTH - 1) + b"1" + b"}" * (MAX_DEPTH - 1)])


def test_bet_and_raise_follow_the_round() -> None:
    table = Table(GameConfig(small_blind=1, big_blind=2), seats=6)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    table.set_button(1)
    hand = table.start_hand()
    with pytest.raises(RequestError, match=r"faces a bet of 2: 'bet' .* raise \(to 4 at least\)"):
        betting_word(hand, 1, "bet")  # preflop the blinds are the bet
    betting_word(hand, 1, "raise")
    for seat, kind in ((1, ActionKind.CALL), (2, ActionKind.CALL), (3, ActionKind.CHECK)):
        hand.act(Action(seat=seat, kind=kind))
    # the preflop round is over: the next action opens the flop's round, where nobody has bet
    with pytest.raises(RequestError, match="nobody has bet"):
        betting_word(hand, 2, "raise")
    betting_word(hand, 2, "bet")
    betting_word(None, 2, "raise")  # no hand: the monitor says so


def test_refusals_are_journaled_at_a_bounded_rate() -> None:
    log = RefusalLog(rate=5.0, burst=3)
    assert [log.admit(0.0) for _ in range(5)] == [0, 0, 0, None, None]
    assert log.admit(0.1) is None  # half a token
    assert log.admit(0.3) == 3  # one token back: recorded, with the three left out
    assert log.admit(0.3) is None
