"""A finished hand of our engine -> :class:`HandHistory` (then :func:`codec.dumps` for the text).

Everything comes from the hand's append-only log (``hand.log``) and its result; the engine's
state is never consulted, so the history is a transcript of what happened.

Mapping (phh-std; see docs/hand-histories.md):

- players ``p1..pN`` are ``hand.deal_order`` (first left of the button first, the button last;
  heads-up the big blind is ``p1``), which is exactly PHH's player order;
- ``starting_stacks`` are the stacks before antes and blinds, recovered from the final stacks and
  the chips each seat put in and took out;
- ``antes``/``blinds_or_straddles``/``min_bet``/``small_bet``/``big_bet`` come from the game
  configuration (the amounts due; a short stack posts what it has, as in PHH); a big-blind or
  button ante is one entry at the poster's place (reversed heads-up, like the blinds), with
  ``ante_trimming_status = false`` (the single ante is dead in the main pot, rules.md §2);
- every action in the log becomes one PHH action: ``f``, ``cc`` (check or call), ``cbr TO``;
  a time-expired dead hand (rules.md §3 [002 #24]) is written ``pN f # time expired``;
- showdown ``sm`` actions come right after the last betting action when the board is run out
  after an all-in (PHH and pokerkit show all-in hands before the runout, rules.md §4
  [000, 002 #11]), else after the river;
- house rules PHH has no field for are written as user-defined fields: ``_odd_chip`` (always),
  ``_rake_percent``/``_rake_cap`` (when the game is raked), ``_chip_unit`` (when not 1),
  ``_tournament``, ``_dead_small_blind`` (no small blind posted: its seat is empty),
  ``_ante_order`` (with a single ante: ``blind_first`` or ``ante_first``, TDA 2024 RP-11).

Hands PHH cannot express are refused with :class:`PhhError` naming the reason: a voided hand
(misdeal, fouled deck: nothing was played, every chip went back), and posts PHH has no notation
for (a dead missed small blind; a missed big blind posted out of position).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from table_controller.engine import (
    ActionKind,
    ActionTaken,
    BetReturned,
    BoardDealt,
    CardsMucked,
    CardsShown,
    GameConfig,
    Hand,
    HandVoided,
    HoleCardsDealt,
    Posted,
    PostKind,
    PotAwarded,
    Structure,
    TimeExpired,
)
from table_controller.phh.model import (
    BetOrRaiseTo,
    CheckOrCall,
    DealBoard,
    DealHole,
    Fold,
    HandHistory,
    MaybeCard,
    PhhAction,
    PhhError,
    ShowOrMuck,
)
from table_controller.vocabulary.cards import Card

VARIANT_OF: Mapping[Structure, str] = {
    Structure.NO_LIMIT: "NT",
    Structure.POT_LIMIT: "PT",
    Structure.FIXED_LIMIT: "FT",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """Optional facts about where and when the hand was played, copied to the PHH fields."""

    seat_count: int | None = None
    players: Mapping[int, str] | None = None  # seat -> player name
    table: int | str | None = None
    venue: str | None = None
    event: str | None = None
    currency: str | None = None
    time: datetime.time | None = None
    day: int | None = None
    month: int | None = None
    year: int | None = None


def export_hand(hand: Hand, *, config: GameConfig, context: Context | None = None) -> HandHistory:
    """The PHH record of ``hand``, which must be complete (``hand.result`` set)."""
    result = hand.result
    if result is None:
        raise PhhError(f"hand {hand.number}: not finished, nothing to export yet")
    log = list(hand.log)
    if result.voided or any(isinstance(r, HandVoided) for r in log):
        raise PhhError(
            f"hand {hand.number}: voided ({result.reason or 'misdeal'}); every chip went back, "
            "there is no played hand to write"
        )
    order = tuple(hand.deal_order)
    index = {seat: i + 1 for i, seat in enumerate(order)}
    count = len(order)

    if hand.ante_seat is None:
        antes = tuple(config.ante for _ in order)
    else:
        # One ante for the table, by the big blind or the button (rules.md §2, TDA 2024
        # RP-11): the amount due at the poster's place, reversed heads-up like the blinds.
        single = [0] * count
        single[index[hand.ante_seat] - 1] = config.ante
        antes = _blinds_field(single)
    blinds = [0] * count
    put_in = dict.fromkeys(order, 0)
    took_out = dict.fromkeys(order, 0)
    short_ante = False
    for record in log:
        if not isinstance(record, Posted):
            continue
        put_in[record.seat] += record.amount
        position = index[record.seat] - 1
        if record.kind is PostKind.ANTE:
            # a short single ante stays untrimmed: it is dead in the main pot (rules.md §2)
            short_ante = short_ante or (record.amount < config.ante and hand.ante_seat is None)
        elif record.kind is PostKind.STRADDLE:
            blinds[position] = 2 * config.big_blind  # a short stack posts what it has
        elif record.kind not in (PostKind.SMALL_BLIND, PostKind.BIG_BLIND):
            what = record.kind.value.replace("_", " ")
            raise PhhError(
                f"hand {hand.number}: seat {record.seat} posted a {what};"
                " PHH has no notation for missed-blind posts"
            )
    # The blinds due at the blind positions, even when the poster had nothing left after the
    # ante (PHH and the engine both post what the stack holds).
    if hand.small_blind_seat is not None:
        blinds[index[hand.small_blind_seat] - 1] = config.small_blind
    blinds[index[hand.big_blind_seat] - 1] = config.big_blind
    blinds_field = _blinds_field(blinds)

    holes: dict[int, tuple[Card, ...]] = {}
    for record in log:
        if isinstance(record, HoleCardsDealt | CardsShown) and record.seat not in holes:
            holes[record.seat] = tuple(record.cards)
    actions: list[PhhAction] = [
        DealHole(index[seat], _hole(holes.get(seat))) for seat in order
    ]

    showdown: list[PhhAction] = []
    last_bet_at = max(
        (i for i, r in enumerate(log) if isinstance(r, ActionTaken | TimeExpired)), default=-1
    )
    runout_after_all_in = any(
        isinstance(r, BoardDealt) for r in log[last_bet_at + 1:]
    ) and result.showdown
    for record in log:
        if isinstance(record, CardsShown):
            showdown.append(ShowOrMuck(index[record.seat], True, tuple(record.cards)))
        elif isinstance(record, CardsMucked):
            showdown.append(ShowOrMuck(index[record.seat], False))
        elif isinstance(record, BetReturned):
            took_out[record.seat] += record.amount
        elif isinstance(record, PotAwarded):
            for seat, chips in record.shares:
                took_out[seat] += chips

    showdown_at = len(actions)  # after the last betting action (or the deal, if none)
    timed_out: set[int] = set()  # the engine logs TimeExpired, then the fold it amounts to
    for i, record in enumerate(log):
        if isinstance(record, BoardDealt):
            actions.append(DealBoard(tuple(record.cards)))
        elif isinstance(record, ActionTaken):
            put_in[record.seat] += record.added
            action = _betting_action(record, index[record.seat])
            if record.seat in timed_out and isinstance(action, Fold):
                timed_out.discard(record.seat)
                action = Fold(action.player, "time expired")
            actions.append(action)
        elif isinstance(record, TimeExpired):
            timed_out.add(record.seat)
        if i == last_bet_at:
            showdown_at = len(actions)
    if runout_after_all_in:
        actions[showdown_at:showdown_at] = showdown
    else:
        actions.extend(showdown)

    final = result.final_stacks
    missing = [seat for seat in order if seat not in final]
    if missing:
        raise PhhError(f"hand {hand.number}: no final stack for seat(s) {missing}")
    starting = tuple(final[seat] + put_in[seat] - took_out[seat] for seat in order)
    winnings = tuple(
        sum(chips for award in result.pots for s, chips in award.shares.items() if s == seat)
        for seat in order
    )
    user_fields: dict[str, object] = {"_odd_chip": config.odd_chip.value}
    if config.rake is not None:
        user_fields["_rake_percent"] = str(config.rake.percent)
        if config.rake.cap is not None:
            user_fields["_rake_cap"] = config.rake.cap
    if config.chip_unit != 1:
        user_fields["_chip_unit"] = config.chip_unit
    if config.tournament:
        user_fields["_tournament"] = True
    if hand.ante_seat is not None:
        # who pays first when the poster cannot cover his blind and the ante (TDA 2024 RP-11
        # blind first; ante first is the house option and pokerkit's order)
        user_fields["_ante_order"] = config.ante_order.value
    if hand.small_blind_seat is None and count > 2:
        # No small blind (its seat is empty, dead-button rule [002 #28]): p1 posts the big
        # blind. Said explicitly, because with a straddle [BB, 2 x BB, 0...] would otherwise
        # read as a small and a big blind.
        user_fields["_dead_small_blind"] = True

    ctx = context or Context()
    fixed = config.structure is Structure.FIXED_LIMIT
    return HandHistory(
        variant=VARIANT_OF[config.structure],
        ante_trimming_status=short_ante,
        antes=antes,
        blinds_or_straddles=blinds_field,
        starting_stacks=starting,
        actions=tuple(actions),
        hand=hand.number,
        seats=order,
        seat_count=ctx.seat_count,
        players=None if ctx.players is None else tuple(ctx.players.get(s, "") for s in order),
        finishing_stacks=tuple(final[seat] for seat in order),
        winnings=winnings,
        table=ctx.table,
        venue=ctx.venue,
        event=ctx.event,
        currency=ctx.currency,
        time=ctx.time,
        day=ctx.day,
        month=ctx.month,
        year=ctx.year,
        user_fields=user_fields,
        min_bet=None if fixed else config.big_blind,
        small_bet=config.small_bet_size if fixed else None,
        big_bet=config.big_bet_size if fixed else None,
    )


def _blinds_field(blinds: Sequence[int]) -> tuple[int, ...]:
    """PHH writes heads-up blinds (and antes) reversed: p1 (big blind) posts the second entry
    (phh-std)."""
    if len(blinds) == 2:
        return (blinds[1], blinds[0])
    return tuple(blinds)


def _hole(cards: tuple[Card, ...] | None) -> tuple[MaybeCard, ...]:
    if not cards:
        return (None, None)
    return tuple(cards)


def _betting_action(record: ActionTaken, player: int) -> PhhAction:
    if record.kind is ActionKind.FOLD:
        return Fold(player)
    if record.kind in (ActionKind.CHECK, ActionKind.CALL):
        return CheckOrCall(player)
    if record.kind in (ActionKind.BET, ActionKind.RAISE):
        return BetOrRaiseTo(player, record.to)
    raise PhhError(f"cannot write action {record.kind.value!r} of seat {record.seat}")
