"""The simulated dealer: deals by the procedure and carries out the controller's remedies.

Procedure (rules.md §2 and §5; [000], [002 #30]):

- hole cards: one at a time, face down, clockwise from the first seat to be dealt (the small
  blind; heads-up the big blind), two rounds, the button last. The order comes from the hand's
  ``deal_order``;
- flop / turn / river: one burn card face down to the burn pile, then three / one / one card
  face up to the board. When a remedy has already put the next street's burn card on the pile
  (an exposed card replaced [000] [003], an extra card [003], the TDA four-card flop [002 #33],
  premature cards whose burn stays (TDA RP-5)), the street is dealt with no new burn.

Every card is a separate physical move: after each one the dealer calls ``after_move`` so the
simulator can let the sensors see it before the next card comes, as on a real table.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from hw_sim.devices.table_model import ModelError, PhysicalCard, TableModel
from table_controller.vocabulary.alerts import Alert, Severity
from table_controller.vocabulary.cards import Card, parse_card
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import BOARD, BURN, MUCK, seat_zone

STREET_CARDS = {"flop": 3, "turn": 1, "river": 1}
_BURN_IN_REMEDY = re.compile(r"\b([2-9TJQKA][shdc]) is the burn card")


class DealerError(ValueError):
    """The dealer cannot do what was asked (the card is not there, nothing to resolve...)."""


class Dealer:
    """Moves cards on a :class:`TableModel`. ``rng`` reshuffles the stub when a remedy says so.
    ``after_move`` is called after every single card movement."""

    def __init__(self, model: TableModel, *, rng: random.Random,
                 after_move: Callable[[], None] = lambda: None) -> None:
        self.model = model
        self.rng = rng
        self.after_move = after_move
        self.burn_ready = False  # the next street's burn card is already on the burn pile

    # --- one card at a time -------------------------------------------------------------

    def put(self, pc: PhysicalCard, zone: str, face: Face) -> None:
        self.model.place(pc, zone, face)
        if zone == BOARD:
            self.burn_ready = False
        self.after_move()

    def move(self, pc: PhysicalCard, zone: str, face: Face | None = None) -> None:
        self.model.move(pc, zone, face)
        self.after_move()

    def flip(self, pc: PhysicalCard) -> None:
        self.model.flip(pc)
        self.after_move()

    def face_up_on_stub(self, pc: PhysicalCard) -> None:
        """``pc`` lies face up on top of the stub (scenario ``card ... to = "shuffler"``)."""
        self.model.face_up_on_stub(pc)
        self.after_move()

    # --- the procedure ------------------------------------------------------------------

    def new_hand(self, order: Sequence[Card]) -> None:
        """The shuffler delivers a fresh deck for a new hand."""
        self.model.load_deck(order)
        self.burn_ready = False

    def deal_hole(self, deal_order: Sequence[int]) -> None:
        """Two rounds, one card at a time, face down, in ``deal_order`` ([000], [002 #30])."""
        if not deal_order:
            raise DealerError("no seat to deal to")
        for _round in range(2):
            for seat in deal_order:
                self.put(self._top(), seat_zone(seat), Face.DOWN)

    def deal_street(self, street: str) -> None:
        """Burn one card (unless a remedy already put it there), then the street face up."""
        if street not in STREET_CARDS:
            raise DealerError(f"not a street: {street!r}")
        if not self.burn_ready:
            self.put(self._top(), BURN, Face.DOWN)
        for _ in range(STREET_CARDS[street]):
            self.put(self._top(), BOARD, Face.UP)

    def show(self, seat: int) -> None:
        """The player at ``seat`` turns his cards face up (showdown), taking off what lay on
        them (a chip, a card protector)."""
        self.model.uncover(seat_zone(seat))
        for pc in self.model.in_zone(seat_zone(seat)):
            if pc.face is Face.DOWN:
                self.flip(pc)

    def collect(self) -> None:
        """Every card on the felt (and any fallen off the table) goes back into the shuffler
        (end of hand, misdeal)."""
        if self.model.felt or self.model.dropped:
            self.model.gather()
            self.after_move()
        self.burn_ready = False

    # --- remedies -----------------------------------------------------------------------

    def carry_out(self, alert: Alert, *, rules: str) -> None:
        """Do what the controller's remedy for ``alert`` says (alerts.md, rules.md §5)."""
        code = alert.code
        if alert.severity is Severity.STOP and code != "FOREIGN_CARD":
            # misdeal, duplicate card, wrong button: the hand is void, cards are collected
            self.collect()
        elif code == "FOREIGN_CARD":
            self._foreign(alert)
        elif code == "FOUR_CARD_FLOP":
            self._four_card_flop(alert, rules=rules)
        elif code in ("EXPOSED_CARD_REPLACE", "EXTRA_CARD_BURN"):
            self._to_burn(alert, replace=code == "EXPOSED_CARD_REPLACE")
        elif code in ("PREMATURE_BOARD_CARD", "EXTRA_BOARD_CARD"):
            self._back_to_stub(alert, keep_burn=code == "PREMATURE_BOARD_CARD")
        elif code == "MISSING_BURN":
            self._missing_burn(alert)
        elif code == "JOKER":
            self._replace_joker()
        elif code == "FACE_UP_IN_DECK":
            self._discard_face_up()
        # warn / info / fault alerts need no card to move: the floor acknowledges them

    def _foreign(self, alert: Alert) -> None:
        """[000] [003]: remove the foreign card; if it reached a hand the hand is void."""
        foreign = [pc for pc in self.model.felt if pc.deck != self.model.active_deck]
        if any(pc.zone.startswith("seat") for pc in foreign) or "void" in alert.remedy.lower():
            self.collect()
            return
        for pc in foreign:
            self.model.discard(pc)
            self.after_move()

    def _four_card_flop(self, alert: Alert, *, rules: str) -> None:
        board = self.model.in_zone(BOARD)
        if rules == "house":
            # [000]: the stub is reshuffled without hole cards and burn, a new flop is dealt
            self.model.return_to_stub(board, rng=self.rng)
            self.after_move()
            for _ in range(3):
                self.put(self._top(), BOARD, Face.UP)
            return
        # TDA 39-A [002 #33]: all four face down, the controller's pick is the turn's burn card
        burn = _named_burn(alert)
        if burn is None:
            raise DealerError("FOUR_CARD_FLOP: the controller did not name the burn card "
                              f"(remedy: {alert.remedy!r})")
        chosen = self._on_felt(burn)
        self.move(chosen, BURN, Face.DOWN)
        self.burn_ready = True

    def _to_burn(self, alert: Alert, *, replace: bool) -> None:
        """[000] [003]: the exposed (or extra) card becomes the burn card; an exposed card is
        replaced from the top of the deck."""
        if not alert.cards:
            raise DealerError(f"{alert.code}: the alert names no card")
        pc = self._on_felt(alert.cards[0])
        seat_zone_name = pc.zone
        self.move(pc, BURN, Face.DOWN)
        if replace:
            self.put(self._top(), seat_zone_name, Face.DOWN)
        self.burn_ready = True

    def _back_to_stub(self, alert: Alert, *, keep_burn: bool) -> None:
        """[003], TDA RP-5: the premature or extra board cards go back into the stub, which is
        reshuffled; for premature cards the burn already dealt stays."""
        board = self.model.in_zone(BOARD)
        named = [pc for pc in board if pc.card in alert.cards]
        cards = named or board[-1:]
        if not cards:
            raise DealerError(f"{alert.code}: no card on the board to take back")
        self.model.return_to_stub(cards, rng=self.rng)
        self.after_move()
        if keep_burn and self.model.in_zone(BURN):
            self.burn_ready = True

    def _missing_burn(self, alert: Alert) -> None:
        """TDA 39-B: before any action the street is taken back and dealt again with a burn."""
        board = self.model.in_zone(BOARD)
        street = [pc for pc in board if pc.card in alert.cards] or board[-1:]
        self.model.put_back_on_top(street)
        self.after_move()
        self.put(self._top(), BURN, Face.DOWN)
        for _ in street:
            self.put(self._top(), BOARD, Face.UP)

    def _discard_face_up(self) -> None:
        """[003]: a card found face up in the stub is discarded (to the muck, face down); the
        deal goes on with the next card."""
        face_up = [pc for pc in self.model.stub if pc.face is Face.UP]
        if not face_up:
            raise DealerError("FACE_UP_IN_DECK: no card lies face up in the stub")
        for pc in face_up:
            self.put(self.model.take_from_stub(pc), MUCK, Face.DOWN)

    def _replace_joker(self) -> None:
        """[003]: the joker is discarded and replaced by the next card."""
        joker = self.model.find_on_felt(None)
        zone, face = joker.zone, joker.face
        self.model.discard(joker)
        self.after_move()
        self.put(self._top(), zone, face)

    # --- helpers ------------------------------------------------------------------------

    def _top(self) -> PhysicalCard:
        try:
            return self.model.draw_top()
        except ModelError as exc:
            raise DealerError(str(exc)) from None

    def _on_felt(self, card: Card) -> PhysicalCard:
        try:
            return self.model.find_on_felt(card)
        except ModelError as exc:
            raise DealerError(str(exc)) from None


def _named_burn(alert: Alert) -> Card | None:
    """The burn card the controller chose: ``extra["burn"]`` if given, else the remedy text
    ("... Jc is the burn card", alerts.md)."""
    value = alert.extra.get("burn") or alert.extra.get("burn_card")
    if isinstance(value, Card):
        return value
    if isinstance(value, str):
        return parse_card(value)
    m = _BURN_IN_REMEDY.search(alert.remedy)
    return parse_card(m.group(1)) if m else None
