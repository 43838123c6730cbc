"""The physical table the simulator keeps: every card, where it lies, which way up, its tag.

A :class:`PhysicalCard` is one piece of cardboard with one RFID tag. The shuffler holds the
active deck's 52 cards (the stub, top first); the dealer takes cards from it onto the felt
zones (``seat1`` .. ``seat10``, ``board``, ``burn``, ``muck``). Besides the active deck the model
can bring in the odd cards a scenario asks for (scenario.md ``card`` step):

- a *copy*: a second card with the same face that belongs to the active deck, with a tag of its
  own (a fouled deck, rules.md §5 "duplicate cards");
- a *foreign* card: a card of the table's other deck (two decks alternate at a table, rules.md
  §1), so its tag is enrolled but not active;
- a *joker* (rules.md §5: discarded and replaced, not a dealer error).

:class:`SimTagRegistry` is what the deck registry knows about these tags; it satisfies
``firmware_bridge.tags.TagResolver`` so the real RFID reader can resolve UIDs against it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from firmware_bridge.tags import TagIdentity
from table_controller.cards import DECK, Card
from table_controller.observations import Face
from table_controller.zones import SHUFFLER, check_zone

ACTIVE_DECK = "A"
OTHER_DECK = "B"
_NXP = 0x04  # first UID byte of NXP tags (NTAG21x), the common casino inlay


class ModelError(ValueError):
    """A physical move that cannot happen (the card is not where the move needs it)."""


@dataclass(eq=False, slots=True)
class PhysicalCard:
    """One card with its tag. ``card`` is None for a joker. ``zone`` is ``shuffler`` while the
    card is in the stub; ``face`` is up or down. ``placed`` orders cards on the felt."""

    uid: bytes
    card: Card | None
    deck: str
    joker: bool = False
    copy: bool = False
    zone: str = SHUFFLER
    face: Face = Face.DOWN
    placed: int = 0

    @property
    def label(self) -> str:
        name = "joker" if self.joker else str(self.card)
        if self.copy:
            return f"{name} (duplicate)"
        if self.deck != ACTIVE_DECK:
            return f"{name} (deck {self.deck})"
        return name

    @property
    def uid_hex(self) -> str:
        return self.uid.hex()

    def __repr__(self) -> str:
        return f"PhysicalCard({self.label} {self.zone} {self.face.value} {self.uid_hex})"


@dataclass(slots=True)
class SimTagRegistry:
    """UID -> identity for every tag the simulated table owns. ``identify`` answers like the
    deck registry: an unknown UID is a tag of no enrolled deck."""

    active_deck: str = ACTIVE_DECK
    _tags: dict[bytes, tuple[Card | None, str, bool]] = field(default_factory=dict)

    def enrol(self, card: PhysicalCard) -> None:
        self._tags[card.uid] = (card.card, card.deck, card.joker)

    def identify(self, uid: bytes) -> TagIdentity:
        known = self._tags.get(bytes(uid))
        if known is None:
            return TagIdentity(card=None, deck=None, active=False)
        card, deck, joker = known
        return TagIdentity(card=card, deck=deck, active=deck == self.active_deck and not joker,
                           joker=joker)

    def enrolment(self) -> Iterator[tuple[bytes, Card | None, str, bool]]:
        """(uid, card, deck, joker) for every tag, for loading a real deck registry."""
        for uid, (card, deck, joker) in self._tags.items():
            yield uid, card, deck, joker


def _uid(deck_byte: int, index: int, serial: int) -> bytes:
    return bytes((_NXP, deck_byte, index & 0xFF, (serial >> 8) & 0xFF, serial & 0xFF, 0x5A, 0x81))


class TableModel:
    """Where every physical card is. Every change bumps :attr:`version`, so sensors that poll
    the model (the virtual RFID controller, the camera) know when to look again."""

    def __init__(self) -> None:
        self.registry = SimTagRegistry()
        self.version = 0
        self._serial = 0
        self._placements = 0
        # The active deck's own 52 cards, one tag each, enrolled once like a real deck.
        self._own: dict[Card, PhysicalCard] = {}
        for card in DECK:
            pc = PhysicalCard(uid=_uid(0xA0, card.index, 0), card=card, deck=ACTIVE_DECK)
            self._own[card] = pc
            self.registry.enrol(pc)
        self._stub: list[PhysicalCard] = list(self._own.values())
        self._felt: list[PhysicalCard] = []

    # --- what is where ------------------------------------------------------------------

    @property
    def stub(self) -> list[PhysicalCard]:
        """The cards in the shuffler, top first (a copy: changing it changes nothing)."""
        return list(self._stub)

    @property
    def felt(self) -> list[PhysicalCard]:
        """The cards on the felt, in the order they were placed."""
        return sorted(self._felt, key=lambda c: c.placed)

    def in_zone(self, zone: str) -> list[PhysicalCard]:
        return [c for c in self.felt if c.zone == zone]

    def zones(self) -> dict[str, list[PhysicalCard]]:
        out: dict[str, list[PhysicalCard]] = {}
        for c in self.felt:
            out.setdefault(c.zone, []).append(c)
        return out

    def find_on_felt(self, card: Card | None) -> PhysicalCard:
        """The card with that face on the felt (``None``: a joker). With two such cards (a
        duplicate), the one placed last."""
        matches = [c for c in self.felt if (c.joker if card is None else c.card == card)]
        if not matches:
            raise ModelError(f"{'the joker' if card is None else card} is not on the felt")
        return matches[-1]

    # --- the shuffler -------------------------------------------------------------------

    def load_deck(self, order: Sequence[Card]) -> None:
        """The shuffler delivers a fresh deck in ``order`` (all 52 of the active deck). Every
        card must be back from the felt first."""
        if self._felt:
            raise ModelError(f"{len(self._felt)} card(s) still on the felt")
        if sorted(order, key=lambda c: c.index) != list(DECK):
            raise ModelError("a deck order must hold each of the 52 cards once")
        self._stub = [self._own[c] for c in order]
        for pc in self._stub:
            pc.zone, pc.face = SHUFFLER, Face.DOWN
        self._changed()

    def return_to_stub(self, cards: Iterable[PhysicalCard], *, rng: random.Random) -> None:
        """Cards go back into the stub, which is then reshuffled (rules.md §5: premature cards,
        extra board card, house four-card flop)."""
        for pc in list(cards):
            self._take_off_felt(pc)
            pc.zone, pc.face = SHUFFLER, Face.DOWN
            self._stub.append(pc)
        rng.shuffle(self._stub)
        self._changed()

    def put_back_on_top(self, cards: Sequence[PhysicalCard]) -> None:
        """Cards go back on top of the stub, the first of ``cards`` on top (a street dealt
        without a burn is taken back so it can be dealt again correctly)."""
        for pc in cards:
            self._take_off_felt(pc)
            pc.zone, pc.face = SHUFFLER, Face.DOWN
        self._stub[:0] = list(cards)
        self._changed()

    def gather(self) -> None:
        """The dealer sweeps every card on the felt back into the shuffler. Cards that are not
        the active deck's own (duplicates, foreign cards, jokers) leave the table."""
        for pc in list(self._felt):
            self._take_off_felt(pc)
            if pc.deck == ACTIVE_DECK and not pc.copy and not pc.joker:
                pc.zone, pc.face = SHUFFLER, Face.DOWN
                self._stub.append(pc)
            else:
                pc.zone = "gone"
        self._changed()

    def discard(self, pc: PhysicalCard) -> None:
        """A card leaves the table (a joker or a foreign card removed by the dealer)."""
        self._take_off_felt(pc)
        pc.zone = "gone"
        self._changed()

    # --- taking cards -------------------------------------------------------------------

    def draw_top(self) -> PhysicalCard:
        if not self._stub:
            raise ModelError("the shuffler is empty")
        return self._stub.pop(0)

    def draw(self, card: Card) -> PhysicalCard:
        """The active deck's own ``card``, taken out of the stub wherever it lies."""
        pc = self._own[card]
        if pc not in self._stub:
            raise ModelError(f"{card} is not in the shuffler (it is on the felt: {pc.zone})")
        self._stub.remove(pc)
        return pc

    def new_copy(self, card: Card) -> PhysicalCard:
        """A second ``card`` of the active deck with a tag of its own (a duplicate)."""
        self._serial += 1
        pc = PhysicalCard(uid=_uid(0xA1, card.index, self._serial), card=card,
                          deck=ACTIVE_DECK, copy=True)
        self.registry.enrol(pc)
        return pc

    def new_foreign(self, card: Card) -> PhysicalCard:
        """``card`` from the table's other deck (enrolled, not active)."""
        self._serial += 1
        pc = PhysicalCard(uid=_uid(0xB0, card.index, self._serial), card=card, deck=OTHER_DECK)
        self.registry.enrol(pc)
        return pc

    def new_joker(self) -> PhysicalCard:
        self._serial += 1
        pc = PhysicalCard(uid=_uid(0xA2, 0xFF, self._serial), card=None, deck=ACTIVE_DECK,
                          joker=True)
        self.registry.enrol(pc)
        return pc

    # --- moving cards on the felt ----------------------------------------------------------

    def place(self, pc: PhysicalCard, zone: str, face: Face) -> None:
        """A card taken from the shuffler (or brought in) lands in ``zone``."""
        if pc in self._felt:
            raise ModelError(f"{pc.label} is already on the felt ({pc.zone})")
        self._felt.append(pc)
        self._put(pc, zone, face)

    def move(self, pc: PhysicalCard, zone: str, face: Face | None = None) -> None:
        if pc not in self._felt:
            raise ModelError(f"{pc.label} is not on the felt")
        self._put(pc, zone, pc.face if face is None else face)

    def flip(self, pc: PhysicalCard) -> None:
        if pc not in self._felt:
            raise ModelError(f"{pc.label} is not on the felt")
        pc.face = Face.DOWN if pc.face is Face.UP else Face.UP
        self._changed()

    def _put(self, pc: PhysicalCard, zone: str, face: Face) -> None:
        check_zone(zone)
        if zone == SHUFFLER:
            raise ModelError("cards go back to the shuffler with gather or return_to_stub")
        if face is Face.UNKNOWN:
            raise ModelError("a card on the felt lies face up or face down")
        self._placements += 1
        pc.zone, pc.face, pc.placed = zone, face, self._placements
        self._changed()

    def _take_off_felt(self, pc: PhysicalCard) -> None:
        if pc not in self._felt:
            raise ModelError(f"{pc.label} is not on the felt")
        self._felt.remove(pc)

    def _changed(self) -> None:
        self.version += 1


def shuffled_deck(rng: random.Random, top: Sequence[Card] = ()) -> list[Card]:
    """A shuffled 52-card order whose first cards are ``top`` (scenario ``[deck] order``)."""
    rest = [c for c in DECK if c not in set(top)]
    rng.shuffle(rest)
    return list(top) + rest
