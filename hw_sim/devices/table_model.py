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

The tags go through the product's own deck registry (:class:`firmware_bridge.decks.DeckRegistry`,
an in-memory SQLite database): the active deck ``A`` and the other deck ``B`` are enrolled with 52
tags each, as ``table-controller deck enroll`` would; a copy is a second tag enrolled for a card
of deck ``A`` (``add_tag(..., replacement=True)``: a replaced card whose old tag was not retired),
a joker is a joker tag of deck ``A``, and a second foreign card of one face is a second tag of
deck ``B``. The RFID reader resolves UIDs against :attr:`TableModel.registry` exactly as at a
table.

Besides where each card lies, the model keeps what players and the dealer do with the cards
that moves none of them from its zone (the simulated table's *behaviours*, docs/simulator.md):
a card *lifted* off the felt (a player peeking: no antenna reads it while it is up), a seat's
cards *squared* (one lying on the other), and what *covers* a zone (a chip or a card
protector on a seat's cards, a hand over the zone). Only the camera sees the last two.

A deck can be short or over-full (scenario ``[deck] missing`` / ``extra``): missing cards are
not in the shuffler at all, extra cards are copies (second tags) that the shuffler holds with
the rest, hand after hand.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from firmware_bridge.decks import DeckRegistry, TagEntry
from table_controller.vocabulary.cards import DECK, Card
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import SHUFFLER, check_zone

ACTIVE_DECK = "A"
OTHER_DECK = "B"
GONE = "gone"  # a card that is off the table (discarded, or the other deck in its box)
_ISO15693 = 0xE0  # first (most significant) byte of every ISO 15693 UID
_NXP = 0x04       # its manufacturer byte for NXP ICODE tags, the common casino inlay
_ICODE_SLIX = 0x01


COVERS = ("chip", "protector", "hand")
"""What can lie over a zone's cards: a chip or a card protector (on a seat's cards, as players
protect their hands), a hand (a player's or the dealer's, reaching over the zone)."""


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
    lifted: bool = False  # held up off the felt (a player peeking): no antenna reads it

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


def _uid(deck_byte: int, index: int, serial: int) -> bytes:
    """An ISO 15693 UID (E0, manufacturer, product, then a serial number whose low bits, which
    the readers' anticollision splits on, vary from tag to tag as real serials do)."""
    mix = (index * 0x9D + deck_byte * 0x3B + serial * 0x2F) & 0xFF
    return bytes((_ISO15693, _NXP, _ICODE_SLIX, deck_byte, (serial >> 8) & 0xFF, serial & 0xFF,
                  index & 0xFF, mix))


class TableModel:
    """Where every physical card is. Every change bumps :attr:`version`, so sensors that poll
    the model (the virtual RFID controller, the camera) know when to look again."""

    def __init__(self, *, missing: Iterable[Card] = (), extra: Iterable[Card] = ()) -> None:
        self.registry = DeckRegistry.open(":memory:")
        self.active_deck = ACTIVE_DECK
        self.version = 0
        self._serial = 0
        self._placements = 0
        # Both decks' own 52 cards, one tag each, enrolled like real decks (rules.md §1: two
        # decks alternate at a table; the first enrolled is the active one).
        self._own = {c: PhysicalCard(uid=_uid(0xA0, c.index, 0), card=c, deck=ACTIVE_DECK)
                     for c in DECK}
        self._other = {c: PhysicalCard(uid=_uid(0xB0, c.index, 0), card=c, deck=OTHER_DECK,
                                       zone=GONE) for c in DECK}
        for name, cards in ((ACTIVE_DECK, self._own), (OTHER_DECK, self._other)):
            self.registry.enroll(name, [TagEntry(uid=pc.uid, card=c) for c, pc in cards.items()])
        # What the shuffler holds: the deck less its lost cards, plus any extra copies.
        lost = set(missing)
        self._deck = [self._own[c] for c in DECK if c not in lost]
        self._deck += [self.new_copy(c) for c in extra]
        self._stub: list[PhysicalCard] = list(self._deck)
        self._felt: list[PhysicalCard] = []
        self._dropped: list[PhysicalCard] = []  # fallen off the table (drop_from_stub)
        self._covers: dict[str, tuple[str, ...]] = {}
        self._squared: set[str] = set()

    # --- what is where ------------------------------------------------------------------

    @property
    def stub(self) -> list[PhysicalCard]:
        """The cards in the shuffler, top first (a copy: changing it changes nothing)."""
        return list(self._stub)

    @property
    def felt(self) -> list[PhysicalCard]:
        """The cards on the felt, in the order they were placed."""
        return sorted(self._felt, key=lambda c: c.placed)

    @property
    def dropped(self) -> list[PhysicalCard]:
        """The deck's cards lying off the table (:meth:`drop_from_stub`), until gathered."""
        return list(self._dropped)

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

    @property
    def covers(self) -> dict[str, tuple[str, ...]]:
        """Zone -> what lies over its cards (:data:`COVERS`), for the zones something covers."""
        return dict(self._covers)

    def squared(self, zone: str) -> bool:
        """The cards of ``zone`` lie squared, one on the other."""
        return zone in self._squared

    # --- behaviours: nothing leaves its zone --------------------------------------------

    def lift(self, cards: Iterable[PhysicalCard], up: bool = True) -> None:
        """Cards on the felt are held up off it (``up``) or laid down again."""
        cards = list(cards)
        for pc in cards:
            if pc not in self._felt:
                raise ModelError(f"{pc.label} is not on the felt")
        for pc in cards:
            pc.lifted = up
        self._changed()

    def cover(self, zone: str, what: str) -> None:
        """``what`` (:data:`COVERS`) comes to lie over ``zone``'s cards."""
        check_zone(zone)
        if what not in COVERS:
            raise ModelError(f"{what!r} is not one of {', '.join(COVERS)}")
        if what not in self._covers.get(zone, ()):
            self._covers[zone] = (*self._covers.get(zone, ()), what)
            self._changed()

    def uncover(self, zone: str, what: str | None = None) -> None:
        """``what`` (None: everything) is taken off ``zone``."""
        left = tuple(w for w in self._covers.get(zone, ()) if what is not None and w != what)
        if left != self._covers.get(zone, ()):
            if left:
                self._covers[zone] = left
            else:
                self._covers.pop(zone, None)
            self._changed()

    def square(self, zone: str) -> None:
        """The cards of ``zone`` are squared, one on the other (until one of them moves)."""
        if len(self.in_zone(zone)) < 2:
            raise ModelError(f"{zone} has {len(self.in_zone(zone))} card(s): nothing to square")
        self._squared.add(zone)
        self._changed()

    # --- the shuffler -------------------------------------------------------------------

    def deck_faces(self) -> list[Card]:
        """The faces of the cards the shuffler holds between hands, in deck order (52 unless
        the deck is short or over-full)."""
        return sorted((c for pc in self._deck if (c := pc.card) is not None),
                      key=lambda c: c.index)

    def load_deck(self, order: Sequence[Card]) -> None:
        """The shuffler delivers a fresh deck in ``order`` (every card of :meth:`deck_faces`
        once). Every card must be back from the felt first."""
        if self._felt:
            raise ModelError(f"{len(self._felt)} card(s) still on the felt")
        if Counter(order) != Counter(self.deck_faces()):
            raise ModelError(f"a deck order must hold each of the deck's "
                             f"{len(self._deck)} cards once")
        pool: dict[Card, list[PhysicalCard]] = {}
        for pc in self._deck:
            if pc.card is not None:
                pool.setdefault(pc.card, []).append(pc)
        self._stub = [pool[c].pop(0) for c in order]
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
        part of the deck (duplicates brought in, foreign cards, jokers) leave the table; the
        deck's own extra copies (``[deck] extra``) stay with it."""
        for pc in list(self._felt):
            self._take_off_felt(pc)
            if pc in self._deck:
                pc.zone, pc.face = SHUFFLER, Face.DOWN
                self._stub.append(pc)
            else:
                pc.zone = GONE
        for pc in self._dropped:  # picked up from the floor
            pc.zone, pc.face = SHUFFLER, Face.DOWN
            self._stub.append(pc)
        self._dropped.clear()
        self._covers.clear()
        self._squared.clear()
        self._changed()

    def discard(self, pc: PhysicalCard) -> None:
        """A card leaves the table (a joker or a foreign card removed by the dealer)."""
        self._take_off_felt(pc)
        pc.zone = GONE
        self._changed()

    def drop_from_stub(self, pc: PhysicalCard) -> None:
        """``pc`` falls out of the stub and off the table (to the floor): the shuffler holds one
        card less for the rest of the hand. The dealer picks it up when he gathers the cards
        (:meth:`gather`)."""
        self.take_from_stub(pc)
        pc.zone, pc.face = GONE, Face.DOWN
        self._dropped.append(pc)
        self._changed()

    def take_from_stub(self, pc: PhysicalCard) -> PhysicalCard:
        """``pc`` is lifted out of the stub wherever it lies (to be placed on the felt)."""
        if pc not in self._stub:
            raise ModelError(f"{pc.label} is not in the shuffler")
        self._stub.remove(pc)
        return pc

    def face_up_on_stub(self, pc: PhysicalCard) -> None:
        """``pc`` lies face up on top of the stub (a card found face up in the deck). A card
        brought in (a copy, a foreign card, a joker) joins the stub there."""
        if pc in self._felt:
            raise ModelError(f"{pc.label} is on the felt ({pc.zone}), not in the shuffler")
        if pc in self._stub:
            self._stub.remove(pc)
        self._stub.insert(0, pc)
        pc.zone, pc.face = SHUFFLER, Face.UP
        self._changed()

    # --- taking cards -------------------------------------------------------------------

    def draw_top(self) -> PhysicalCard:
        if not self._stub:
            raise ModelError("the shuffler is empty")
        return self._stub.pop(0)

    def find_in_stub(self, card: Card) -> PhysicalCard:
        """The first card with that face in the stub (the deck's own before an extra copy)."""
        for pc in self._stub:
            if pc.card == card and not pc.joker:
                return pc
        where = self._own[card].zone
        raise ModelError(f"{card} is not in the shuffler (it is "
                         + ("off the table)" if where == GONE else f"on the felt: {where})"))

    def draw(self, card: Card) -> PhysicalCard:
        """A card with that face taken out of the stub wherever it lies."""
        pc = self.find_in_stub(card)
        self._stub.remove(pc)
        return pc

    def new_copy(self, card: Card) -> PhysicalCard:
        """A second ``card`` of the active deck with a tag of its own (a duplicate): in the
        registry a second tag of that card (a replaced card whose old tag was not retired)."""
        self._serial += 1
        pc = PhysicalCard(uid=_uid(0xA1, card.index, self._serial), card=card,
                          deck=ACTIVE_DECK, copy=True)
        self.registry.add_tag(ACTIVE_DECK, pc.uid, card, replacement=True)
        return pc

    def new_foreign(self, card: Card) -> PhysicalCard:
        """``card`` from the table's other deck (enrolled, not active): that deck's own card
        while it is off the table, else another card of that face with a second tag."""
        own = self._other[card]
        if own.zone == GONE:
            own.face, own.placed = Face.DOWN, 0
            return own
        self._serial += 1
        pc = PhysicalCard(uid=_uid(0xB1, card.index, self._serial), card=card, deck=OTHER_DECK)
        self.registry.add_tag(OTHER_DECK, pc.uid, card, replacement=True)
        return pc

    def new_joker(self) -> PhysicalCard:
        """A joker of the active deck, enrolled as a joker tag."""
        self._serial += 1
        pc = PhysicalCard(uid=_uid(0xA2, 0xFF, self._serial), card=None, deck=ACTIVE_DECK,
                          joker=True)
        self.registry.add_tag(ACTIVE_DECK, pc.uid, None)
        return pc

    def close(self) -> None:
        """Close the deck registry's database."""
        self.registry.close()

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
        self._squared.discard(pc.zone)  # turned over, they lie apart
        self._changed()

    def _put(self, pc: PhysicalCard, zone: str, face: Face) -> None:
        check_zone(zone)
        if zone == SHUFFLER:
            raise ModelError("cards go back to the shuffler with gather or return_to_stub")
        if face is Face.UNKNOWN:
            raise ModelError("a card on the felt lies face up or face down")
        self._placements += 1
        self._squared.discard(pc.zone)
        self._squared.discard(zone)
        pc.zone, pc.face, pc.placed, pc.lifted = zone, face, self._placements, False
        self._changed()

    def _take_off_felt(self, pc: PhysicalCard) -> None:
        if pc not in self._felt:
            raise ModelError(f"{pc.label} is not on the felt")
        self._felt.remove(pc)
        self._squared.discard(pc.zone)
        pc.lifted = False

    def _changed(self) -> None:
        self.version += 1


def shuffled_deck(rng: random.Random, top: Sequence[Card] = (),
                  deck: Sequence[Card] = DECK) -> list[Card]:
    """A shuffled order of ``deck`` (52 cards, or :meth:`TableModel.deck_faces`) whose first
    cards are ``top`` (scenario ``[deck] order``)."""
    rest = list(deck)
    for c in top:
        if c not in rest:
            raise ModelError(f"{c} is not in the deck")
        rest.remove(c)
    rng.shuffle(rest)
    return list(top) + rest
