"""How the simulated dealer makes each error of :mod:`hw_sim.harness.dealer_errors`.

Every error is made of the steps a scenario file holds (``card``, ``deal``, ``green_button``,
``button``), performed through the runner of continuous play (:class:`Hands`), so the sensors
see it as they see a scenario. Each function makes the error of its moment in the hand if it
can (a kind that needs an empty seat at a full table cannot) and returns whether it did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from hw_sim.harness.dealer_errors import ErrorKind
from hw_sim.harness.runner import ScenarioRunner
from hw_sim.harness.scenario import (
    ButtonReport,
    Deal,
    PlaceCard,
    PressGreenButton,
    Step,
)
from table_controller.engine import Hand
from table_controller.monitor import DealingMonitor
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.zones import BOARD, BURN, SHUFFLER, seat_zone

STUB_REMOVAL_SETTLE = 4.0
"""Simulated seconds the table is left still after a card left the stub, before the button."""


class Hands(Protocol):
    """What the injection needs of continuous play: its runner, the controller's monitor, a way
    to perform a step (and to answer the alerts it raised)."""

    runner: ScenarioRunner

    @property
    def monitor(self) -> DealingMonitor: ...

    def do(self, make: Callable[[int], Step], *, answer: bool = True) -> None: ...

    def answer_alerts(self) -> None: ...


def _place(hands: Hands, zone: str, face: str, *, answer: bool = True, card: Card | None = None,
           joker: bool = False, copy: bool = False, foreign: bool = False) -> None:
    """A card from the deck (the top one unless ``card`` names it) to ``zone``."""
    hands.do(lambda n: PlaceCard(n, card, joker, zone, face, copy=copy, foreign=foreign),
             answer=answer)


def before_hand(kind: ErrorKind, hands: Hands) -> bool:
    """Before the green button. ``card_without_hand``: a card to seat 1, then gathered back;
    ``card_off_table``: the shuffler's fresh deck loses a card (it is found again before the
    next deck)."""
    table = hands.runner.table
    if kind.name == "card_without_hand":
        _place(hands, seat_zone(1), "down")
        table.dealer.collect()
        hands.runner.settle()
        return True
    if kind.name == "card_off_table":
        table.prepare_deck()
        stub = table.model.stub
        if not stub:
            return False
        table.model.drop_from_stub(stub[len(stub) // 2])
        # the tray antenna reads the whole stub each scan: a tag missing from it is reported
        # gone only after a few scans and the reader's hold time (1.9 s measured in the
        # simulator); the dealer presses the button after that
        hands.runner.settle(STUB_REMOVAL_SETTLE)
        return True
    return False


def deal(kind: ErrorKind, hands: Hands) -> bool:
    """Instead of the correct hole deal: True if the deal was made with the error."""
    order = list(hands.monitor.deal_order())
    rounds = order * 2
    name = kind.name
    if name == "wrong_first_seat" and len(order) > 1:
        _place(hands, seat_zone(order[1]), "down")
        return True
    if name == "exposed_first_card":
        _place(hands, seat_zone(order[0]), "up")
        return True
    if name == "exposed_card" and len(order) >= 2:
        # [000] [003]: the dealer finishes the deal before the remedy is carried out
        for i, seat in enumerate(rounds):
            _place(hands, seat_zone(seat), "up" if i == 2 else "down", answer=False)
        hands.answer_alerts()
        return True
    if name == "multiple_exposed" and len(order) >= 3:
        for i, seat in enumerate(rounds[:5]):
            _place(hands, seat_zone(seat), "up" if i in (2, 4) else "down", answer=False)
        hands.answer_alerts()
        return True
    if name == "empty_seat":
        seated = set(hands.monitor.table.stacks)
        empty = [s for s in range(1, hands.runner.scenario.table.seats + 1) if s not in seated]
        if not empty:
            return False
        _place(hands, seat_zone(order[0]), "down")
        _place(hands, seat_zone(empty[0]), "down")
        return True
    if name == "out_of_order" and len(order) >= 4:
        _place(hands, seat_zone(order[0]), "down")
        _place(hands, seat_zone(order[2]), "down")
        return True
    if name == "short_deal":
        for seat in rounds[:-1]:
            _place(hands, seat_zone(seat), "down", answer=False)
        return True
    if name == "extra_card":
        hands.do(lambda n: Deal(n, "hole"))
        _place(hands, seat_zone(order[0]), "down")
        return True
    return False


def after_deal(kind: ErrorKind, hands: Hands) -> bool:
    """After the hole deal, before the first action."""
    hand = hands.monitor.hand
    if hand is None:
        return False
    if kind.name == "button_position":
        seats = sorted(hands.monitor.table.stacks)
        if hand.button not in seats:
            return False
        wrong = seats[(seats.index(hand.button) + 1) % len(seats)]
        hands.do(lambda n: ButtonReport(n, wrong))
        return True
    if kind.name == "face_up_in_deck" and hands.runner.table.model.stub:
        _place(hands, SHUFFLER, "up")
        return True
    return False


def before_action(kind: ErrorKind, hands: Hands, hand: Hand, street: str, actions: int) -> bool:
    """During a betting round, before the next action (``actions`` made in it so far)."""
    name = kind.name
    preflop = street == "preflop" and hand.street.value == "preflop"
    if name == "green_button_during_hand" and preflop and actions == 0:
        hands.do(lambda n: PressGreenButton(n))
        return True
    if name == "card_after_action" and preflop and actions >= 3 and hand.to_act is not None:
        # [002 #32] TDA 36: three actions are substantial; the third card goes to a live player
        _place(hands, seat_zone(hand.to_act), "down")
        return True
    if name == "premature_flop" and preflop and (hand.legal_actions().can_check
                                                  or actions >= 3):
        # the big blind's option is pending, or three players have acted and more are to act:
        # a flop dealt now is premature ([003], TDA RP-5)
        hands.do(lambda n: Deal(n, "flop"))
        return True
    if name == "premature_turn" and street == "flop" and actions == 0:
        hands.do(lambda n: Deal(n, "turn"))
        return True
    return False


def flop(kind: ErrorKind, hands: Hands) -> bool:
    """The flop with the error: True if the flop was dealt."""
    model = hands.runner.table.model
    if kind.name == "four_card_flop":
        hands.do(lambda n: Deal(n, "flop"))
        _place(hands, BOARD, "up")
        return True
    if kind.name == "missing_burn_flop":
        for _ in range(3):
            _place(hands, BOARD, "up")
        return True
    if kind.name == "duplicate":
        hole = model.in_zone(seat_zone(hands.monitor.deal_order()[0]))
        card = hole[0].card if hole else None
        if card is None:
            return False
        _place(hands, BURN, "down")
        _place(hands, BOARD, "up", card=card, copy=True)
        return True
    return False


def turn(kind: ErrorKind, hands: Hands) -> bool:
    """The turn with the error: True if the turn was dealt."""
    model = hands.runner.table.model
    name = kind.name
    if name == "missing_burn":
        _place(hands, BOARD, "up")
        return True
    if name == "extra_board_card":
        hands.do(lambda n: Deal(n, "turn"))
        _place(hands, BOARD, "up")
        return True
    if name == "duplicate_board":
        board = [pc.card for pc in model.in_zone(BOARD) if pc.card is not None]
        if not board:
            return False
        _place(hands, BURN, "down")
        _place(hands, BOARD, "up", card=board[0], copy=True)
        return True
    if name == "foreign_card":
        stub = [pc.card for pc in model.stub if pc.card is not None]
        if not stub:
            return False
        _place(hands, BURN, "down")
        _place(hands, BOARD, "up", card=stub[-1], foreign=True)
        return True
    if name == "joker":
        _place(hands, BURN, "down")
        _place(hands, BOARD, "up", joker=True)
        return True
    return False
