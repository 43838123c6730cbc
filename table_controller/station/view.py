"""The station's view of the table: one plain JSON-ready object built from the controller's
public state on its loop thread after each step (docs/station.md lists every field).

It never carries a hole card: a card lying face down on a seat is a back, and an alert names a
hole card "seat 3's card". Cards face up on a seat (exposed, turned up, shown) are public, as
on the bus's public channel (docs/running.md).

Sources of what is shown: seats, stacks, bets, pots, board, button and blinds come from the
engine's :class:`~table_controller.engine.Hand` and :class:`~table_controller.engine.Table`; the
cards on the felt from the monitor's card picture (what the sensors see); the legal actions
with their amounts from the engine (rules.md §3: minimum bet and raise, pot-limit maximum,
fixed-limit sizes); the showdown order from the engine (rules.md §4, TDA 17 [002 #12]).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from table_controller.engine import (
    ActionTaken,
    CardsMucked,
    CardsShown,
    EngineError,
    Hand,
    HandResult,
    LegalActions,
    Street,
    Structure,
    TimeExpired,
)
from table_controller.engine.pots import build_pots
from table_controller.monitor import HandEnd
from table_controller.station.alerts import present
from table_controller.station.undo import describe
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import BOARD, BURN, MUCK, SHUFFLER, seat_of, seat_zone

if TYPE_CHECKING:
    from table_controller.daemon.controller import Controller
    from table_controller.station.desk import Desk

GAMES = {Structure.NO_LIMIT: "No limit", Structure.POT_LIMIT: "Pot limit",
         Structure.FIXED_LIMIT: "Fixed limit"}


@dataclass(slots=True)
class Facts:
    """What the view needs besides the controller: the station's desk, whether this is the
    simulated table, the result of the last hand (kept from its end to the next hand's start),
    and the hand as it will be once the street on the felt is handed to the engine."""

    desk: Desk
    sim: bool
    last_hand: dict[str, Any] | None = None
    ahead_key: tuple[Any, ...] | None = None
    ahead: Hand | None = None


def hand_ahead(controller: Controller, hand: Hand, facts: Facts) -> Hand:
    """The hand with the street lying complete on the board already dealt to it. The monitor
    hands a street to the engine only at the next action (it may still be corrected until
    then: docs/monitor.md), but the dealer must see who acts first on it and what he may do;
    the action itself goes through the monitor, which deals the street first. A copy: the
    live hand is not touched."""
    run = controller.monitor.run
    if run is None or run.halted is not None or hand.result is not None \
            or not hand.betting_complete or not run.board.full:
        return hand
    picture = controller.monitor.fusion.picture
    cards = [tc.card for pid in run.board.street
             if (tc := picture.get(pid)) is not None and tc.card is not None]
    if len(cards) != len(run.board.street):
        return hand
    key = (id(hand), len(hand.log), tuple(cards))
    if facts.ahead_key != key:
        facts.ahead_key, facts.ahead = key, None
        preview = copy.deepcopy(hand)
        try:
            preview.deal_board(cards)
        except EngineError:
            preview = hand  # the engine refuses the street: the monitor will say why
        facts.ahead = preview
    return facts.ahead or hand


def blinds_of(config: Any) -> dict[str, Any]:
    return {"small_blind": config.small_blind, "big_blind": config.big_blind,
            "ante": config.ante, "small_bet": config.small_bet_size,
            "big_bet": config.big_bet_size, "game": GAMES[config.structure]}


def hidden_cards(controller: Controller) -> dict[str, int | None]:
    """Every hole card now (``As``) -> the seat holding it, where the sensors or the engine
    know it."""
    hidden = {str(c) for c in controller.monitor.secret_cards()}
    hand = controller.monitor.hand
    where: dict[str, int] = {}
    if hand is not None:
        for holder, cards in hand.hole_cards.items():
            for c in cards:
                where[str(c)] = holder
                hidden.add(str(c))
    for tc in controller.monitor.fusion.picture:
        seat = seat_of(tc.zone)
        if seat is not None and tc.card is not None:
            where.setdefault(str(tc.card), seat)
    hidden -= _shown_on_seats(controller)
    return {c: where.get(c) for c in sorted(hidden)}


def _shown_on_seats(controller: Controller) -> set[str]:
    return {str(tc.card) for tc in controller.monitor.fusion.picture
            if seat_of(tc.zone) is not None and tc.card is not None
            and tc.face is Face.UP}


def _cards_in(controller: Controller, zone: str, hidden: Mapping[str, Any]
              ) -> list[dict[str, Any]]:
    """The cards lying in ``zone``: a seat's cards are backs unless a sensor saw them face up
    (the RFID reader sees no face); board cards are dealt face up, so a known one is shown
    unless the camera saw it face down."""
    board = zone == BOARD
    out: list[dict[str, Any]] = []
    for tc in controller.monitor.fusion.picture.in_zone(zone):
        up = tc.face is Face.UP or (board and tc.face is not Face.DOWN)
        if tc.joker:
            out.append({"joker": True} if up else {"back": True})
        elif up and tc.card is not None and str(tc.card) not in hidden:
            out.append({"card": str(tc.card)})
        else:
            out.append({"back": True})
    return out


def quick_amounts(legal: LegalActions, hand: Hand, structure: Structure
                  ) -> list[dict[str, Any]]:
    """Amounts a tap away: the minimum, half the pot, three quarters, the pot, all-in, each
    within the engine's range ("to" totals; the pot counts the call, rules.md §3)."""
    low = legal.min_raise_to if legal.can_raise else legal.min_bet_to
    high = legal.max_raise_to if legal.can_raise else legal.max_bet_to
    if low is None or high is None:
        return []
    if structure is Structure.FIXED_LIMIT:
        return [{"label": "fixed", "amount": low}]
    to_call = legal.call_amount or 0
    current = legal.bet + to_call
    after_call = hand.pot + to_call
    out = [{"label": "min", "amount": low}]
    for label, num, den in (("½ pot", 1, 2), ("¾ pot", 3, 4), ("pot", 1, 1)):
        amount = current + after_call * num // den
        if low < amount < high:
            out.append({"label": label, "amount": amount})
    out.append({"label": "max" if structure is Structure.POT_LIMIT else "all-in",
                "amount": high})
    unique: list[dict[str, Any]] = []
    for q in out:
        if all(u["amount"] != q["amount"] for u in unique):
            unique.append(q)
    return unique


def _legal(hand: Hand, controller: Controller) -> dict[str, Any] | None:
    seat = hand.to_act
    if seat is None or controller.monitor.halted is not None:
        return None
    legal = hand.legal_actions(seat)
    structure = hand.config.structure
    return {
        "seat": seat, "fold": legal.can_fold, "check": legal.can_check,
        "call": legal.call_amount,
        "bet": None if not legal.can_bet else {"min": legal.min_bet_to, "max": legal.max_bet_to},
        "raise": None if not legal.can_raise else {"min": legal.min_raise_to,
                                                   "max": legal.max_raise_to},
        "all_in": legal.all_in_to, "stack": legal.stack, "bet_now": legal.bet,
        "reason_no_raise": legal.reason_no_raise,
        "quick": quick_amounts(legal, hand, structure),
    }


def _actions(hand: Hand) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, rec in enumerate(hand.log):
        if isinstance(rec, ActionTaken) and not (i and isinstance(hand.log[i - 1], TimeExpired)):
            out.append({"street": rec.street.value, "seat": rec.seat, "kind": rec.kind.value,
                        "to": rec.to, "added": rec.added, "all_in": rec.all_in,
                        "text": describe(rec)})
        elif isinstance(rec, TimeExpired):
            out.append({"street": rec.street.value, "seat": rec.seat, "kind": "time_expired",
                        "to": None, "added": 0, "all_in": False, "text": describe(rec)})
    return out


def _hand(hand: Hand, ahead: Hand, controller: Controller, hidden: Mapping[str, Any]
          ) -> dict[str, Any]:
    # The pots in the middle: what is not in front of the players this round (rules.md §4).
    bets = hand.bets
    middle = build_pots({s: c - bets.get(s, 0) for s, c in hand.contributions.items()},
                        hand.live_seats)
    return {
        "number": hand.number, "street": ahead.street.value, "button": hand.button,
        "small_blind": hand.small_blind_seat, "big_blind": hand.big_blind_seat,
        "straddle": hand.straddle_seat, "to_act": ahead.to_act,
        "halted": controller.monitor.halted,
        "pot": hand.pot, "pots": [{"amount": p.amount, "eligible": list(p.eligible)}
                                  for p in middle],
        "board": _cards_in(controller, BOARD, hidden),
        "burn": len(controller.monitor.fusion.picture.in_zone(BURN)),
        "muck": len(controller.monitor.fusion.picture.in_zone(MUCK)),
        "deal_order": list(hand.deal_order),
        "betting_complete": ahead.betting_complete,
        "showdown_order": (hand.showdown_order() if hand.street is Street.SHOWDOWN else None),
        "actions": _actions(hand),
    }


def hand_result(hand: Hand | None, end: HandEnd, unit: int) -> dict[str, Any]:
    """The end of a hand as the station shows it: who was paid what from which pot, the odd
    chips (rules.md §4 [002 #16]), the hands shown, the uncalled bets returned."""
    result: HandResult | None = end.result
    out: dict[str, Any] = {"number": end.number, "voided": end.voided, "cause": end.cause,
                           "stacks": {str(s): v for s, v in sorted(end.stacks.items())},
                           "pots": [], "shown": [], "mucked": [], "returned": {}, "rake": 0}
    if result is None:
        return out
    out["rake"] = result.rake
    if not result.voided:
        out["returned"] = {str(s): v for s, v in sorted(result.returned.items())}
    for i, pot in enumerate(result.pots):
        winners = list(pot.winners)
        base = (pot.amount // (unit * len(winners))) * unit if winners else 0
        out["pots"].append({
            "name": "main pot" if i == 0 else f"side pot {i}", "amount": pot.amount,
            "eligible": list(pot.eligible), "winners": winners,
            "shares": {str(s): v for s, v in sorted(pot.shares.items())},
            "odd_chips": {str(s): v - base for s, v in sorted(pot.shares.items())
                          if v > base}})
    if hand is not None:
        for rec in hand.log:
            if isinstance(rec, CardsShown):
                out["shown"].append({"seat": rec.seat, "cards": [str(c) for c in rec.cards],
                                     "description": rec.description})
            elif isinstance(rec, CardsMucked):
                out["mucked"].append(rec.seat)
        starting = hand.starting_stacks
        out["net"] = {str(s): end.stacks.get(s, 0) - starting[s] for s in sorted(starting)
                      if s in end.stacks}
    return out


def build_view(controller: Controller, facts: Facts) -> dict[str, Any]:
    """The whole station view (without ``seq`` and ``boot``, which the hub adds)."""
    monitor = controller.monitor
    table = controller.table
    desk = facts.desk
    hand = monitor.hand
    ahead = None if hand is None else hand_ahead(controller, hand, facts)
    hidden = hidden_cards(controller)
    stacks = table.stacks
    waiting = set(table.waiting)
    seats: list[dict[str, Any]] = []
    for seat in range(1, table.seats + 1):
        player = hand.players.get(seat) if hand is not None else None
        entry: dict[str, Any] = {
            "seat": seat, "occupied": seat in stacks, "name": desk.names.get(seat),
            "stack": player.stack if player is not None else stacks.get(seat),
            "bet": player.bet if player is not None else 0,
            "in_hand": player is not None,
            "folded": bool(player is not None and player.folded),
            "all_in": bool(player is not None and player.stack == 0 and not player.folded),
            "waiting": seat in waiting,
            "cards": _cards_in(controller, seat_zone(seat), hidden),
            "blind": None, "button": False,
            "to_act": ahead is not None and ahead.to_act == seat,
        }
        if hand is not None:
            entry["button"] = hand.button == seat
            entry["blind"] = ("straddle" if hand.straddle_seat == seat else
                              "BB" if hand.big_blind_seat == seat else
                              "SB" if hand.small_blind_seat == seat else None)
        else:
            entry["button"] = table.button == seat
        seats.append(entry)
    clock = desk.clock
    extra = controller.extra_status() if controller.extra_status is not None else {}
    refusal = desk.undo_refusal()
    return {
        "table": {"seats": table.seats, "blinds": blinds_of(table.config),
                  "felt": sum(1 for tc in monitor.fusion.picture if tc.zone != SHUFFLER),
                  "next_blinds": (None if desk.pending_blinds is None
                                  else blinds_of(desk.pending_blinds)),
                  "button": table.button, "last_hand": monitor.hand_number},
        "board": _cards_in(controller, BOARD, hidden),  # also between hands, until collected
        "hand": None if hand is None or ahead is None else _hand(hand, ahead, controller,
                                                                 hidden),
        "seats": seats,
        "legal": None if ahead is None else _legal(ahead, controller),
        "undo": {"possible": refusal is None, "why_not": refusal,
                 "last": desk.last_decision()},
        "clock": None if clock is None else {
            "seat": clock.seat, "started": clock.wall_ms[0], "count_at": clock.wall_ms[1],
            "deadline": clock.wall_ms[2]},
        "alerts": [present(e, hidden) for e in desk.board.shown],
        "last_hand": facts.last_hand if hand is None else None,
        "sim": facts.sim, "sim_busy": bool(extra.get("sim_busy", False)),
    }
