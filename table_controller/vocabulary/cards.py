"""Card notation shared by every package: ``As Td 9c``.

Rank is one of ``23456789TJQKA``, suit one of ``shdc`` (rules.md §1). Parsing is strict: anything
else raises :class:`CardError` naming the bad token, so a typo in a config, a scenario or a deck
file is reported where it is and never guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

RANKS = "23456789TJQKA"
SUITS = "shdc"
RANK_NAMES = {
    2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight",
    9: "Nine", 10: "Ten", 11: "Jack", 12: "Queen", 13: "King", 14: "Ace",
}
RANK_PLURALS = {r: ("Sixes" if r == 6 else name + "s") for r, name in RANK_NAMES.items()}
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}


class CardError(ValueError):
    """A token that is not a card in ``As Td 9c`` notation."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card. ``rank`` is 2..14 (ace high), ``suit`` one of ``s h d c``.

    Ordering is by rank, then suit index: it is for stable sorting only, never for tie-breaks
    (suits never break ties, rules.md §1).
    """

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in RANK_NAMES or len(self.suit) != 1 or self.suit not in SUITS:
            raise CardError(f"not a card: rank {self.rank!r}, suit {self.suit!r}")

    @property
    def index(self) -> int:
        """0..51, rank-major: 2s=0, 2h=1, 2d=2, 2c=3, 3s=4, ... Ac=51."""
        return (self.rank - 2) * 4 + SUITS.index(self.suit)

    def __str__(self) -> str:
        return RANKS[self.rank - 2] + self.suit

    def __repr__(self) -> str:
        return f"Card({self})"


def _build_table() -> dict[str, Card]:
    return {r + s: Card(RANKS.index(r) + 2, s) for r in RANKS for s in SUITS}


_BY_TEXT = _build_table()
DECK: tuple[Card, ...] = tuple(sorted(_BY_TEXT.values(), key=lambda c: c.index))


def parse_card(token: str) -> Card:
    """Parse one card such as ``"As"``; raises :class:`CardError` naming the bad token."""
    card = _BY_TEXT.get(token)
    if card is None:
        raise CardError(
            f"not a card: {token!r} (expected rank 2-9 T J Q K A then suit s h d c, as in 'As')"
        )
    return card


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"As Td 9c"`` (or an iterable of tokens); raises on the first bad token."""
    tokens: Iterable[str] = text.split() if isinstance(text, str) else text
    return [parse_card(t) for t in tokens]


def card_from_index(index: int) -> Card:
    """The card with :attr:`Card.index` ``index`` (0..51)."""
    if not 0 <= index < 52:
        raise CardError(f"card index out of range: {index}")
    return DECK[index]


def format_cards(cards: Iterable[Card]) -> str:
    """``"As Td 9c"``."""
    return " ".join(str(c) for c in cards)


def iter_deck() -> Iterator[Card]:
    """The 52 cards in index order."""
    return iter(DECK)


_DECK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_deck_name(name: str) -> str:
    """``name`` if it can name a deck, else :class:`CardError`. One rule for the RFID deck
    registry and the camera's enrolled designs, which name the same decks (and the design's
    folder is named after it): 1-64 letters, digits, ``-``, ``_`` or ``.``, starting with a
    letter or a digit."""
    if not isinstance(name, str) or not _DECK_NAME.match(name):
        raise CardError(f"bad deck name {name!r}: use 1-64 letters, digits, '-', '_' or '.', "
                        "starting with a letter or a digit")
    return name
