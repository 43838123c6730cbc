"""Card notation: strict parsing that names the bad token (deck of rules.md §1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.vocabulary.cards import (
    DECK,
    RANKS,
    SUITS,
    Card,
    CardError,
    card_from_index,
    format_cards,
    iter_deck,
    parse_card,
    parse_cards,
)

ALL_TOKENS = [r + s for r in RANKS for s in SUITS]


def test_every_card_parses_and_prints_back() -> None:
    for token in ALL_TOKENS:
        card = parse_card(token)
        assert str(card) == token
        assert repr(card) == f"Card({token})"
        assert card.rank == RANKS.index(token[0]) + 2
        assert card.suit == token[1]
    assert len({parse_card(t) for t in ALL_TOKENS}) == 52


def test_ten_and_faces_and_ace() -> None:
    assert parse_card("Td") == Card(10, "d")
    assert parse_card("Jc") == Card(11, "c")
    assert parse_card("Qh") == Card(12, "h")
    assert parse_card("Ks") == Card(13, "s")
    assert parse_card("As") == Card(14, "s")
    assert parse_card("2h") == Card(2, "h")


@pytest.mark.parametrize(
    "token",
    ["", "A", "s", "Ass", "1s", "10s", "as", "AS", "Ax", "Zs", " As", "As ", "0c", "Tt", "♠A"],
)
def test_bad_token_is_rejected_naming_it(token: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(token)
    assert repr(token) in str(info.value)


def test_card_error_is_a_value_error() -> None:
    assert issubclass(CardError, ValueError)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=4))
def test_any_other_text_is_rejected_naming_it(token: str) -> None:
    if token in ALL_TOKENS:
        assert str(parse_card(token)) == token
        return
    with pytest.raises(CardError, match="not a card") as info:
        parse_card(token)
    assert repr(token) in str(info.value)


def test_parse_cards_from_text_and_iterable() -> None:
    assert [str(c) for c in parse_cards("As Td 9c")] == ["As", "Td", "9c"]
    assert [str(c) for c in parse_cards("  As\tTd\n9c ")] == ["As", "Td", "9c"]
    assert [str(c) for c in parse_cards(["Kh", "2d"])] == ["Kh", "2d"]
    assert parse_cards("") == []


def test_parse_cards_names_the_first_bad_token() -> None:
    with pytest.raises(CardError) as info:
        parse_cards("As Td 1c 9x")
    assert "'1c'" in str(info.value)
    assert "'9x'" not in str(info.value)
    with pytest.raises(CardError, match="'10h'"):
        parse_cards(["Kh", "10h"])


def test_constructor_rejects_impossible_cards() -> None:
    for rank, suit in [(1, "s"), (15, "s"), (0, "h"), (14, "x"), (14, "S"), (14, ""), (14, "sh")]:
        with pytest.raises(CardError):
            Card(rank, suit)


def test_index_is_rank_major_and_round_trips() -> None:
    assert parse_card("2s").index == 0
    assert parse_card("2h").index == 1
    assert parse_card("3s").index == 4
    assert parse_card("Ac").index == 51
    for i in range(52):
        assert card_from_index(i).index == i
    assert [c.index for c in DECK] == list(range(52))
    assert list(iter_deck()) == list(DECK)


@pytest.mark.parametrize("index", [-1, 52, 100])
def test_index_out_of_range_is_rejected(index: int) -> None:
    with pytest.raises(CardError, match=str(index)):
        card_from_index(index)


def test_format_cards() -> None:
    assert format_cards(parse_cards("As Td 9c")) == "As Td 9c"
    assert format_cards([]) == ""


def test_cards_are_hashable_values_and_sort_by_rank() -> None:
    assert parse_card("As") == Card(14, "s")
    assert hash(parse_card("As")) == hash(Card(14, "s"))
    assert sorted(parse_cards("As 2c Td")) == parse_cards("2c Td As")
