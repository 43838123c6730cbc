"""One betting round: whose turn it is, what each player may do, and applying a decision.

Rules (rules.md §3): minimum bet = big blind, minimum raise = the largest previous bet or raise
of the round (TDA 43 [002 #37]); an all-in for less than a full raise does not reopen the betting
for players who already acted, unless short all-ins add up to a full raise (TDA 47
[000, 002 #37]); fixed limit sizes, the cap of one bet and three raises and the half-bet all-in
rule [000, 002 #37, #40]; pot-limit maximum = pot including the call [000, 001].
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.engine import citations as cite
from table_controller.engine.actions import Action, ActionKind, LegalActions, Street
from table_controller.engine.config import GameConfig, Structure
from table_controller.engine.errors import IllegalAction
from table_controller.engine.records import ActionTaken

FL_CAP_BETS = 4  # one bet and three raises [000, 002 #40]
_FOLD, _CHECK, _CALL = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL
_BET, _RAISE = ActionKind.BET, ActionKind.RAISE
# read as globals on the hot path (an Enum class attribute costs ten times more)
_PREFLOP, _FIXED_LIMIT = Street.PREFLOP, Structure.FIXED_LIMIT
# Records built without the named tuple's Python-level __new__ (every field given).
_record = tuple.__new__


@dataclass(slots=True)
class SeatState:
    """A player dealt into the hand. ``bet``: live chips in front of him this round;
    ``contributed``: every chip he put in this hand (antes, blinds, bets)."""

    seat: int
    stack: int
    bet: int = 0
    contributed: int = 0
    folded: bool = False
    acted: bool = False
    acted_serial: int = -1  # the round's serial when he acted (read only once he has)
    reopen_at: int = 0  # the bet that reopens the betting for him (read only once he acted)

    @property
    def live(self) -> bool:
        """Still holding cards."""
        return not self.folded

    @property
    def can_act(self) -> bool:
        """Holding cards with chips behind (not all-in)."""
        return not self.folded and self.stack > 0


# A verified action, normalised, is the log record the hand appends for it: ``kind`` is
# FOLD/CHECK/CALL/BET/RAISE, ``to`` the total bet of the round afterwards, ``added`` the chips
# put in now (built once: the same named tuple is applied and logged).
Resolved = ActionTaken


@dataclass(slots=True)  # internal and never changed (not frozen: cheaper to build)
class _RaiseRange:
    min_to: int | None  # None: only an all-in short of the minimum
    max_to: int
    is_bet: bool


class BettingRound:
    """State of the current betting round over the players of a hand."""

    def __init__(self, config: GameConfig, players: dict[int, SeatState],
                 order: tuple[int, ...]) -> None:
        self.config = config
        self.players = players
        self.order = order  # seats dealt in, ascending (clockwise)
        self.street = Street.PREFLOP
        self.current_bet = 0
        self.min_raise = config.big_blind
        self.full_level = 0  # fixed limit: total of the last full bet (or half-bet all-in)
        self.bets_made = 0  # fixed limit: bets and raises this round (the big blind is one)
        self.capped = False
        self.serial = 0  # counts full bets/raises: acting before one means the betting reopened
        self.aggressor: int | None = None
        self.cursor: int | None = None  # the seat that acted last (or the seat before the first)
        # Derived from the state above, computed by :meth:`refresh` once per change (see
        # :meth:`invalidate`), updated by :meth:`apply`, and valid while ``fresh``: the hand
        # reads ``live`` (players holding cards), ``over`` (the round is complete, also when
        # one player is left) and ``next_seat`` directly on its hot path.
        self.fresh = False
        self.over = False
        self.next_seat: int | None = None
        self.live = 0
        self._able = 0
        self._pending = 0  # players holding cards and chips who must still act or match
        self._no_limit = config.structure is Structure.NO_LIMIT
        self._seq = [players[s] for s in order]  # the players in ``order``

    def copy(self, players: dict[int, SeatState]) -> BettingRound:
        """This round over ``players``, copies of its own (for :meth:`Hand.copy`); every other
        attribute is immutable."""
        other = object.__new__(BettingRound)
        # attribute by attribute, in the order of __init__ (see Hand.copy)
        other.config = self.config
        other.players = players
        other.order = self.order
        other.street = self.street
        other.current_bet = self.current_bet
        other.min_raise = self.min_raise
        other.full_level = self.full_level
        other.bets_made = self.bets_made
        other.capped = self.capped
        other.serial = self.serial
        other.aggressor = self.aggressor
        other.cursor = self.cursor
        other.fresh = self.fresh
        other.over = self.over
        other.next_seat = self.next_seat
        other.live = self.live
        other._able = self._able
        other._pending = self._pending
        other._no_limit = self._no_limit
        other._seq = [players[s] for s in self.order]
        return other

    def invalidate(self) -> None:
        """Forget the derived turn state; every change to the players or the round calls this
        (``start`` and ``apply`` do it themselves; the hand after moving chips itself)."""
        self.fresh = False

    def refresh(self) -> None:
        """Compute the turn state afresh (rules.md §3): one pass over the players, counting
        who still holds cards and chips and finding the first who has to act clockwise after
        the last actor (seats ascend clockwise: the first such seat above the cursor, else the
        first one from the lowest). After a decision :meth:`apply` updates it instead."""
        self.fresh = True
        current = self.current_bet
        cursor = -1 if self.cursor is None else self.cursor
        live = able = pending = 0
        after: SeatState | None = None  # the first to act or match above the cursor
        before: SeatState | None = None  # the first from the lowest seat, to wrap around to
        for p in self._seq:
            if p.folded:
                continue
            live += 1
            if p.stack > 0:
                able += 1
                if not p.acted or p.bet < current:
                    pending += 1
                    if after is None:
                        if p.seat > cursor:
                            after = p
                        elif before is None:
                            before = p
        self.live = live
        self._able = able
        self._pending = pending
        self._settle(after if after is not None else before)

    def _settle(self, first: SeatState | None) -> None:
        """``over`` and the next to act, given the first player clockwise who has to act or
        match (None: nobody) and the counts of players holding cards and chips."""
        if self.live <= 1 or first is None:
            self.over = True
            self.next_seat = None
            return
        if self._able == 1:
            # Nobody left to bet against: he only has to act if he faces an all-in [000, 002 #11].
            others = max(p.bet for p in self._seq if not p.folded and p is not first)
            if first.bet >= others:
                self.over = True
                self.next_seat = None
                return
        self.over = False
        self.next_seat = first.seat

    # ----------------------------------------------------------------- round set-up
    def start(self, street: Street, *, start_after: int | None, current_bet: int = 0,
              bets_made: int = 0) -> None:
        """A new round: bets cleared (chips already moved to the pot by the caller)."""
        self.street = street
        self.current_bet = current_bet
        self.full_level = current_bet
        self.min_raise = max(self.config.big_blind, current_bet) if street is _PREFLOP \
            else self.config.big_blind
        self.bets_made = bets_made
        self.capped = False
        self.serial = 0
        self.aggressor = None
        self.cursor = start_after
        for p in self._seq:  # acted_serial and reopen_at are read only once he has acted
            p.acted = False
        self.fresh = False

    @property
    def bet_size(self) -> int:
        """Fixed-limit bet: small bet preflop and flop, big bet turn and river [000, 001]."""
        if self.street in (Street.PREFLOP, Street.FLOP):
            return self.config.small_bet_size
        return self.config.big_bet_size

    # ----------------------------------------------------------------- turn order
    def needs_action(self, p: SeatState) -> bool:
        return p.can_act and (not p.acted or p.bet < self.current_bet)

    def complete(self) -> bool:
        """The round is over: everyone matched the bet or is all-in or folded (rules.md §3)."""
        if not self.fresh:
            self.refresh()
        return self.over

    def next_to_act(self) -> int | None:
        """The seat whose turn it is, None when the round is over."""
        if not self.fresh:
            self.refresh()
        return self.next_seat

    def live_count(self) -> int:
        """Players still holding cards."""
        if not self.fresh:
            self.refresh()
        return self.live

    # ----------------------------------------------------------------- legality
    def _reopened(self, p: SeatState) -> bool:
        """May ``p`` raise? Yes if he has not acted, or a full raise came after his action, or
        (no limit, pot limit) short all-ins since then add up to a full raise (TDA 47)."""
        if not p.acted or p.acted_serial < self.serial:
            return True
        return self.config.structure is not Structure.FIXED_LIMIT \
            and self.current_bet >= p.reopen_at

    def _raise_range(self, p: SeatState) -> tuple[_RaiseRange | None, tuple[str, str]]:
        """The bet/raise totals open to ``p``, or None and (rule, why) forbidding it."""
        total = p.bet + p.stack
        current = self.current_bet
        to_call = current - p.bet if current > p.bet else 0
        is_bet = current == 0
        if p.stack <= to_call:
            return None, (cite.TABLE_STAKES, "his stack only covers a call")
        if not self.fresh:
            self.refresh()
        if self._able - (1 if p.can_act else 0) == 0:  # no opponent holding cards and chips
            return None, (cite.NO_OPPONENT, "every opponent is all-in, no more betting")
        if not self._reopened(p):
            return None, (cite.REOPEN, "an all-in for less than a full raise does not reopen "
                          "the betting for a player who already acted; call or fold")
        structure = self.config.structure
        if structure is Structure.FIXED_LIMIT:
            if self.capped:
                return None, (cite.FL_CAP, "the betting is capped (one bet and three raises)")
            # One bet on top of the last full bet; over an all-in short of half a bet this
            # completes the wager [000, 002 #37] (Robert's Rules: $15 all-in raised to $35).
            target = self.full_level + self.bet_size
            return _RaiseRange(target if total >= target else None, min(total, target),
                               is_bet), ("", "")
        min_to = self.config.big_blind if is_bet else self.current_bet + self.min_raise
        max_to = total
        if structure is Structure.POT_LIMIT:
            max_to = min(total, self.current_bet + self.pot() + to_call)
            min_to = min(min_to, max_to)
        return _RaiseRange(min_to if total >= min_to else None, max_to, is_bet), ("", "")

    def full_raise_to(self) -> int:
        """The nominal minimum (full) raise total, whatever the stacks (TDA 43 [002 #37])."""
        if self.config.structure is Structure.FIXED_LIMIT:
            return self.full_level + self.bet_size
        if self.current_bet == 0:
            return self.config.big_blind
        return self.current_bet + self.min_raise

    def pot(self) -> int:
        """Every chip in the middle, current bets included (pot-limit arithmetic)."""
        return sum(p.contributed for p in self.players.values())

    def legal(self, seat: int) -> LegalActions:
        p = self.players[seat]
        if not self.needs_action(p):
            return LegalActions(seat=seat, can_fold=False, can_check=False, call_amount=None,
                                stack=p.stack, bet=p.bet,
                                reason_no_raise="not facing a decision")
        current = self.current_bet
        to_call = current - p.bet if current > p.bet else 0
        rng, (rule, why) = self._raise_range(p)
        total = p.bet + p.stack
        all_in_to: int | None = None
        if p.stack <= to_call or (rng is not None and total <= rng.max_to):
            all_in_to = total
        min_bet = max_bet = min_raise = max_raise = None
        if rng is None:
            reason: str | None = f"{rule}: {why}"
        else:
            reason = None
            if rng.min_to is not None:
                if rng.is_bet:
                    min_bet, max_bet = rng.min_to, rng.max_to
                else:
                    min_raise, max_raise = rng.min_to, rng.max_to
        return LegalActions(
            seat=seat, can_fold=True, can_check=to_call == 0,
            call_amount=(to_call if to_call < p.stack else p.stack) if to_call > 0 else None,
            min_bet_to=min_bet, max_bet_to=max_bet, min_raise_to=min_raise,
            max_raise_to=max_raise, all_in_to=all_in_to, stack=p.stack, bet=p.bet,
            reason_no_raise=reason,
        )

    def resolve(self, action: Action) -> Resolved:
        """Verify ``action`` for its seat (turn order is the caller's business) and normalise
        it into the record the hand logs; raises :class:`IllegalAction` naming the rule."""
        return self.decide(action.seat, action.kind, action.amount)

    def decide(self, seat: int, kind: ActionKind, amount: int | None = None,
               in_turn: bool = False) -> Resolved:
        """:meth:`resolve` for the decision given by its parts (no :class:`Action` built).
        ``in_turn``: ``seat`` is the next to act (the turn state fresh), so he is dealt in,
        holds cards and chips and has to act, which is then not checked again."""
        if in_turn:
            p = self.players[seat]
        else:
            found = self.players.get(seat)
            if found is None:
                raise IllegalAction(f"seat {seat} is not dealt in", rule=cite.TURN_ORDER)
            p = found
            if p.folded:
                raise IllegalAction(f"seat {seat} has folded", rule=cite.TURN_ORDER)
            if p.stack == 0:
                raise IllegalAction(f"seat {seat} is all-in: no more decisions",
                                    rule=cite.NO_OPPONENT)
            if p.acted and p.bet >= self.current_bet:  # not needs_action(p): nothing to do
                raise IllegalAction(f"seat {seat} has acted and faces no new bet",
                                    rule=cite.TURN_ORDER)
        stack = p.stack
        bet = p.bet
        current = self.current_bet
        to_call = current - bet if current > bet else 0
        if kind is _FOLD:
            return _record(ActionTaken, (self.street, seat, _FOLD, bet, 0, False, False, False))
        if kind is _CHECK:
            if to_call > 0:
                raise IllegalAction(f"cannot check facing a bet of {current}; call "
                                    f"{min(to_call, stack)} or fold", rule=cite.CHECK)
            return _record(ActionTaken, (self.street, seat, _CHECK, bet, 0, False, False, False))
        if kind is _CALL:
            if to_call == 0:
                raise IllegalAction("nothing to call: check or bet", rule=cite.CHECK)
            added = to_call if to_call < stack else stack
            to = bet + added
            if amount is not None and amount != to:
                raise IllegalAction(f"a call is to {to}, not {amount}",
                                    rule=cite.TURN_ORDER)
            return _record(ActionTaken, (self.street, seat, _CALL, to, added, added == stack, False,
                                         False))
        total = bet + stack
        if (kind is _RAISE or kind is _BET) and amount is not None and self._no_limit \
                and current < amount <= total:
            # The usual no-limit bet or raise, accepted here when _resolve_raise would accept
            # it (which names the rule otherwise): an opponent holds cards and chips, the
            # betting is open to him (TDA 47), and it is at least a full raise or all-in
            # (rules.md §3, TDA 43). Same record as _resolve_raise.
            if not self.fresh:
                self.refresh()
            min_raise = self.min_raise
            if self._able > 1 and (not p.acted or p.acted_serial < self.serial
                                   or current >= p.reopen_at):
                if current == 0:
                    big_blind = self.config.big_blind
                    if amount >= big_blind or amount == total:
                        return _record(ActionTaken, (self.street, seat, _BET, amount,
                                                     amount - bet, amount == total,
                                                     amount >= big_blind, False))
                elif amount - current >= min_raise or amount == total:
                    return _record(ActionTaken, (self.street, seat, _RAISE, amount,
                                                 amount - bet, amount == total,
                                                 amount - current >= min_raise, False))
        if kind is ActionKind.ALL_IN:
            if stack <= to_call:
                return _record(ActionTaken, (self.street, seat, _CALL, total, stack, True, False,
                                             False))
            return self._resolve_raise(p, total, all_in_declared=True)
        if amount is None:
            raise IllegalAction(f"{kind.value} needs the total amount ('to')",
                                rule=cite.MIN_RAISE)
        return self._resolve_raise(p, amount, all_in_declared=False)

    def _resolve_raise(self, p: SeatState, to: int, *, all_in_declared: bool) -> Resolved:
        total = p.bet + p.stack
        is_bet = self.current_bet == 0
        word = "bet" if is_bet else "raise"
        if to > total:
            raise IllegalAction(f"{word} to {to} exceeds his {total} chips (stack {p.stack})",
                                rule=cite.TABLE_STAKES)
        if to <= self.current_bet:
            raise IllegalAction(f"a raise must be to more than the current bet "
                                f"{self.current_bet}", rule=cite.MIN_RAISE)
        rng, (rule, why) = self._raise_range(p)
        if rng is None:
            raise IllegalAction(why, rule=rule)
        all_in = to == total
        if to > rng.max_to:
            what = "all-in" if all_in_declared else f"{word} to {to}"
            if self.config.structure is Structure.FIXED_LIMIT:
                raise IllegalAction(f"fixed limit: {word} is to {rng.max_to}, not {what}",
                                    rule=cite.FL_SIZE)
            rule = cite.PL_MAX
            raise IllegalAction(f"{what} is above the maximum: {word} to {rng.max_to} at most",
                                rule=rule)
        if (rng.min_to is None or to < rng.min_to) and not all_in:
            minimum = self.full_raise_to()
            short = "" if rng.min_to is not None else f"; short of it, only all-in for {total}"
            if self.config.structure is Structure.FIXED_LIMIT:
                raise IllegalAction(f"fixed limit: {word} is to {minimum}{short}",
                                    rule=cite.FL_SIZE)
            rule = cite.MIN_BET if is_bet else cite.MIN_RAISE
            least = "minimum bet" if is_bet else "minimum raise"
            raise IllegalAction(f"{least} is to {minimum}{short}", rule=rule)
        kind = ActionKind.BET if is_bet else ActionKind.RAISE
        return _record(ActionTaken, (self.street, p.seat, kind, to, to - p.bet, all_in,
                                     self._is_full(to), False))

    def _is_full(self, to: int) -> bool:
        """Does a bet/raise to ``to`` reopen the betting (rules.md §3)?"""
        if self.config.structure is Structure.FIXED_LIMIT:
            # An all-in of at least half a bet counts as a full bet [000, 002 #37].
            return 2 * (to - self.full_level) >= self.bet_size
        if self.current_bet == 0:
            return to >= self.config.big_blind
        return to - self.current_bet >= self.min_raise

    # ----------------------------------------------------------------- applying
    def apply(self, r: Resolved) -> None:
        seat = r.seat
        p = self.players[seat]
        p.acted = True
        kind = r.kind
        added = r.added
        if added:
            stack = p.stack = p.stack - added
            p.bet += added
            p.contributed += added
        else:
            stack = p.stack
        if kind is _FOLD:
            p.folded = True  # he acts no more: nothing to reopen for him
        elif kind is _BET or kind is _RAISE:
            self.aggressor = seat
            if r.full_raise:
                self.serial += 1
                if self.config.structure is _FIXED_LIMIT:
                    self.full_level = r.to
                    self._count_bet()
                else:
                    self.min_raise = max(self.min_raise, r.to - self.current_bet)
            self.current_bet = max(self.current_bet, r.to)
        current = self.current_bet
        if kind is not _FOLD:
            p.acted_serial = self.serial
            # Facing at least a full raise over the bet he acted on reopens him (TDA 47).
            p.reopen_at = current + self.min_raise
        self.cursor = seat
        if not self.fresh:
            return  # computed afresh when asked
        # The turn state, updated from this one change (what refresh() would find): the
        # actor held cards and chips and had to act; a fold or an all-in takes him out of the
        # counts; after a bet or raise every other player holding cards and chips has to act
        # again, else one player fewer has; the next to act is the first of them clockwise
        # after him.
        if kind is _FOLD:
            live = self.live = self.live - 1
            able = self._able = self._able - 1
        else:
            live = self.live
            able = self._able
            if stack == 0:
                able = self._able = able - 1
        if kind is _BET or kind is _RAISE:
            pending = self._pending = able - 1 if stack else able
        else:
            pending = self._pending = self._pending - 1
        if live <= 1 or not pending:  # the round (or the hand) is over
            self.over = True
            self.next_seat = None
            return
        self._advance(seat, current, able)

    def fold_in_turn(self, seat: int) -> Resolved:
        """``apply(decide(seat, FOLD, in_turn=True))`` in one step (a fold by the player to
        act, the turn state fresh: the most frequent decision of a hand), the same record
        returned and the same changes made."""
        p = self.players[seat]
        p.acted = True
        p.folded = True
        self.cursor = seat
        live = self.live = self.live - 1
        able = self._able = self._able - 1
        pending = self._pending = self._pending - 1
        if live <= 1 or not pending:  # the round (or the hand) is over
            self.over = True
            self.next_seat = None
        else:
            self._advance(seat, self.current_bet, able)
        return _record(ActionTaken, (self.street, seat, _FOLD, p.bet, 0, False, False, False))

    def check_or_call_in_turn(self, seat: int) -> Resolved:
        """``apply(decide(seat, kind, in_turn=True))`` in one step for the check (nothing to
        call) or the call (chips to match) of the player to act, the turn state fresh: the
        same record returned and the same changes made. The caller has made sure that the
        kind fits (a check facing a bet, a call of nothing go through :meth:`decide`, which
        names the rule)."""
        p = self.players[seat]
        p.acted = True
        bet = p.bet
        current = self.current_bet
        able = self._able
        if current > bet:
            # A call: he matches the bet, or puts in what he has, all-in [000, 002 #11].
            stack = p.stack
            added = current - bet if current - bet < stack else stack
            p.stack = stack - added
            p.bet = bet + added
            p.contributed += added
            all_in = added == stack
            if all_in:
                able = self._able = able - 1
            record = _record(ActionTaken, (self.street, seat, _CALL, bet + added, added, all_in,
                                           False, False))
        else:
            record = _record(ActionTaken, (self.street, seat, _CHECK, bet, 0, False, False,
                                           False))
        p.acted_serial = self.serial
        # Facing at least a full raise over the bet he acted on reopens him (TDA 47).
        p.reopen_at = current + self.min_raise
        self.cursor = seat
        pending = self._pending = self._pending - 1
        if self.live <= 1 or not pending:  # the round (or the hand) is over
            self.over = True
            self.next_seat = None
        else:
            self._advance(seat, current, able)
        return record

    def raise_in_turn(self, seat: int, amount: int) -> Resolved | None:
        """``apply(decide(seat, RAISE, amount, in_turn=True))`` in one step for the usual
        no-limit bet or raise that :meth:`decide` accepts at once (to more than the current
        bet, at most his stack, an opponent holding cards and chips, the betting open to him
        (TDA 47), a full raise or all-in (rules.md §3, TDA 43)), the turn state fresh: the
        same record returned, the same changes made. None, nothing changed, for anything
        else, which goes through :meth:`decide` (which names the rule)."""
        p = self.players[seat]
        bet = p.bet
        stack = p.stack
        total = bet + stack
        current = self.current_bet
        if not (self._no_limit and current < amount <= total and self._able > 1
                and (not p.acted or p.acted_serial < self.serial or current >= p.reopen_at)):
            return None
        if current == 0:
            kind = _BET
            full = amount >= self.config.big_blind
        else:
            kind = _RAISE
            full = amount - current >= self.min_raise
        if not full and amount != total:
            return None  # short of the minimum and not all-in
        added = amount - bet
        left = p.stack = stack - added
        p.bet = amount
        p.contributed += added
        p.acted = True
        self.aggressor = seat
        if full:  # a full bet or raise reopens the betting (TDA 47)
            self.serial += 1
            self.min_raise = max(self.min_raise, amount - current)
        self.current_bet = amount
        p.acted_serial = self.serial
        p.reopen_at = amount + self.min_raise
        self.cursor = seat
        # every other player holding cards and chips has to act again (see apply)
        able = self._able if left else self._able - 1
        self._able = able
        pending = self._pending = able - 1 if left else able
        if self.live <= 1 or not pending:
            self.over = True
            self.next_seat = None
        else:
            self._advance(seat, amount, able)
        return _record(ActionTaken, (self.street, seat, kind, amount, added, amount == total, full,
                                     False))

    def _advance(self, seat: int, current: int, able: int) -> None:
        """The next to act after ``seat`` once the round goes on: the first player clockwise
        holding cards and chips who has to act or match ``current``."""
        seq = self._seq
        i = self.order.index(seat) + 1
        nxt: SeatState | None = None
        for q in seq[i:]:
            if not q.folded and q.stack and (not q.acted or q.bet < current):
                nxt = q
                break
        else:
            for q in seq[:i]:
                if not q.folded and q.stack and (not q.acted or q.bet < current):
                    nxt = q
                    break
        if nxt is not None and able > 1:  # the usual case of _settle
            self.over = False
            self.next_seat = nxt.seat
        else:
            self._settle(nxt)

    def _count_bet(self) -> None:
        """Fixed-limit cap: one bet and three raises with three or more players not all-in;
        unlimited heads-up in cash games when heads-up before the cap was reached; the cap
        stays in tournaments and later folds do not lift it [000, 002 #40]."""
        self.bets_made += 1
        if self.bets_made >= FL_CAP_BETS and not self.capped:
            heads_up = sum(1 for p in self.players.values() if p.can_act) <= 2
            if self.config.tournament or not heads_up:
                self.capped = True
