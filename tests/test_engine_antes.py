"""Antes as tournaments play them (rules.md §2, TDA 2024 RP-11): every player's ante, the
big-blind ante and the button ante; blind first or ante first when the poster is short.

Every hand here is started through ``Table.start_hand``, so conftest also exports it to PHH and
replays it with our engine and with pokerkit (pokerkit's order differs only when a single-ante
poster is short with the blind first: those hands are compared with our replay only).
"""

from __future__ import annotations

import random

import pytest

from table_controller.engine import (
    Action,
    ActionKind,
    AnteFormat,
    AnteOrder,
    ConfigError,
    GameConfig,
    Hand,
    IllegalAction,
    Posted,
    PostKind,
    Street,
    Structure,
    Table,
)
from table_controller.engine.pots import Pot
from table_controller.phh import HandHistory, dumps, loads
from table_controller.phh.export import export_hand
from table_controller.phh.replay import game_config, replay
from table_controller.phh.simulate import play_random_hand, random_table
from table_controller.vocabulary.cards import Card, parse_card
from tests.phh_pokerkit import round_trip

BBA = GameConfig(small_blind=40, big_blind=80, ante=120, ante_format=AnteFormat.BIG_BLIND,
                 tournament=True)


def _table(config: GameConfig, stacks: dict[int, int], button: int) -> Table:
    table = Table(config, seats=9)
    for seat, chips in stacks.items():
        table.sit(seat, chips)
    table.set_button(button)
    return table


def _posts(hand: Hand) -> list[tuple[int, PostKind, int]]:
    return [(r.seat, r.kind, r.amount) for r in hand.log if isinstance(r, Posted)]


def _act(hand: Hand, *moves: tuple[int, ActionKind, int | None]) -> None:
    for seat, kind, amount in moves:
        hand.act(Action(seat=seat, kind=kind, amount=amount))


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(text[i:i + 2]) for i in range(0, len(text), 2))


def test_big_blind_posts_one_dead_ante_for_the_table() -> None:
    table = _table(BBA, {1: 5000, 2: 5000, 3: 5000, 4: 5000, 5: 5000}, button=5)
    hand = table.start_hand()
    assert hand.ante_seat == hand.big_blind_seat == 2
    # blind first, then the ante; nobody else antes (rules.md §2, TDA 2024 RP-11)
    assert _posts(hand) == [(1, PostKind.SMALL_BLIND, 40), (2, PostKind.BIG_BLIND, 80),
                            (2, PostKind.ANTE, 120)]
    assert hand.bets == {1: 40, 2: 80}  # dead: not part of his bet
    assert hand.dead_ante == 120 and hand.pot == 240
    _act(hand, (3, ActionKind.CALL, None), (4, ActionKind.FOLD, None),
         (5, ActionKind.FOLD, None), (1, ActionKind.CALL, None))
    legal = hand.legal_actions()
    assert legal.seat == 2 and legal.can_check  # the option: calls of 80, not 200
    hand.act(Action(seat=2, kind=ActionKind.CHECK))
    assert hand.street is Street.PREFLOP and hand.to_act is None
    assert hand.pots() == [Pot(360, (1, 2, 3))]


def test_the_dead_ante_goes_to_the_main_pot_when_the_big_blind_is_all_in() -> None:
    """The big blind all-in for exactly blind + ante: his opponents match only the blind; the
    ante is in the main pot, won by whoever wins it (not returned to him as an unmatched
    contribution would be)."""
    table = _table(BBA, {1: 5000, 2: 200, 3: 5000}, button=3)
    hand = table.start_hand()
    assert hand.stacks[2] == 0
    _act(hand, (3, ActionKind.CALL, None), (1, ActionKind.FOLD, None))
    assert hand.to_act is None  # nobody left to bet against
    assert hand.pots() == [Pot(40 + 120 + 80 + 80, (2, 3))]
    for seat, cards in ((1, "2c3d"), (2, "7h2s"), (3, "AsAd")):
        hand.deal_hole(seat, _cards(cards))
    for board in ("KcQd9h", "5s", "4c"):
        hand.deal_board(_cards(board))
    result = hand.showdown()
    assert result.final_stacks == {1: 4960, 2: 0, 3: 5000 - 80 + 320}
    table.finish_hand(hand)


@pytest.mark.parametrize(
    ("order", "posted"),
    [
        # TDA 2024 RP-11: big blind first, the ante takes what is left
        (AnteOrder.BLIND_FIRST, [(1, PostKind.SMALL_BLIND, 40), (2, PostKind.BIG_BLIND, 80),
                                 (2, PostKind.ANTE, 70)]),
        # house option (pokerkit's order): the ante first, the blind from the rest
        (AnteOrder.ANTE_FIRST, [(2, PostKind.ANTE, 120), (1, PostKind.SMALL_BLIND, 40),
                                (2, PostKind.BIG_BLIND, 30)]),
    ],
)
def test_a_short_big_blind_pays_the_blind_or_the_ante_first(
    order: AnteOrder, posted: list[tuple[int, PostKind, int]]
) -> None:
    config = GameConfig(small_blind=40, big_blind=80, ante=120, tournament=True,
                        ante_format=AnteFormat.BIG_BLIND, ante_order=order)
    table = _table(config, {1: 3000, 2: 150, 3: 3000}, button=3)
    hand = table.start_hand()
    assert _posts(hand) == posted
    for seat, cards in ((1, "2c3d"), (2, "AhAs"), (3, "7c8d")):
        hand.deal_hole(seat, _cards(cards))
    _act(hand, (3, ActionKind.CALL, None), (1, ActionKind.CALL, None))
    while hand.street is not Street.SHOWDOWN:
        if hand.to_act is None:
            hand.deal_board(_cards({Street.PREFLOP: "KcQd9h", Street.FLOP: "5s",
                                    Street.TURN: "4c"}[hand.street]))
        else:
            hand.act(Action(seat=hand.to_act, kind=ActionKind.CHECK))
    result = hand.showdown()
    # the big blind wins the main pot: his ante (dead) and what each opponent matched of his
    # live blind; the others' excess over his blind forms a side pot between them
    blind = 80 if order is AnteOrder.BLIND_FIRST else 30
    ante = 70 if order is AnteOrder.BLIND_FIRST else 120
    assert result.pots[0].winners == (2,)
    assert result.final_stacks[2] == ante + 3 * blind
    table.finish_hand(hand)
    text = dumps(export_hand(hand, config=config))
    assert f'_ante_order = "{order.value}"' in text
    assert game_config(loads(text)) == config
    outcome = round_trip(hand, config)
    if order is AnteOrder.BLIND_FIRST:
        assert outcome.status == "ours-only" and "pokerkit posts the ante first" in outcome.detail
    else:
        assert outcome.status in ("ok", "ours-only"), outcome.detail


def test_antes_are_not_reduced_short_handed() -> None:
    """TDA 2024 RP-11: the big-blind ante stays the same however few players are left."""
    config = GameConfig(small_blind=50, big_blind=100, ante=100, tournament=True,
                        ante_format=AnteFormat.BIG_BLIND)
    for players in (9, 6, 3, 2):
        table = _table(config, {s: 10_000 for s in range(1, players + 1)}, button=1)
        hand = table.start_hand()
        antes = [(s, a) for s, kind, a in _posts(hand) if kind is PostKind.ANTE]
        assert antes == [(hand.big_blind_seat, 100)]
        _act(hand, *((s, ActionKind.FOLD, None) for s in hand.preflop_order[:-1]))
        assert hand.result is not None
        table.finish_hand(hand)


def test_button_ante_and_heads_up_and_dead_button() -> None:
    config = GameConfig(small_blind=5, big_blind=10, ante=10, ante_format=AnteFormat.BUTTON,
                        tournament=True)
    table = _table(config, {2: 500, 4: 500, 6: 500, 8: 500}, button=8)
    hand = table.start_hand()
    assert hand.button == hand.ante_seat == 8
    assert _posts(hand) == [(2, PostKind.SMALL_BLIND, 5), (4, PostKind.BIG_BLIND, 10),
                            (8, PostKind.ANTE, 10)]
    history = export_hand_after_folds(table, hand, config)
    assert history.antes == (0, 0, 0, 10)  # the button is the last player (phh-std)
    # the small blind busts: dead button on his empty seat (rules.md §2 [002 #28]); the player
    # acting last after the flop posts the ante
    table.leave(2)
    hand = table.start_hand()
    assert hand.button == 2 and hand.ante_seat == hand.deal_order[-1] == 8
    export_hand_after_folds(table, hand, config)
    # heads-up: the button posts the small blind, then the ante
    table.leave(8)
    hand = table.start_hand()
    assert hand.button == hand.small_blind_seat == hand.ante_seat
    assert [k for _, k, _ in _posts(hand)] == [PostKind.SMALL_BLIND, PostKind.BIG_BLIND,
                                              PostKind.ANTE]
    history = export_hand_after_folds(table, hand, config)
    assert history.antes == (10, 0)  # heads-up entries are reversed: antes[0] is the button's


def export_hand_after_folds(table: Table, hand: Hand, config: GameConfig) -> HandHistory:
    """Everybody folds to the last player; the export replays to the same stacks."""
    while hand.result is None:
        seat = hand.to_act
        assert seat is not None
        hand.act(Action(seat=seat, kind=ActionKind.FOLD))
    table.finish_hand(hand)
    history = export_hand(hand, config=config)
    assert list(replay(loads(dumps(history))).finishing_stacks) == list(
        history.finishing_stacks or ())
    return history


def test_straddle_needs_the_ante_only_from_its_poster() -> None:
    config = GameConfig(small_blind=5, big_blind=10, ante=30, ante_format=AnteFormat.BUTTON)
    # three-handed the seat left of the big blind is the button, who owes the ante
    table = _table(config, {1: 500, 2: 500, 3: 45}, button=3)
    with pytest.raises(IllegalAction, match="straddle"):
        table.start_hand(straddle=3)
    table = _table(config, {1: 500, 2: 20, 3: 500, 4: 500}, button=3)
    hand = table.start_hand(straddle=2)  # not the ante's poster: 2 x BB is enough
    assert hand.straddle_seat == 2 and hand.stacks[2] == 0
    export_hand_after_folds(table, hand, config)


def test_void_returns_the_single_ante() -> None:
    table = _table(BBA, {1: 1000, 2: 1000, 3: 1000}, button=3)
    hand = table.start_hand()
    result = hand.void("misdeal")
    assert result.final_stacks == {1: 1000, 2: 1000, 3: 1000}
    assert hand.dead_ante == 0
    table.finish_hand(hand)
    assert table.start_hand().big_blind_seat == 2  # redealt with the same positions


def test_pot_limit_counts_the_dead_ante() -> None:
    config = GameConfig(structure=Structure.POT_LIMIT, small_blind=5, big_blind=10, ante=10,
                        ante_format=AnteFormat.BIG_BLIND)
    table = _table(config, {1: 1000, 2: 1000, 3: 1000}, button=3)
    hand = table.start_hand()
    # pot 25 (5 + 10 + the ante 10) + the call of 10 = 35 on top of the 10 to call
    assert hand.legal_actions(3).max_raise_to == 10 + 25 + 10
    export_hand_after_folds(table, hand, config)


def test_ante_settings_are_validated() -> None:
    with pytest.raises(ConfigError, match="ante_format"):
        GameConfig(ante=1, ante_format="big_blind")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="ante_order"):
        GameConfig(ante=1, ante_order="ante_first")  # type: ignore[arg-type]
    assert not GameConfig(ante_format=AnteFormat.BIG_BLIND).single_ante  # no ante, no poster


@pytest.mark.parametrize("fmt", [AnteFormat.BIG_BLIND, AnteFormat.BUTTON])
@pytest.mark.parametrize("order", [AnteOrder.BLIND_FIRST, AnteOrder.ANTE_FIRST])
def test_random_single_ante_hands_with_short_stacks(fmt: AnteFormat, order: AnteOrder) -> None:
    """Short stacks around the blind and the ante: chips are conserved, our replay of the
    export gives the engine's stacks and pokerkit agrees whenever its order is ours."""
    config = GameConfig(small_blind=10, big_blind=20, ante=20, ante_format=fmt,
                        ante_order=order)
    rng = random.Random(f"{fmt.value}-{order.value}")
    compared = 0
    for _ in range(40):
        table = random_table(config, rng, players=rng.choice([2, 3, 6]),
                             stacks=(1, 2, 3, 5, 30, 200))
        before = sum(table.stacks.values())
        hand = play_random_hand(table, rng)
        table.finish_hand(hand)
        assert sum(table.stacks.values()) == before
        outcome = round_trip(hand, config)
        assert outcome.status in ("ok", "ours-only"), outcome.detail
        compared += outcome.status == "ok"
    assert compared >= 12  # pokerkit is the referee for a good share of them
