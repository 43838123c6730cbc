"""The alerts of a restart during a hand (table_controller/monitor/restart.py): what the
controller found is named in alerts.md's shape."""

from __future__ import annotations

import pytest

from table_controller.monitor.restart import (
    DownChange,
    cards_moved_while_down,
    hand_not_resumed,
)
from table_controller.vocabulary.alerts import Severity
from table_controller.vocabulary.cards import parse_card


def test_cards_moved_while_down_names_every_change() -> None:
    changes = [DownChange(parse_card("7h"), "seat1", "muck"),
               DownChange(parse_card("Kd"), "board", None),
               DownChange(None, None, "seat3")]
    alert = cards_moved_while_down(4, 12.5, changes)
    assert alert.code == "CARDS_MOVED_WHILE_DOWN"
    assert alert.severity is Severity.INFO and alert.hand == 4 and alert.t == 12.5
    assert [str(c) for c in alert.cards] == ["7h", "Kd"]
    assert alert.message == ("While the controller was down: 7h moved from seat1 to muck; "
                             "Kd vanished from board; a card appeared in seat3")


def test_no_change_is_no_alert() -> None:
    with pytest.raises(ValueError):
        cards_moved_while_down(1, 0.0, [])


def test_hand_not_resumed_says_why_and_that_the_hand_is_void() -> None:
    alert = hand_not_resumed(7, 3.0, "the journal holds alert 9 (MISSING_BURN)")
    assert alert.code == "HAND_NOT_RESUMED" and alert.hand == 7
    assert "cannot be rebuilt: the journal holds alert 9" in alert.message
    assert alert.remedy.startswith("The hand is void, every chip returned")
    assert alert.to_dict()["rule"] == "TDA 35 [000] [003]"
