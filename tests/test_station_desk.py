"""The dealer station's console commands and its view, on an in-process controller with the
simulated table (real pty, real console socket, simulated clock moved by the test): undo,
the called clock, the next blind level, named players, hole cards never in the view, alert ids
and updates, one seq per change."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_controller.daemon.journal import Journal
from table_controller.engine import GameConfig, Hand, HandResult, PotAward, Structure
from table_controller.monitor import HandEnd
from table_controller.phh import format_action, loads
from table_controller.station.alerts import AlertBoard, ScannedHeld, Shown, present
from table_controller.station.view import hand_result, quick_amounts
from tests.station_kit import StationRig, make_station_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[StationRig]:
    yield from make_station_rig(tmp_path, clock_time=5.0, clock_count=2.0)


def seat(view: dict[str, Any], n: int) -> dict[str, Any]:
    found: dict[str, Any] = view["seats"][n - 1]
    return found


def test_undo_puts_the_hand_back_and_the_journal_keeps_both(rig: StationRig) -> None:
    rig.new_hand()
    before = rig.view()
    assert before["legal"]["seat"] == 1 and before["undo"]["possible"] is False
    rig.act((1, "raise", 6), (2, "call"))
    view = rig.view()
    assert view["legal"]["seat"] == 3 and seat(view, 2)["bet"] == 6
    assert view["undo"] == {"possible": True, "why_not": None, "last": "seat 2 call 5"}
    rig.ok({"cmd": "undo"})
    view = rig.view()
    assert view["legal"]["seat"] == 2 and seat(view, 2)["bet"] == 1
    assert seat(view, 2)["stack"] == 99 and view["undo"]["last"] == "seat 1 raise to 6"
    rig.ok({"cmd": "undo"})
    again = rig.view()
    assert again["legal"] == before["legal"] and again["seats"] == before["seats"]
    refused = rig.ask({"cmd": "undo"})
    assert not refused["ok"] and "no action to undo" in refused["error"]
    rig.act((1, "fold"), (2, "raise", 8), (3, "fold"))  # the hand as it is played from here
    ended = rig.ask({"cmd": "undo"})
    assert not ended["ok"] and "no hand in progress" in ended["error"]
    assert rig.table.stacks == {1: 100, 2: 102, 3: 98}
    journal = Journal.open(rig.journal_path, readonly=True)
    sent = [json.loads(r["request"]) for r in journal.console_requests(hand=1)]
    cmds = [(r["cmd"], r.get("seat"), r.get("kind")) for r in sent
            if r["cmd"] in ("action", "undo")]
    assert cmds[:6] == [("action", 1, "raise"), ("action", 2, "call"), ("undo", None, None),
                        ("undo", None, None), ("undo", None, None), ("action", 1, "fold")]
    history = loads(journal.hands()[0].phh or "")
    played = [format_action(a) for a in history.actions]
    assert [a for a in played if not a.startswith("d ")] == ["p3 f", "p1 cbr 8", "p2 f"]
    # the hand history holds the hand as it was played in the end (p1 is seat 2, the SB)
    journal.close()


def test_undo_is_refused_once_a_card_moved(rig: StationRig) -> None:
    rig.new_hand()
    rig.act((1, "call"), (2, "call"), (3, "check"))
    assert rig.view()["undo"]["possible"] is True
    rig.ok({"cmd": "sim_deal", "street": "flop"})
    rig.settle()
    view = rig.view()
    assert view["undo"]["possible"] is False
    assert "a card moved since seat 3 check" in view["undo"]["why_not"]
    refused = rig.ask({"cmd": "undo"})
    assert not refused["ok"] and "a card moved" in refused["error"]
    assert rig.view()["legal"]["seat"] == 2  # the flop's betting, untouched
    assert len(view["hand"]["board"]) == 3 and all("card" in c for c in view["hand"]["board"])


def test_undo_of_an_action_out_of_turn_takes_its_warning(rig: StationRig) -> None:
    rig.new_hand()
    rig.act((3, "fold"))  # seat 1 is to act
    view = rig.view()
    assert [a["code"] for a in view["alerts"]] == ["ACTION_OUT_OF_TURN"]
    assert view["undo"]["last"] == "seat 3 fold (out of turn)"
    rig.ok({"cmd": "undo"})
    view = rig.view()
    assert view["alerts"] == [] and view["undo"]["possible"] is False
    rig.act((1, "call"), (2, "call"), (3, "check"))  # seat 3 may decide again
    assert rig.view()["hand"]["betting_complete"] is True


def test_the_clock_runs_out_and_the_hand_is_dead(rig: StationRig) -> None:
    rig.new_hand()
    wrong = rig.ask({"cmd": "call_clock", "seat": 2})
    assert not wrong["ok"] and "player to act (seat 1)" in wrong["error"]
    rig.ok({"cmd": "call_clock", "seat": 1})
    clock = rig.view()["clock"]
    assert clock["seat"] == 1 and clock["count_at"] - clock["started"] == 5000
    assert clock["deadline"] - clock["count_at"] == 2000
    twice = rig.ask({"cmd": "call_clock", "seat": 1})
    assert not twice["ok"] and "already runs" in twice["error"]
    seq = rig.station.hub.seq
    for _ in range(60):  # 6 s: the minute (5 s here) and into the count
        rig.tick()
    assert rig.view()["hand"]["to_act"] == 1  # not yet
    assert rig.station.hub.seq == seq  # the page counts down itself: no view per tick
    for _ in range(15):
        rig.tick()
    view = rig.view()
    assert view["clock"] is None and seat(view, 1)["folded"] is True
    assert [a["code"] for a in view["alerts"]] == ["TIME_EXPIRED"]
    assert view["alerts"][0]["seat"] == 1
    assert view["hand"]["actions"][-1]["kind"] == "time_expired"
    # a clock ends when its player acts in time
    rig.ok({"cmd": "call_clock", "seat": 2})
    rig.act((2, "call"))
    assert rig.view()["clock"] is None
    assert not rig.ask({"cmd": "cancel_clock"})["ok"]
    journal = Journal.open(rig.journal_path, readonly=True)
    sent = [json.loads(r["request"]) for r in journal.console_requests(hand=1)]
    assert {"cmd": "action", "seat": 1, "kind": "time_expired"} in sent
    journal.close()


def test_a_new_blind_level_waits_for_the_next_hand(rig: StationRig) -> None:
    rig.new_hand()
    bad = rig.ask({"cmd": "set_blinds", "small_blind": 5, "big_blind": 4})
    assert not bad["ok"] and "small_blind 5 larger than big_blind 4" in bad["error"]
    assert not rig.ask({"cmd": "set_blinds"})["ok"]
    assert not rig.ask({"cmd": "set_blinds", "big_blind": "4"})["ok"]
    rig.ok({"cmd": "set_blinds", "small_blind": 2, "big_blind": 4, "ante": 1})
    view = rig.view()
    assert view["table"]["blinds"]["big_blind"] == 2
    assert view["table"]["next_blinds"]["big_blind"] == 4
    rig.act((1, "fold"), (2, "fold"))  # seat 3 wins the blinds of this level
    assert rig.table.stacks == {1: 100, 2: 99, 3: 101}
    view = rig.view()
    assert view["table"]["blinds"]["big_blind"] == 4 and view["table"]["next_blinds"] is None
    rig.ok({"cmd": "sim_collect"})
    rig.settle()
    rig.new_hand()  # button 2, blinds 3 and 1, each with an ante
    view = rig.view()
    assert seat(view, 3)["bet"] == 2 and seat(view, 1)["bet"] == 4
    assert view["hand"]["pot"] == 2 + 4 + 3


def test_players_are_seated_with_their_names(rig: StationRig) -> None:
    rig.ok({"cmd": "seat_player", "seat": 5, "stack": 150, "name": "Ann"})
    rig.ok({"cmd": "name_player", "seat": 1, "name": " Bob "})
    long = rig.ask({"cmd": "name_player", "seat": 2, "name": "x" * 25})
    assert not long["ok"] and "at most 24" in long["error"]
    empty = rig.ask({"cmd": "name_player", "seat": 6, "name": "Cy"})
    assert not empty["ok"] and "seat 6 is empty" in empty["error"]
    taken = rig.ask({"cmd": "seat_player", "seat": 5, "stack": 10, "name": "Dee"})
    assert not taken["ok"] and "taken" in taken["error"]
    view = rig.view()
    assert seat(view, 5)["name"] == "Ann" and seat(view, 5)["stack"] == 150
    assert seat(view, 1)["name"] == "Bob"
    assert rig.controller.phh_context is not None
    assert rig.controller.phh_context.players == {5: "Ann", 1: "Bob"}
    rig.ok({"cmd": "leave", "seat": 5})
    assert seat(rig.view(), 5)["name"] is None
    assert rig.controller.phh_context.players == {1: "Bob"}


def test_no_hole_card_reaches_the_view(rig: StationRig) -> None:
    rig.new_hand()
    hole = [str(pc.card) for pc in rig.sim.model.felt]
    assert sorted(hole) == sorted(["As", "Kd", "Qh", "Jc", "Ts", "9d"])
    rig.act((1, "call"), (2, "call"), (3, "check"))  # the engine now holds them too
    text = rig.station.hub.latest()
    assert text is not None
    for card in hole:
        assert not re.search(rf"\b{card}\b", text[1]), card
    assert all(c == {"back": True} for n in (1, 2, 3) for c in seat(rig.view(), n)["cards"])


def test_hole_cards_in_an_alert_are_named_by_their_seat() -> None:
    board = AlertBoard(held=ScannedHeld(tuple))
    entry = Shown(id=4, key=("DUPLICATE_CARD", 2, 3), held=True, hand_at=2, payload={
        "code": "DUPLICATE_CARD", "severity": "stop", "hand": 2, "seat": 3,
        "cards": ["As", "Kd"], "rule": "TDA 35-E", "message": "As at seat 3 and Kd on the board",
        "remedy": "Void the hand; As is a duplicate", "time": "t"})
    shown = present(entry, {"As": 3, "9c": None})
    assert shown["cards"] == [{"seat": 3, "text": "seat 3's card"},
                              {"card": "Kd", "text": "Kd"}]
    assert shown["message"] == "seat 3's card at seat 3 and Kd on the board"
    assert "As" not in json.dumps(shown) and board.shown == []


def test_an_alert_keeps_its_id_through_its_updates_until_verified(rig: StationRig) -> None:
    rig.new_hand()
    rig.act((1, "call"), (2, "call"), (3, "check"))
    rig.ok({"cmd": "sim_deal", "street": "flop"})
    rig.settle()
    rig.act((2, "check"), (3, "check"), (1, "check"))
    rig.ok({"cmd": "sim_deal", "street": "turn"})
    rig.settle()
    seq_before = rig.station.hub.seq
    rig.ok({"cmd": "sim_put", "zone": "board", "face": "up"})  # a second card on the turn
    rig.settle()
    alerts = rig.view()["alerts"]
    assert [(a["code"], a["severity"], a["held"]) for a in alerts] == \
        [("EXTRA_BOARD_CARD", "fix", True)]
    first = alerts[0]
    early = rig.ask({"cmd": "resolve", "code": "EXTRA_BOARD_CARD"})  # not carried out yet
    assert early["ok"] and "Remedy not carried out" in early["alerts"][0]["message"]
    again = rig.view()["alerts"]
    assert len(again) == 1 and again[0]["id"] == first["id"] and again[0]["updates"] == 1
    assert again[0]["message"].startswith("Remedy not carried out")
    rig.ok({"cmd": "sim_remedy", "code": "EXTRA_BOARD_CARD"})
    rig.settle()
    rig.ok({"cmd": "resolve", "code": "EXTRA_BOARD_CARD"})
    assert rig.view()["alerts"] == []
    seqs, resync = rig.station.hub.after(seq_before)
    assert not resync and [s for s, _ in seqs] == list(range(seq_before + 1,
                                                             rig.station.hub.seq + 1))


def test_the_showdown_order_and_who_was_paid(rig: StationRig) -> None:
    rig.new_hand()
    rig.act((1, "raise", 10), (2, "call"), (3, "fold"))
    for street in ("flop", "turn", "river"):
        rig.ok({"cmd": "sim_deal", "street": street})
        rig.settle()
        if street == "river":
            rig.act((2, "bet", 20), (1, "call"))
        else:
            rig.act((2, "check"), (1, "check"))
    view = rig.view()
    assert view["hand"]["street"] == "showdown" and view["legal"] is None
    assert view["hand"]["showdown_order"] == [2, 1]  # the river's bettor shows first
    rig.ok({"cmd": "sim_show", "seats": [2, 1]})
    rig.settle()
    rig.ok({"cmd": "showdown"})
    last = rig.view()["last_hand"]
    assert last is not None and last["number"] == 1 and not last["voided"]
    (pot,) = last["pots"]
    assert pot["amount"] == 10 + 10 + 2 + 20 + 20
    assert sum(pot["shares"].values()) == pot["amount"]
    assert {s["seat"] for s in last["shown"]} == {1, 2}
    assert last["stacks"] == {str(k): v for k, v in rig.table.stacks.items()}
    assert sum(last["net"].values()) == 0


def test_quick_amounts_follow_the_betting_structure() -> None:
    def first(structure: Structure) -> Hand:
        config = GameConfig(structure=structure, small_blind=1, big_blind=2)
        return Hand.from_positions(config=config, stacks={1: 100, 2: 100, 3: 100}, button=1,
                                   small_blind_seat=2, big_blind_seat=3)

    pot_limit = first(Structure.POT_LIMIT)
    legal = pot_limit.legal_actions()
    assert legal.seat == 1 and legal.max_raise_to == 7  # the pot (3) and the call (2), on 2
    assert quick_amounts(legal, pot_limit, Structure.POT_LIMIT) == [  # half the pot is the min
        {"label": "min", "amount": 4}, {"label": "¾ pot", "amount": 2 + 5 * 3 // 4},
        {"label": "max", "amount": 7}]
    fixed = first(Structure.FIXED_LIMIT)
    assert quick_amounts(fixed.legal_actions(), fixed, Structure.FIXED_LIMIT) == \
        [{"label": "fixed", "amount": 4}]
    no_limit = first(Structure.NO_LIMIT)
    amounts = [q["amount"] for q in quick_amounts(no_limit.legal_actions(), no_limit,
                                                  Structure.NO_LIMIT)]
    assert amounts == [4, 5, 7, 100]


def test_a_split_pot_names_its_odd_chip() -> None:
    result = HandResult(pots=[PotAward(amount=7, eligible=(1, 2, 3), winners=(1, 3),
                                       shares={3: 4, 1: 3})],
                        returned={2: 5}, rake=0, voided=False,
                        final_stacks={1: 101, 2: 95, 3: 104}, showdown=True)
    end = HandEnd(number=9, voided=False, cause=None, stacks={1: 101, 2: 95, 3: 104}, t=1.0,
                  result=result)
    shown = hand_result(None, end, unit=1)
    (pot,) = shown["pots"]
    assert pot["name"] == "main pot" and pot["winners"] == [1, 3]
    assert pot["shares"] == {"1": 3, "3": 4} and pot["odd_chips"] == {"3": 1}
    assert shown["returned"] == {"2": 5} and shown["number"] == 9
