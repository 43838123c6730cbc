"""What a new run of the controller carries over from the journal of the runs before it.

A controller killed (SIGKILL, power cut) leaves its journal whole but its last hand without an
end. When it starts again on the same journal:

- the last hand, if it has no end, is *live*: the table is set as that hand found it (its
  journaled stacks and button, the hand number before it) and the controller rebuilds the hand
  by replaying the journal (:mod:`table_controller.daemon.replay`); if that cannot be done the
  hand is voided there (:func:`void_hand`);
- every earlier hand left without an end (a journal of an older controller) is given one:
  voided, cause :data:`NOT_RESUMED`, the stacks it started with (all action void, every chip
  returned: rules.md §5, TDA 35's remedy for a hand that cannot go on), so every hand in the
  journal has exactly one end;
- otherwise the stacks are those after the last hand (its end, or its start when it was
  voided);
- the button moves on to the next seat with chips after a hand that was played, and stays
  after a voided one (a misdeal's button stays, [000]);
- hand numbers go on from the last hand's.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.daemon.journal import HandRecord, Journal

NOT_RESUMED = "the controller stopped during the hand; not resumed"


@dataclass(frozen=True, slots=True)
class CarryOver:
    """The table as the journal's last hand left it."""

    hand_number: int
    stacks: dict[int, int]
    button: int | None
    voided: list[HandRecord]  # the hands given an end now
    live: HandRecord | None = None  # the hand to resume (the table is set as it found it)


def carry_over(journal: Journal, *, wall: str, resume: bool = True) -> CarryOver | None:
    """Close the hands previous runs left open (all but the last one, with ``resume``) and
    return the table they leave (None: the journal has no hand yet). Call before this run's
    :meth:`Journal.start_run`."""
    hands = journal.all_hands()
    live = hands[-1] if resume and hands and not hands[-1].finished \
        and hands[-1].start_t is not None else None
    voided: list[HandRecord] = []
    for h in hands:
        if not h.finished and h is not live:
            void_hand(journal, h, wall=wall, cause=NOT_RESUMED)
            voided.append(h)
    journal.flush(force=True)
    if not hands:
        return None
    if live is not None:
        # the seats the hand did not deal in keep what the hand before left them (a player
        # who busted: none), those it dealt in what it started with
        before = hands[-2] if len(hands) > 1 else None
        stacks = {} if before is None else dict(
            before.stacks_after if before.stacks_after is not None else before.stacks_before)
        stacks.update(live.stacks_before)
        return CarryOver(hand_number=live.number - 1, stacks=stacks, button=live.button,
                         voided=voided, live=live)
    last = hands[-1]
    played = last.finished and not last.voided and last.stacks_after is not None
    stacks = dict(last.stacks_after if played and last.stacks_after else last.stacks_before)
    button = last.button
    if played and button is not None:
        button = next_seat(button, [s for s, v in stacks.items() if v > 0])
    return CarryOver(hand_number=last.number, stacks=stacks, button=button, voided=voided)


def void_hand(journal: Journal, hand: HandRecord, *, wall: str, cause: str) -> None:
    """Give ``hand`` (left without an end) its end in the journal: voided for ``cause``, the
    stacks it started with (rules.md §5: all action void, every chip returned)."""
    journal.record_hand_end(number=hand.number, t=hand.start_t or 0.0, wall=wall,
                            voided=True, cause=cause, stacks=hand.stacks_before,
                            phh=None, phh_error=f"hand {hand.number}: {cause}", run=hand.run)


def next_seat(seat: int, seats: list[int]) -> int | None:
    """The first of ``seats`` clockwise after ``seat`` (rules.md §2: the button moves one
    player to the left)."""
    ordered = sorted(seats)
    after = [s for s in ordered if s > seat] or ordered
    return after[0] if after else None
