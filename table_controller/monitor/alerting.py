"""Shared helpers of the checks: building alerts, misdeals and stops, looking at the picture.

A misdeal found before substantial action stops the hand ([002 #31], TDA 2024 35); after it,
it is only MISDEAL_AFTER_ACTION ([002 #32], TDA 2024 36).
"""

from __future__ import annotations

from typing import Any

from table_controller.monitor.cards_in_play import TrackedCard
from table_controller.monitor.context import CheckContext
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.zones import BOARD, BURN, MUCK, SHUFFLER, seat_of

FELT = frozenset({BOARD, BURN, MUCK}) | {f"seat{n}" for n in range(1, 11)}
MISDEAL_REMEDY = "Misdeal: collect the cards, reshuffle and redeal; the button stays"


def make(ctx: CheckContext, code: str, t: float, *, seat: int | None = None,
         cards: tuple[Card, ...] | list[Card] = (), message: str = "", remedy: str = "",
         **extra: Any) -> Alert:
    """An alert about the hand in progress (hand None between hands), with a fresh identity
    (``ref``); restating an open one goes through ``RemedyBook.restate``."""
    hand = ctx.last_number if ctx.run is not None else None
    return Alert(code=code, hand=hand, t=t, seat=seat, cards=tuple(cards), message=message,
                 remedy=remedy, extra=dict(extra), ref=ctx.new_ref())


def seat_text(seat: int | None) -> str:
    return "-" if seat is None else str(seat)


def where(zone: str) -> str:
    seat = seat_of(zone)
    if seat is not None:
        return f"seat {seat}"
    return {BOARD: "the board", BURN: "the burn pile", MUCK: "the muck",
            SHUFFLER: "the stub"}.get(zone, zone)


def known(cards: list[TrackedCard]) -> list[Card]:
    return [tc.card for tc in cards if tc.card is not None]


def misdeal(ctx: CheckContext, code: str, t: float, *, seat: int | None,
            cards: list[Card], message: str, remedy: str = MISDEAL_REMEDY) -> list[Alert]:
    """A misdeal condition [002 #31] (TDA 2024 35): the hand stops and is void once the floor
    resolves it; after substantial action [002 #32] (TDA 2024 36) it is only recorded as
    MISDEAL_AFTER_ACTION and the hand is played out."""
    run = ctx.run
    if run is None or run.halted is not None:
        return []
    if run.substantial:
        alert = make(ctx, "MISDEAL_AFTER_ACTION", t, seat=seat, cards=cards,
                     message=f"{message} ({code}), found after substantial action",
                     remedy="No misdeal: the hand is played out (TDA 2024 36, [002 #32])",
                     condition=code)
        ctx.book.open(alert)
        return [alert]
    alert = make(ctx, code, t, seat=seat, cards=cards, message=message, remedy=remedy)
    stop(ctx, alert, void_on_resolve=True)
    return [alert]


def stop(ctx: CheckContext, alert: Alert, *, void_on_resolve: bool) -> None:
    """Freeze the hand on a stop alert; resolving it voids the hand (every chip returned,
    rules.md §5)."""
    run = ctx.run
    assert run is not None
    run.halted = alert.code
    ctx.book.open(alert, voids_hand=void_on_resolve)


def present(ctx: CheckContext, pid: int, zone: str) -> bool:
    """``pid`` lies in ``zone`` now (a removal inside the settle time counts as done)."""
    return any(tc.pid == pid for tc in ctx.picture.in_zone(zone, settled=True))


def hand_cards(ctx: CheckContext, zone: str, *, settled: bool = False) -> list[TrackedCard]:
    """The cards of this hand in ``zone`` (no joker, no foreign card)."""
    run = ctx.run
    if run is None:
        return []
    return [tc for tc in ctx.picture.in_zone(zone, settled=settled)
            if tc.pid in run.in_hand and not tc.joker and not tc.foreign]
