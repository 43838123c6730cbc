"""Reading chips pushed without a declaration: the 50% rule and the oversized chip.

Sources: TDA 43 [002 #37, 003, 004] (50% of a raise obliges a full raise, less is a call),
[002 #38, #39] (a single oversized chip is a call; multiple chips follow the 50% rule).
"""

from __future__ import annotations

from table_controller.engine import citations as cite
from table_controller.engine.actions import Action, ActionKind, LegalActions
from table_controller.engine.errors import IllegalAction


def interpret_chips(legal: LegalActions, amount: int, *, current_bet: int, full_raise_to: int,
                    single_chip: bool = False) -> Action:
    """The action of the player described by ``legal`` who pushes ``amount`` chips (added to
    his bet in front of him) without a verbal declaration.

    - Everything he has: all-in (when an all-in is legal).
    - Nothing: a check, or an error when he faces a bet.
    - Opening: a bet of what he pushed, at least the minimum bet (TDA 43), at most the
      structure's maximum; a single chip opens for its full value.
    - Facing a bet: a single oversized chip is a call [002 #38, #39]. Multiple chips: 50% or more
      of a full raise obliges the full minimum raise; less than 50% is a call and the excess
      goes back (TDA 43 [002 #37]). Less than a call (not all-in) is completed to a call; above
      the pot-limit or fixed-limit maximum the excess goes back (docs/engine.md). A player the
      betting was not reopened for can only call.
    - The big blind's option (nothing owed): what is not a raise is a check.
    """
    seat = legal.seat
    if amount < 0:
        raise IllegalAction(f"cannot push {amount} chips", rule=cite.TABLE_STAKES)
    if amount >= legal.stack and legal.all_in_to is not None:
        return Action(seat=seat, kind=ActionKind.ALL_IN)
    total = legal.bet + legal.stack
    to = legal.bet + min(amount, legal.stack)
    if amount == 0:
        if legal.can_check:
            return Action(seat=seat, kind=ActionKind.CHECK)
        raise IllegalAction("no chips pushed facing a bet: call, raise or fold", rule=cite.CHECK)
    if legal.min_bet_to is not None and legal.max_bet_to is not None:
        to = min(max(to, legal.min_bet_to), legal.max_bet_to)
        return Action(seat=seat, kind=ActionKind.BET, amount=to)
    passive = Action(seat=seat, kind=ActionKind.CALL if legal.can_call else ActionKind.CHECK)
    if current_bet == 0:  # no full bet possible: all-in if he may, else nothing to bet into
        return Action(seat=seat, kind=ActionKind.ALL_IN) if legal.all_in_to else passive
    if to <= current_bet or single_chip or legal.reason_no_raise is not None:
        return passive
    if 2 * (to - current_bet) < full_raise_to - current_bet:
        return passive  # under 50% of a raise: a call, the excess returned
    if legal.min_raise_to is None or legal.max_raise_to is None:
        return Action(seat=seat, kind=ActionKind.ALL_IN)  # obliged beyond his stack
    to = min(max(to, legal.min_raise_to), legal.max_raise_to)
    if to == total:
        return Action(seat=seat, kind=ActionKind.ALL_IN)
    return Action(seat=seat, kind=ActionKind.RAISE, amount=to)
