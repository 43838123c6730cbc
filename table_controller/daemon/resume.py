"""What a new run of the controller carries over from the journal of the runs before it.

A controller killed (SIGKILL, power cut) leaves its journal whole but its last hand without an
end. When it starts again on the same journal:

- every hand a previous run left without an end is given one: voided, cause
  :data:`NOT_RESUMED`, the stacks it started with (all action void, every chip returned:
  rules.md §5, TDA 35's remedy for a hand that cannot go on), so every hand in the journal has
  exactly one end;
- the stacks are those after the last hand (its end, or its start when it was voided here);
- the button moves on to the next seat with chips after a hand that was played, and stays
  after a voided one (a misdeal's button stays, [000]);
- hand numbers go on from the last hand's.

Continuing the killed hand itself (rebuilding the monitor from the journal) is not done here:
such a hand is voided.
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


def carry_over(journal: Journal, *, wall: str) -> CarryOver | None:
    """Close the hands previous runs left open and return the table they leave (None: the
    journal has no hand yet). Call before this run's :meth:`Journal.start_run`."""
    hands = journal.all_hands()
    voided: list[HandRecord] = []
    for h in hands:
        if not h.finished:
            journal.record_hand_end(number=h.number, t=h.start_t or 0.0, wall=wall,
                                    voided=True, cause=NOT_RESUMED, stacks=h.stacks_before,
                                    phh=None, phh_error=f"hand {h.number}: {NOT_RESUMED}",
                                    run=h.run)
            voided.append(h)
    journal.flush(force=True)
    if not hands:
        return None
    last = hands[-1]
    played = last.finished and not last.voided and last.stacks_after is not None
    stacks = dict(last.stacks_after if played and last.stacks_after else last.stacks_before)
    button = last.button
    if played and button is not None:
        button = next_seat(button, [s for s, v in stacks.items() if v > 0])
    return CarryOver(hand_number=last.number, stacks=stacks, button=button, voided=voided)


def next_seat(seat: int, seats: list[int]) -> int | None:
    """The first of ``seats`` clockwise after ``seat`` (rules.md §2: the button moves one
    player to the left)."""
    ordered = sorted(seats)
    after = [s for s in ordered if s > seat] or ordered
    return after[0] if after else None
