"""Undo of the last betting decision of a hand, by replaying the hand without it.

The engine's hand is append-only (every record stays in its log); undo does not edit it. It
builds a fresh :class:`~table_controller.engine.Hand` with the same positions and forced bets,
replays every record before the last decision through the engine's public methods (hole cards,
board, actions, out-of-turn actions, time expired), checks that the replay wrote exactly the
same log, and only then hands the live hand that state. The console request ``undo`` is
journaled like any other, so the record keeps both the action and its undo.

A decision is an action made in turn, an action out of turn held for later ([002 #35]), or a
called clock that ran out ([002 #24]); what the engine did because of it (an uncalled bet
returned [002 #48], a held action released) goes with it. Undo is refused once a card was dealt
to the engine after the decision, and once the hand is over (its result is published and
journaled: the floor corrects stacks between hands with ``add_chips``).
"""

from __future__ import annotations

from collections.abc import Sequence

from table_controller.engine import (
    Action,
    ActionKind,
    ActionTaken,
    BoardDealt,
    EngineError,
    Hand,
    HoleCardsDealt,
    LogRecord,
    OutOfTurnHeld,
    Posted,
    PostKind,
    TimeExpired,
)


class UndoError(ValueError):
    """The last decision cannot be undone; the text says why."""


def decision_indexes(log: Sequence[LogRecord]) -> list[int]:
    """Indexes in ``log`` of the records that are a player's decision."""
    out: list[int] = []
    for i, rec in enumerate(log):
        in_turn = isinstance(rec, ActionTaken) and not rec.out_of_turn \
            and not (i > 0 and isinstance(log[i - 1], TimeExpired))
        if in_turn or isinstance(rec, OutOfTurnHeld | TimeExpired):
            out.append(i)
    return out


def describe(rec: LogRecord) -> str:
    """The decision as the dealer says it: ``seat 3 raise to 6``."""
    if isinstance(rec, TimeExpired):
        return f"seat {rec.seat}: time expired"
    if isinstance(rec, OutOfTurnHeld):
        return f"{rec.action} (out of turn)"
    if isinstance(rec, ActionTaken):
        text = f"seat {rec.seat} {rec.kind.value}"
        if rec.kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.CALL):
            text += f" to {rec.to}" if rec.kind is not ActionKind.CALL else f" {rec.added}"
        return text + (" (all-in)" if rec.all_in else "")
    return type(rec).__name__


def last_decision(hand: Hand) -> int | None:
    found = decision_indexes(hand.log)
    return found[-1] if found else None


def _missed(log: Sequence[LogRecord]) -> dict[int, tuple[bool, bool]]:
    out: dict[int, tuple[bool, bool]] = {}
    for rec in log:
        if isinstance(rec, Posted) and rec.kind in (PostKind.MISSED_SMALL_BLIND,
                                                    PostKind.MISSED_BIG_BLIND):
            small, big = out.get(rec.seat, (False, False))
            out[rec.seat] = (small or rec.kind is PostKind.MISSED_SMALL_BLIND,
                             big or rec.kind is PostKind.MISSED_BIG_BLIND)
    return out


def without_last_decision(hand: Hand) -> Hand:
    """A new hand in the state ``hand`` was in just before its last decision (raises
    :class:`UndoError` saying why not)."""
    if hand.result is not None:
        raise UndoError(f"hand {hand.number} is over; its result stands (correct a stack "
                        "between hands with add_chips)")
    cut = last_decision(hand)
    if cut is None:
        raise UndoError(f"hand {hand.number}: no action to undo")
    for rec in hand.log[cut + 1:]:
        if isinstance(rec, BoardDealt | HoleCardsDealt):
            raise UndoError(f"undo {describe(hand.log[cut])}: cards were dealt since")
    fresh = Hand(config=hand.config, number=hand.number, stacks=hand.starting_stacks,
                 button=hand.button, small_blind_seat=hand.small_blind_seat,
                 big_blind_seat=hand.big_blind_seat, straddle_seat=hand.straddle_seat,
                 missed=_missed(hand.log))
    log = hand.log
    decisions = frozenset(decision_indexes(log[:cut]))
    try:
        for i in range(cut):
            rec = log[i]
            if isinstance(rec, HoleCardsDealt):
                fresh.deal_hole(rec.seat, rec.cards)
            elif isinstance(rec, BoardDealt):
                fresh.deal_board(rec.cards)
            elif isinstance(rec, OutOfTurnHeld):
                fresh.act(rec.action)
            elif isinstance(rec, TimeExpired):
                fresh.time_expired(rec.seat)
            elif isinstance(rec, ActionTaken) and i in decisions:
                fresh.act(_action_of(rec))
    except EngineError as exc:
        raise UndoError(f"undo: the hand does not replay ({exc})") from None
    if fresh.log != log[:cut]:
        raise UndoError("undo: the replayed hand differs from the hand played; nothing "
                        "changed")
    return fresh


def _action_of(rec: ActionTaken) -> Action:
    if rec.all_in:
        return Action(seat=rec.seat, kind=ActionKind.ALL_IN)
    amount = rec.to if rec.kind in (ActionKind.BET, ActionKind.RAISE) else None
    return Action(seat=rec.seat, kind=rec.kind, amount=amount)


def restore(hand: Hand, earlier: Hand) -> None:
    """Give the live ``hand`` (the object the table, the monitor and the controller hold) the
    state of ``earlier``, built by :func:`without_last_decision` from it."""
    if earlier.number != hand.number or earlier.log != hand.log[:len(earlier.log)]:
        raise UndoError("undo: that state is not an earlier state of this hand")
    state = vars(hand)
    state.clear()
    state.update(vars(earlier))
