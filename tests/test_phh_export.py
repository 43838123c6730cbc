"""Engine hands -> PHH: seeded random hands replayed by our engine and by pokerkit."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest

from table_controller.engine import (
    Action,
    ActionKind,
    AnteFormat,
    AnteOrder,
    GameConfig,
    OddChipRule,
    RakeConfig,
    Street,
    Structure,
    Table,
)
from table_controller.phh import PhhError, dumps, load, loads
from table_controller.phh.export import Context, export_hand
from table_controller.phh.replay import game_config, replay
from table_controller.phh.simulate import play_random_hand, random_table
from table_controller.vocabulary.cards import DECK
from tests.phh_pokerkit import round_trip

EXAMPLES = Path(__file__).resolve().parents[1] / "table_controller" / "data" / "examples"

CONFIGS = {
    "nl-6max": (GameConfig(structure=Structure.NO_LIMIT, small_blind=1, big_blind=2), 6),
    "nl-9-antes": (GameConfig(small_blind=5, big_blind=10, ante=1), 9),
    "nl-heads-up": (GameConfig(structure=Structure.NO_LIMIT, small_blind=1, big_blind=2), 2),
    # one ante for the table (rules.md §2, TDA 2024 RP-11): by the big blind, by the button
    "nl-8-bb-ante": (GameConfig(small_blind=5, big_blind=10, ante=10,
                                ante_format=AnteFormat.BIG_BLIND), 8),
    "nl-heads-up-bb-ante": (GameConfig(small_blind=5, big_blind=10, ante=15,
                                       ante_format=AnteFormat.BIG_BLIND), 2),
    "nl-5-bb-ante-first": (GameConfig(small_blind=5, big_blind=10, ante=10, tournament=True,
                                      ante_format=AnteFormat.BIG_BLIND,
                                      ante_order=AnteOrder.ANTE_FIRST), 5),
    "nl-6-button-ante": (GameConfig(small_blind=5, big_blind=10, ante=10,
                                    ante_format=AnteFormat.BUTTON), 6),
    "nl-heads-up-button-ante": (GameConfig(small_blind=5, big_blind=10, ante=10,
                                           ante_format=AnteFormat.BUTTON), 2),
    "pl-5-bb-ante": (GameConfig(structure=Structure.POT_LIMIT, small_blind=5, big_blind=10,
                                ante=10, ante_format=AnteFormat.BIG_BLIND), 5),
    "pl-5": (GameConfig(structure=Structure.POT_LIMIT, small_blind=1, big_blind=2), 5),
    "fl-4": (GameConfig(structure=Structure.FIXED_LIMIT, small_blind=1, big_blind=2), 4),
    "fl-heads-up": (GameConfig(structure=Structure.FIXED_LIMIT, small_blind=1, big_blind=2), 2),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_random_engine_hands_replay_identically_in_pokerkit(name: str) -> None:
    config, players = CONFIGS[name]
    rng = random.Random(name)
    outcomes: dict[str, int] = {}
    for _ in range(40):
        table = random_table(config, rng, players=players)
        hand = play_random_hand(table, rng)
        table.finish_hand(hand)
        outcome = round_trip(hand, config)
        assert outcome.status in ("ok", "ours-only"), outcome.detail
        outcomes[outcome.status] = outcomes.get(outcome.status, 0) + 1
    # pokerkit must really be the referee for most hands, not skipped
    assert outcomes.get("ok", 0) >= 30, outcomes


def test_straddled_hands_replay_identically_in_pokerkit() -> None:
    config = GameConfig(structure=Structure.NO_LIMIT, small_blind=1, big_blind=2)
    rng = random.Random("straddle")
    checked = 0
    for _ in range(30):
        table = random_table(config, rng, players=rng.choice([4, 6, 9]))
        seats = sorted(table.stacks)
        button = table.button
        assert button is not None
        after = [s for s in seats if s > button] + [s for s in seats if s <= button]
        hand = play_random_hand(table, rng, straddle=after[2])
        table.finish_hand(hand)
        history = export_hand(hand, config=config)
        assert history.blinds_or_straddles[:3] == (1, 2, 4)
        outcome = round_trip(hand, config)
        assert outcome.status in ("ok", "ours-only"), outcome.detail
        checked += outcome.status == "ok"
    assert checked >= 20


def test_house_rules_travel_in_user_fields() -> None:
    config = GameConfig(
        structure=Structure.NO_LIMIT,
        small_blind=1,
        big_blind=2,
        odd_chip=OddChipRule.HOUSE_COUNTERCLOCKWISE,
        rake=RakeConfig(percent="2.5", cap=3),
    )
    rng = random.Random("house")
    raked = 0
    for _ in range(40):
        table = random_table(config, rng, players=4)
        hand = play_random_hand(table, rng)
        table.finish_hand(hand)
        history = export_hand(hand, config=config)
        assert history.user_fields["_odd_chip"] == "house_counterclockwise"
        assert history.user_fields["_rake_percent"] == "2.5"
        assert history.user_fields["_rake_cap"] == 3
        assert game_config(loads(dumps(history))) == config
        outcome = round_trip(hand, config)
        assert outcome.status in ("ok", "ours-only"), outcome.detail
        assert hand.result is not None
        raked += hand.result.rake > 0
    assert raked > 0


def test_exported_fields() -> None:
    config = GameConfig(structure=Structure.FIXED_LIMIT, small_blind=1, big_blind=2)
    table = Table(config, seats=9)
    for seat, stack in ((2, 100), (5, 80), (7, 120)):
        table.sit(seat, stack)
    table.set_button(5)
    hand = play_random_hand(table, random.Random(7))
    table.finish_hand(hand)
    history = export_hand(
        hand,
        config=config,
        context=Context(seat_count=9, players={2: "Ann", 5: "Bo", 7: "Cy"}, table="T4",
                        venue="Casino", currency="EUR", day=30, month=11, year=2026),
    )
    raw = tomllib.loads(dumps(history))
    assert raw["variant"] == "FT"
    assert raw["small_bet"] == 2 and raw["big_bet"] == 4 and "min_bet" not in raw
    assert raw["seats"] == [7, 2, 5]  # first left of the button first, the button last
    assert raw["players"] == ["Cy", "Ann", "Bo"]
    assert raw["starting_stacks"] == [120, 100, 80]
    assert raw["hand"] == 1 and raw["seat_count"] == 9 and raw["table"] == "T4"
    assert raw["finishing_stacks"] == [table.stacks[s] for s in (7, 2, 5)]
    assert hand.result is not None
    assert sum(raw["winnings"]) == sum(p.amount for p in hand.result.pots)
    assert raw["actions"][:3] == [f"d dh p{i} {''.join(map(str, c))}" for i, c in enumerate(
        [_hole(hand, 7), _hole(hand, 2), _hole(hand, 5)], start=1)]


def _hole(hand: object, seat: int) -> tuple[object, ...]:
    from table_controller.engine import HoleCardsDealt

    for record in hand.log:  # type: ignore[attr-defined]
        if isinstance(record, HoleCardsDealt) and record.seat == seat:
            return tuple(record.cards)
    raise AssertionError(f"no hole cards for seat {seat}")


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.phh")), ids=lambda p: p.name)
def test_replayed_examples_export_back_to_the_same_hand(path: Path) -> None:
    history = load(path)
    replayed = replay(history)
    again = export_hand(replayed.hand, config=game_config(history))
    assert again.starting_stacks == history.starting_stacks
    assert again.finishing_stacks == replayed.finishing_stacks
    assert again.blinds_or_straddles == history.blinds_or_straddles
    betting = [a for a in history.actions if type(a).__name__ in ("Fold", "CheckOrCall",
                                                                   "BetOrRaiseTo", "DealBoard")]
    assert [a for a in again.actions if type(a).__name__ in ("Fold", "CheckOrCall",
                                                             "BetOrRaiseTo", "DealBoard")] == [
        a._replace(commentary=None) for a in betting
    ]
    assert list(replay(again).finishing_stacks) == list(replayed.finishing_stacks)


def test_unfinished_and_voided_hands_are_not_exported() -> None:
    config = GameConfig(small_blind=1, big_blind=2)
    table = Table(config, seats=6)
    for seat in (1, 3, 5):
        table.sit(seat, 100)
    table.set_button(1)
    hand = table.start_hand()
    with pytest.raises(PhhError, match="not finished"):
        export_hand(hand, config=config)
    hand.void("misdeal: first card to the wrong seat")
    with pytest.raises(PhhError, match="voided"):
        export_hand(hand, config=config)


@pytest.mark.parametrize("tournament", [False, True], ids=["cash", "tournament"])
def test_consecutive_hands_at_one_table(tournament: bool) -> None:
    """Hands in a row: the button and blinds move, players bust (dead button and dead small
    blind in a tournament, [002 #28]); every hand replays identically."""
    config = GameConfig(small_blind=5, big_blind=10, ante=1, tournament=tournament)
    rng = random.Random(f"session-{tournament}")
    table = Table(config, seats=9)
    for seat in (1, 2, 4, 5, 7, 9):
        table.sit(seat, rng.choice([300, 600, 1000]))
    table.set_button(1)
    played = dead_small_blind = 0
    while len([s for s, c in table.stacks.items() if c > 0]) >= 2 and played < 60:
        hand = play_random_hand(table, rng)
        table.finish_hand(hand)
        for seat, chips in list(table.stacks.items()):
            if chips == 0:
                table.leave(seat)
        outcome = round_trip(hand, config)
        assert outcome.status in ("ok", "ours-only"), outcome.detail
        played += 1
        dead_small_blind += hand.small_blind_seat is None
    assert played >= 8
    if tournament:
        assert dead_small_blind > 0  # the layout PHH writes as [BB, 0, ...]


def test_time_expired_is_one_fold_with_commentary() -> None:
    config = GameConfig(small_blind=1, big_blind=2)
    table = Table(config, seats=3)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    table.set_button(3)
    hand = table.start_hand()
    deck = iter(DECK)
    for seat in hand.deal_order:
        hand.deal_hole(seat, (next(deck), next(deck)))
    assert hand.to_act == 3
    hand.time_expired(3)
    hand.act(Action(seat=1, kind=ActionKind.FOLD))
    table.finish_hand(hand)
    text = dumps(export_hand(hand, config=config))
    assert text.count('"p3 f # time expired"') == 1
    assert '"p3 f",' not in text
    assert round_trip(hand, config).status == "ok"


def test_big_blind_all_in_on_the_ante() -> None:
    config = GameConfig(small_blind=1, big_blind=2, ante=2)
    table = Table(config, seats=4)
    for seat, stack in ((1, 50), (2, 2), (3, 50), (4, 50)):
        table.sit(seat, stack)
    table.set_button(4)  # seat 1 small blind, seat 2 big blind with nothing left
    hand = play_random_hand(table, random.Random(3))
    table.finish_hand(hand)
    history = export_hand(hand, config=config)
    assert history.blinds_or_straddles == (1, 2, 0, 0)
    assert history.ante_trimming_status is False
    assert round_trip(hand, config).status in ("ok", "ours-only")
    assert list(replay(history).finishing_stacks) == [table.stacks[s] for s in hand.deal_order]


def test_dead_small_blind_with_a_straddle_is_told_apart() -> None:
    """No small blind (its seat emptied, [002 #28]) and a straddle: [BB, 2 x BB, 0...] plus
    ``_dead_small_blind`` so it is not read as a small and a big blind."""
    from table_controller.engine import Hand

    config = GameConfig(small_blind=5, big_blind=10, tournament=True)
    hand = Hand(config=config, number=4, stacks={2: 300, 4: 300, 6: 300, 8: 300}, button=9,
                small_blind_seat=None, big_blind_seat=2, straddle_seat=4)
    rng = random.Random(11)
    deck = list(DECK)
    rng.shuffle(deck)
    for seat in hand.deal_order:
        hand.deal_hole(seat, (deck.pop(), deck.pop()))
    while hand.street not in (Street.SHOWDOWN, Street.COMPLETE):
        if hand.to_act is None:
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])
        else:
            legal = hand.legal_actions()
            kind = ActionKind.CHECK if legal.can_check else ActionKind.CALL
            hand.act(Action(seat=legal.seat, kind=kind))
    if hand.street is Street.SHOWDOWN:
        hand.showdown()
    history = export_hand(hand, config=config)
    assert history.blinds_or_straddles == (10, 20, 0, 0)
    assert history.user_fields["_dead_small_blind"] is True
    again = loads(dumps(history))
    assert game_config(again).small_blind == 0 and game_config(again).big_blind == 10
    assert hand.result is not None
    assert list(replay(again).finishing_stacks) == [
        hand.result.final_stacks[s] for s in hand.deal_order
    ]
    assert round_trip(hand, config).status == "ours-only"
