"""Checks on the board and the burn pile (rules.md §5, alerts.md).

- a board card before the betting round is complete: PREMATURE_BOARD_CARD; the premature cards
  go back into the stub, which is reshuffled, the burn stays, and after the betting the street
  is dealt again with no new burn ([003], TDA 2024 RP-5);
- a street's first card with no burn since the last street: MISSING_BURN ([000], TDA 2024 39-B);
- a fourth card on the flop: FOUR_CARD_FLOP. ``tda``: all four face down, the controller draws
  the burn card at random (``secrets``) and names it, the other three are the flop (TDA 2024
  39-A, [002 #33]); ``house``: the stub is reshuffled without hole cards and burn, and a new flop
  is dealt [000];
- a second card on the turn or the river, or a sixth board card: EXTRA_BOARD_CARD, it goes back
  into the stub [003].

While one of these alerts is open, further board cards of the same street restate it (so the
remedy names every card involved) or, for the four-card flop and the extra card, are part of
the dealer's correction; on resolve the board is checked against the remedy.
"""

from __future__ import annotations

from table_controller.monitor.alerting import hand_cards, make, present
from table_controller.monitor.cards_in_play import TrackedCard
from table_controller.monitor.context import CheckContext
from table_controller.monitor.records import MonitorError
from table_controller.monitor.streets import commit_street
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import format_cards
from table_controller.vocabulary.observations import Source
from table_controller.vocabulary.zones import BOARD, BURN

_CORRECTING = ("FOUR_CARD_FLOP", "EXTRA_BOARD_CARD")


def open_board(ctx: CheckContext) -> list[TrackedCard]:
    """The board cards (settled) not yet handed to the engine."""
    run = ctx.run
    assert run is not None
    return [tc for tc in hand_cards(ctx, BOARD, settled=True) if tc.pid not in run.committed]


def burn_pile_blind(ctx: CheckContext) -> bool:
    """Without the reader, a card burned onto a pile that already holds cards may not show:
    the camera sees the top of a pile. Then a missing burn cannot be told from a hidden one
    (only an empty pile is a certain MISSING_BURN), nor a street's end from an extra card in
    an all-in runout (docs/monitor.md, limits)."""
    if ctx.fusion.active(Source.RFID):
        return False
    return bool(ctx.picture.in_zone(BURN))


def all_in_runout(ctx: CheckContext) -> bool:
    """No more betting is possible: the streets follow each other with no action (rules.md
    §4, TDA 2024 16 [002 #11])."""
    run = ctx.run
    if run is None or not run.hand.betting_complete:
        return False
    stacks = run.hand.stacks
    can_bet = [s for s in run.hand.live_seats if stacks.get(s, 0) > 0]
    return len(can_bet) <= 1 and len(run.hand.live_seats) >= 2


def _names(ctx: CheckContext, pids: list[int]) -> str:
    cards = [ctx.picture.get(p) for p in pids]
    return ", ".join(tc.label() for tc in cards if tc is not None) or "the cards"


def board_card(ctx: CheckContext, tc: TrackedCard, t: float) -> list[Alert]:
    """A card arrived on the board."""
    run = ctx.run
    assert run is not None
    b = run.board
    if ctx.book.has("PREMATURE_BOARD_CARD"):
        run.premature.append(tc.pid)
        return [_premature(ctx, t)]
    if any(ctx.book.has(code) for code in _CORRECTING):
        return []  # the dealer is correcting the street; checked on resolve
    if b.index >= 3:
        return _extra_board(ctx, tc, t, beyond=True)
    blind = burn_pile_blind(ctx)
    if b.full:
        if b.burned_after_last_card or (blind and all_in_runout(ctx)):
            commit_street(ctx, strict=False)  # a burn, then a card: the next street
        if b.full:
            if b.index == 0:
                return _four_card_flop(ctx, tc, t)
            return _extra_board(ctx, tc, t, beyond=False)
        if b.index >= 3:
            return _extra_board(ctx, tc, t, beyond=True)
    if not b.street:
        if not run.hand.betting_complete:
            run.premature = [tc.pid]
            return [_premature(ctx, t)]
        b.add(tc.pid)
        if not b.burned_since_street and not blind:
            return [_missing_burn(ctx, t)]
        return []
    b.add(tc.pid)
    entry = ctx.book.latest("MISSING_BURN")
    if entry is not None and entry.alert.extra.get("street") == b.index \
            and not b.burned_since_street:
        return [_missing_burn(ctx, t)]
    return []


def _premature(ctx: CheckContext, t: float) -> Alert:
    run = ctx.run
    assert run is not None
    b = run.board
    pids = list(run.premature)
    cards = [c.card for p in pids if (c := ctx.picture.get(p)) is not None
             and c.card is not None]
    names = _names(ctx, pids)
    alert = make(ctx, "PREMATURE_BOARD_CARD", t, cards=cards,
                 message=f"{names} dealt to the board before the betting round was complete",
                 remedy=f"Put {names} back into the stub and reshuffle it; the burn card stays; "
                        f"when the betting is complete deal the {b.name} again with no new "
                        "burn")
    entry = ctx.book.latest("PREMATURE_BOARD_CARD")
    if entry is not None:
        return ctx.book.restate(entry, alert)

    def verify() -> str | None:
        still = [p for p in run.premature if present(ctx, p, BOARD)]
        if still:
            return f"{_names(ctx, still)} still on the board"
        return None

    def apply(_t: float) -> None:
        run.premature = []
        run.board.street = [tc.pid for tc in open_board(ctx)]

    ctx.book.open(alert, verify=verify, apply=apply)
    return alert


def _missing_burn(ctx: CheckContext, t: float) -> Alert:
    run = ctx.run
    assert run is not None
    b = run.board
    index, committed = b.index, b.committed
    names = _names(ctx, b.street)
    cards = [c.card for p in b.street if (c := ctx.picture.get(p)) is not None
             and c.card is not None]
    alert = make(ctx, "MISSING_BURN", t, cards=cards,
                 message=f"The {b.name} ({names}) was dealt with no burn card",
                 remedy=f"Before any action on the {b.name}: take {names} back on top of the "
                        f"stub, burn a card and deal the {b.name} again; after action the cards "
                        "stand",
                 street=index)
    previous = ctx.book.latest("MISSING_BURN")
    if previous is not None and previous.alert.extra.get("street") == index:
        return ctx.book.restate(previous, alert)

    def verify() -> str | None:
        if run.board.committed > committed or run.board.burned_since_street:
            return None
        return f"still no burn card before the {run.board.name}"

    ctx.book.open(alert, verify=verify)
    return alert


def _four_card_flop(ctx: CheckContext, tc: TrackedCard, t: float) -> list[Alert]:
    run = ctx.run
    assert run is not None
    b = run.board
    four = [*b.street, tc.pid]
    tracked = [c for p in four if (c := ctx.picture.get(p)) is not None]
    cards = [c.card for c in tracked if c.card is not None]
    burns_at = b.last_card_burns
    seq_at = tc.seq
    if ctx.config.rules == "tda" and len(cards) == 4:
        chosen = ctx.choose_burn(list(cards))
        if chosen not in cards:
            raise MonitorError(f"burn chooser returned {chosen}, not one of "
                               f"{format_cards(cards)}")
        chosen_pid = four[cards.index(chosen)]
        alert = make(ctx, "FOUR_CARD_FLOP", t, cards=cards,
                     message=f"Four cards on the flop: {format_cards(cards)}",
                     remedy=f"Turn all four cards face down and scramble them; {chosen} is the "
                            "burn card (the turn's burn): put it on the burn pile; the other "
                            "three are the flop",
                     burn=chosen)

        flop = [c for c in cards if c != chosen]

        def verify_tda() -> str | None:
            board = open_board(ctx)
            if present(ctx, chosen_pid, BOARD) or any(c.card == chosen for c in board):
                return f"{chosen} is still on the board; it is the burn card"
            moved = ctx.picture.get(chosen_pid)
            if moved is not None and moved.gone_since is None and moved.zone != BURN:
                return f"{chosen} is in {moved.zone}, not on the burn pile"
            # Identities where the sensors know them (the camera re-tracks a moved card).
            seen = sorted((c.card for c in board if c.card is not None), key=str)
            if len(board) != 3 or (len(seen) == 3 and set(seen) != set(flop)):
                return f"the flop must be {format_cards(flop)}; the board holds " \
                       f"{_names(ctx, [c.pid for c in board])}"
            return None

        def apply_tda(_t: float) -> None:
            run.board.street = [c.pid for c in open_board(ctx)]
            run.board.last_card_burns = burns_at  # the pick is the turn's burn

        ctx.book.open(alert, verify=verify_tda, apply=apply_tda)
        return [alert]
    alert = make(ctx, "FOUR_CARD_FLOP", t, cards=cards,
                 message=f"Four cards on the flop: {format_cards(cards)}",
                 remedy="Put the four flop cards back into the stub (not the hole cards, not "
                        "the burn card), reshuffle it and deal a new flop with no new burn")

    def verify_house() -> str | None:
        board = open_board(ctx)
        stayed = [c for c in board if c.seq <= seq_at]
        if stayed:
            return f"{_names(ctx, [c.pid for c in stayed])} of the four-card flop still on " \
                   "the board"
        if len(board) not in (0, 3):
            return f"the new flop has {len(board)} cards"
        return None

    def apply_house(_t: float) -> None:
        run.board.street = [c.pid for c in open_board(ctx)]
        if run.board.full:
            run.board.last_card_burns = run.board.burns

    ctx.book.open(alert, verify=verify_house, apply=apply_house)
    return [alert]


def _extra_board(ctx: CheckContext, tc: TrackedCard, t: float, *, beyond: bool) -> list[Alert]:
    run = ctx.run
    assert run is not None
    b = run.board
    name, pid = tc.label(), tc.pid
    cards = [tc.card] if tc.card is not None else []
    if beyond:
        message = f"{name} is a sixth card on the board"
        remedy = f"Put {name} back into the stub and reshuffle it; the board is complete"
    else:
        message = f"{name} is a second card on the {b.name}"
        remedy = f"Put {name} back into the stub and reshuffle it; the {b.name} is " \
                 f"{_names(ctx, b.street)}"
    alert = make(ctx, "EXTRA_BOARD_CARD", t, cards=cards, message=message, remedy=remedy)
    size = 0 if beyond else b.size

    def verify() -> str | None:
        if present(ctx, pid, BOARD):
            return f"{name} is still on the board"
        n = len(open_board(ctx))
        if n != size:
            return f"the {run.board.name} has {n} cards on the board, not {size}"
        return None

    def apply(_t: float) -> None:
        if not beyond:
            run.board.street = [c.pid for c in open_board(ctx)]

    ctx.book.open(alert, verify=verify, apply=apply)
    return [alert]
