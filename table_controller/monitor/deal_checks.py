"""Checks on the deal of hole cards (rules.md §2 and §5, alerts.md).

- a card to an empty seat or a seat not dealt in: MISDEAL_EMPTY_SEAT [002 #31] [000] [003];
- the first card to another seat than the first to be dealt: MISDEAL_WRONG_FIRST_SEAT [002 #31];
- a card out of the dealing order (the button's two cards in a row excepted):
  MISDEAL_OUT_OF_ORDER [000] [003] [002 #31];
- one of the first two cards face up: MISDEAL_EXPOSED_FIRST_CARDS [002 #31] [000] [003];
- one other card face up: EXPOSED_CARD_REPLACE, the card is replaced after the deal and becomes
  the flop's burn [000] [003]; a second one: MISDEAL_MULTIPLE_EXPOSED [000] [003] [002 #31];
- one card too many once every seat has two: EXTRA_CARD_BURN [003]; two: a misdeal
  (MISDEAL_WRONG_CARD_COUNT, "two or more extra cards" [002 #31]);
- at the first betting action a seat dealt in with other than two cards:
  MISDEAL_WRONG_CARD_COUNT [002 #31] [000] [003]. A card dealt to the seat that has since left
  the felt (held up off the antenna, hidden under the other card) is still the player's: it
  was dealt to him, and "dealt" is what the rule counts.

Every misdeal after substantial action is MISDEAL_AFTER_ACTION instead ([002 #32], TDA 2024 36).
"""

from __future__ import annotations

import contextlib

from table_controller.engine import EngineError
from table_controller.monitor.alerting import hand_cards, known, make, misdeal, present
from table_controller.monitor.cards_in_play import TrackedCard
from table_controller.monitor.context import CheckContext
from table_controller.monitor.fusion import Fused
from table_controller.monitor.procedure import CARDS_EACH, Placement
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import BURN, SHUFFLER, seat_zone

_ORDINAL = ("first", "second")


def _cards(tc: TrackedCard) -> list[Card]:
    return [tc.card] if tc.card is not None else []


def seat_card(ctx: CheckContext, tc: TrackedCard, seat: int, f: Fused) -> list[Alert]:
    """A card arrived on ``seat``."""
    run = ctx.run
    assert run is not None
    if f.from_zone not in (None, SHUFFLER):
        return []  # a card slid across the felt is not a card dealt
    deal = run.deal
    name = tc.label()
    if seat not in deal.counts:
        why = "is empty" if seat not in ctx.table.stacks else "is not dealt in this hand"
        return misdeal(ctx, "MISDEAL_EMPTY_SEAT", f.t, seat=seat, cards=_cards(tc),
                       message=f"A card was dealt to seat {seat}, which {why}")
    if len(hand_cards(ctx, seat_zone(seat), settled=True)) <= deal.counts[seat]:
        # a card of this seat back in place (a player's peek, a lost track); a card every
        # sensor lost a moment ago is not counted: it is the one seen again (the camera's
        # new track of a card a chip or a protector was just taken off)
        return []
    verdict = deal.judge(seat) if not run.deal_over else Placement.OK
    if seat in run.replacement_due and (run.deal_over or verdict is not Placement.OK):
        del run.replacement_due[seat]  # the exposed card's replacement [000] [003]
        position = deal.record(seat, tc.pid)
        if tc.face is Face.UP and not run.deal_over:
            return _face_up_at_deal(ctx, tc, seat, position, f.t)
        return []
    if run.deal_over:
        return misdeal(ctx, "MISDEAL_WRONG_CARD_COUNT", f.t, seat=seat, cards=_cards(tc),
                       message=f"Seat {seat} was given a third card ({name}) during the hand")
    if verdict is Placement.WRONG_FIRST_SEAT:
        return misdeal(ctx, verdict.value, f.t, seat=seat, cards=_cards(tc),
                       message=f"The first card of the deal went to seat {seat}; it belongs "
                               f"to seat {deal.order[0]}")
    if verdict is Placement.OUT_OF_ORDER:
        nxt = " or ".join(f"seat {s}" for s in deal.expected())
        return misdeal(ctx, verdict.value, f.t, seat=seat, cards=_cards(tc),
                       message=f"A card went to seat {seat} out of order; {nxt} was next")
    if verdict is Placement.EXTRA:
        return _extra_card(ctx, tc, seat, f.t)
    position = deal.record(seat, tc.pid)
    if tc.face is Face.UP:
        return _face_up_at_deal(ctx, tc, seat, position, f.t)
    return []


def dealt_face_up(ctx: CheckContext, tc: TrackedCard, seat: int, t: float) -> list[Alert]:
    """The camera saw a hole card land face up after the reader had reported it."""
    run = ctx.run
    if run is None or run.deal_over:
        return []
    position = run.deal.position(tc.pid)
    if position is None:
        return []
    return _face_up_at_deal(ctx, tc, seat, position, t)


def _face_up_at_deal(ctx: CheckContext, tc: TrackedCard, seat: int, position: int,
                     t: float) -> list[Alert]:
    run = ctx.run
    assert run is not None
    if tc.pid in run.exposed:
        return []
    run.exposed.append(tc.pid)
    name = tc.label()
    if position < 2:
        return misdeal(ctx, "MISDEAL_EXPOSED_FIRST_CARDS", t, seat=seat, cards=_cards(tc),
                       message=f"The {_ORDINAL[position]} card of the deal, {name}, landed face "
                               f"up on seat {seat}")
    if len(run.exposed) >= 2:
        shown = [c.card for p in run.exposed
                 if (c := ctx.picture.get(p)) is not None and c.card is not None]
        return misdeal(ctx, "MISDEAL_MULTIPLE_EXPOSED", t, seat=seat, cards=shown,
                       message=f"A second card exposed during the deal: {name} on seat {seat}")
    run.replacement_due[seat] = tc.pid
    pid = tc.pid
    alert = make(ctx, "EXPOSED_CARD_REPLACE", t, seat=seat, cards=_cards(tc),
                 message=f"{name} was dealt face up to seat {seat}",
                 remedy=f"Finish the deal, then put {name} from seat {seat} on the burn pile "
                        f"and give seat {seat} the top card of the deck; {name} is the "
                        "flop's burn card")

    def verify() -> str | None:
        return _moved_to_burn(ctx, pid, name, seat)

    def apply(_t: float) -> None:
        run.replacement_due.pop(seat, None)

    ctx.book.open(alert, verify=verify, apply=apply)
    return [alert]


def _moved_to_burn(ctx: CheckContext, pid: int, name: str, seat: int) -> str | None:
    """Remedy check for a card that must go from ``seat`` to the burn pile, leaving the seat
    with two cards: None when done, else what is still wrong."""
    if present(ctx, pid, seat_zone(seat)):
        return f"{name} is still on seat {seat}"
    moved = ctx.picture.get(pid)
    if moved is not None and moved.gone_since is None and moved.zone != BURN:
        return f"{name} is in {moved.zone}, not on the burn pile"
    return _two_cards(ctx, seat)


def _two_cards(ctx: CheckContext, seat: int) -> str | None:
    n = len(hand_cards(ctx, seat_zone(seat), settled=True))
    return None if n == CARDS_EACH else f"seat {seat} holds {n} card(s), not {CARDS_EACH}"


def _extra_card(ctx: CheckContext, tc: TrackedCard, seat: int, t: float) -> list[Alert]:
    run = ctx.run
    assert run is not None
    run.extra_cards.append(tc.pid)
    name = tc.label()
    if len(run.extra_cards) >= 2:
        return misdeal(ctx, "MISDEAL_WRONG_CARD_COUNT", t, seat=seat, cards=_cards(tc),
                       message=f"Two extra cards dealt (the second, {name}, to seat {seat})")
    pid = tc.pid
    alert = make(ctx, "EXTRA_CARD_BURN", t, seat=seat, cards=_cards(tc),
                 message=f"Every seat had two cards; {name} on seat {seat} is one too many",
                 remedy=f"Put {name} from seat {seat} on the burn pile: it is the flop's "
                        "burn card")

    ctx.book.open(alert, verify=lambda: _moved_to_burn(ctx, pid, name, seat))
    return [alert]


def card_left_seat(ctx: CheckContext, tc: TrackedCard, seat: int) -> None:
    """A hole card left its seat. An exposed card taken off as the remedy leaves the seat
    owed a card; any other card that leaves (a player lifts it) still counts as dealt, and
    coming back it is no new card."""
    run = ctx.run
    if run is not None and tc.pid in run.exposed:
        run.deal.forget(tc.pid)


def _held_off_felt(ctx: CheckContext, seat: int, cards: list[TrackedCard]) -> int:
    """Cards dealt to ``seat`` that no sensor sees now and that went nowhere else: a player
    holding them up to look, a card the camera cannot see under the other ([002 #31] counts the
    cards dealt to a player, not the ones lying flat). A card of the seat that the picture
    lost and found again is a new card there, not recorded in the deal: it stands for one of
    the lost ones."""
    run = ctx.run
    assert run is not None
    dealt = {pid for s, pid in run.deal.dealt if s == seat and pid >= 0}
    gone = sum(1 for pid in dealt if ctx.picture.get(pid) is None)
    found_again = sum(1 for tc in cards if tc.pid not in dealt)
    return max(gone - found_again, 0)


def deal_end(ctx: CheckContext, t: float) -> list[Alert]:
    """The first betting action ends the deal: every seat dealt in holds two cards
    (MISDEAL_WRONG_CARD_COUNT, [002 #31] [000] [003]). Known hole cards go to the engine."""
    run = ctx.run
    assert run is not None
    run.deal_over = True
    pending = {a.seat for code in ("EXPOSED_CARD_REPLACE", "EXTRA_CARD_BURN", "JOKER")
               for a in ctx.book.of_code(code)}
    for seat in run.deal.order:
        cards = hand_cards(ctx, seat_zone(seat))
        held = _held_off_felt(ctx, seat, cards)
        if len(cards) + held != CARDS_EACH and seat not in pending:
            return misdeal(ctx, "MISDEAL_WRONG_CARD_COUNT", t, seat=seat, cards=[],
                           message=f"Seat {seat} holds {len(cards)} card(s) when the betting "
                                   "starts")
    for seat in run.deal.order:
        hole = known(hand_cards(ctx, seat_zone(seat)))
        if len(hole) == CARDS_EACH:
            with contextlib.suppress(EngineError):  # given again at the showdown
                run.hand.deal_hole(seat, hole)
    return []
