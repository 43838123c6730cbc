"""One hand of Texas Hold'em from the forced bets to the last chip paid.

Pure and deterministic: the caller (dealing monitor, simulator, hand-history replay) drives the
deal and the actions; the hand checks every step against the rules and keeps an append-only log.
Every public method either applies its change completely or raises :class:`IllegalAction`
(naming the rule) and leaves the hand exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, NoReturn

from table_controller.engine import citations as cite
from table_controller.engine.actions import Action, ActionKind, LegalActions, Street
from table_controller.engine.betting import BettingRound, Resolved, SeatState
from table_controller.engine.config import AnteFormat, AnteOrder, GameConfig
from table_controller.engine.errors import IllegalAction
from table_controller.engine.interpret import interpret_chips
from table_controller.engine.pots import Pot, build_pots
from table_controller.engine.records import (
    ActionTaken,
    BetReturned,
    BoardDealt,
    CardsMucked,
    CardsShown,
    HandVoided,
    HoleCardsDealt,
    LogRecord,
    OutOfTurnHeld,
    OutOfTurnReleased,
    Posted,
    PostKind,
    RakeTaken,
    TimeExpired,
    pot_awarded,
)
from table_controller.engine.results import HandResult, PotAward, hand_result, pot_award
from table_controller.engine.showdown import (
    award_pots,
    clockwise_from,
    showdown_order,
    take_rake,
)
from table_controller.vocabulary.cards import DECK, Card

if TYPE_CHECKING:
    from table_controller.engine.evaluator import HandValue

_BETTING_STREETS = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)  # a tuple: enum
# members are found by identity, faster than hashing them into a set
# The street after each betting street but the river, and its number of board cards; found by
# the member's identity (an Enum member's hash is Python code).
_NEXT_STREET = {id(Street.PREFLOP): (Street.FLOP, 3), id(Street.FLOP): (Street.TURN, 1),
                id(Street.TURN): (Street.RIVER, 1)}
# Records built without the named tuple's Python-level __new__ (every field given).
_record = tuple.__new__
_BET_OF = attrgetter("bet")
_new_object = object.__new__
_FOLD, _CHECK, _CALL = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL
_BET, _RAISE = ActionKind.BET, ActionKind.RAISE
# Members used on the hot path, read as globals (an Enum class attribute costs ten times more)
_RIVER, _SHOWDOWN, _COMPLETE = Street.RIVER, Street.SHOWDOWN, Street.COMPLETE


class Hand:
    """A hand in progress; created by :meth:`Table.start_hand`, or by :meth:`from_positions`
    when the positions come from elsewhere (both public; the keyword-only constructor is the
    same as ``from_positions`` with ``number`` required).

    ``stacks`` are the chips of the seats dealt in, before any forced bet. ``missed`` maps a
    returning player's seat to ``(missed_small, missed_big)`` blinds he must now pay
    ([000, 003]: a missed blind must be paid before playing again): the big blind live, the
    small blind dead.
    """

    def __init__(self, *, config: GameConfig, number: int, stacks: Mapping[int, int],
                 button: int | None, small_blind_seat: int | None, big_blind_seat: int,
                 straddle_seat: int | None = None,
                 missed: Mapping[int, tuple[bool, bool]] | None = None) -> None:
        if len(stacks) < 2:
            raise IllegalAction("a hand needs at least two players", rule=cite.DEAL)
        if min(stacks.values()) <= 0:
            raise IllegalAction("every player dealt in needs chips", rule=cite.TABLE_STAKES)
        self.config = config
        self.number = number
        self.button = button
        self.small_blind_seat = small_blind_seat
        self.big_blind_seat = big_blind_seat
        self.straddle_seat = straddle_seat
        # Dealing: one card at a time clockwise from the seat left of the button, the button
        # last (heads-up the big blind first) [000, 002 #30].
        seats = sorted(stacks)
        self.deal_order: tuple[int, ...] = _rotated(seats, button)
        self.street = Street.PREFLOP
        self.log: list[LogRecord] = []
        self.result: HandResult | None = None
        self.board: list[Card] = []
        self.hole_cards: dict[int, tuple[Card, ...]] = {}
        self._dealt = 0  # bits of the board and hole cards so far (duplicate check)
        self.starting_stacks = dict(stacks)
        self.players = {s: SeatState(s, c) for s, c in stacks.items()}
        self._round = BettingRound(config, self.players, tuple(seats))
        self._held: dict[int, tuple[Action, int]] = {}
        self._round_closed = False
        self._street_log_start = 0
        self._street_acted = False  # an ActionTaken since the street began
        self._final_aggressor: int | None = None
        self._flop_dealt = False
        self._dead: dict[int, int] = {}  # a single (big blind or button) ante: dead chips
        self._returned: dict[int, int] = {}  # uncalled bets given back [002 #48]
        self.ante_seat: int | None = self._ante_seat()
        self._validate_positions(straddle_seat)
        self._post_forced_bets(missed or {})
        first_actor_after = straddle_seat if straddle_seat is not None else big_blind_seat
        self.preflop_order: tuple[int, ...] = _rotated(seats, first_actor_after)
        self._after_change()

    @classmethod
    def from_positions(cls, *, config: GameConfig, stacks: Mapping[int, int], button: int | None,
                       big_blind_seat: int, small_blind_seat: int | None = None,
                       straddle_seat: int | None = None, number: int = 1,
                       missed: Mapping[int, tuple[bool, bool]] | None = None) -> Hand:
        """One hand whose positions come from elsewhere (a hand history, a console), not from a
        :class:`Table`'s previous hand. Public and stable (docs/engine.md).

        ``stacks``: chips of each seat dealt in (at least two, all positive). ``button`` may be
        a seat nobody is dealt in at (dead button [002 #28]) or None (the last seat dealt in
        then acts last after the flop). ``small_blind_seat=None``: no small blind is posted
        (dead small blind [002 #28]). ``straddle_seat``: the seat left of the big blind, 2 x BB
        (rules.md §2 [000]). ``missed``: see the class docstring. The forced bets are posted at
        once; positions that break a rule raise :class:`IllegalAction` naming it.
        """
        return cls(config=config, number=number, stacks=stacks, button=button,
                   small_blind_seat=small_blind_seat, big_blind_seat=big_blind_seat,
                   straddle_seat=straddle_seat, missed=missed)

    def copy(self) -> Hand:
        """An independent copy of the hand as it stands: playing one changes nothing in the
        other (the log's records, and the result once there is one, are immutable and
        shared). Setting up a hand once and copying it for every hand of the same seating is
        cheaper than setting it up again (the PHH replay does so)."""
        other = object.__new__(Hand)
        # Attribute by attribute, in the order of __init__: the instance keeps CPython's
        # compact attribute storage (going through __dict__ would make every later access to
        # the copy's attributes slower than the hand's own).
        other.config = self.config
        other.number = self.number
        other.button = self.button
        other.small_blind_seat = self.small_blind_seat
        other.big_blind_seat = self.big_blind_seat
        other.straddle_seat = self.straddle_seat
        other.deal_order = self.deal_order
        other.street = self.street
        other.log = list(self.log)
        other.result = self.result
        other.board = list(self.board)
        other.hole_cards = dict(self.hole_cards)
        other._dealt = self._dealt
        other.starting_stacks = dict(self.starting_stacks)
        players: dict[int, SeatState] = {}
        for s, p in self.players.items():
            # each player's state copied slot by slot, without the dataclass __init__ (a
            # Python call with eight arguments: twice the cost of the stores alone)
            q = _new_object(SeatState)
            q.seat = p.seat
            q.stack = p.stack
            q.bet = p.bet
            q.contributed = p.contributed
            q.folded = p.folded
            q.acted = p.acted
            q.acted_serial = p.acted_serial
            q.reopen_at = p.reopen_at
            players[s] = q
        other.players = players
        other._round = self._round.copy(players)
        other._held = dict(self._held)
        other._round_closed = self._round_closed
        other._street_log_start = self._street_log_start
        other._street_acted = self._street_acted
        other._final_aggressor = self._final_aggressor
        other._flop_dealt = self._flop_dealt
        other._dead = dict(self._dead)
        other._returned = dict(self._returned)
        other.ante_seat = self.ante_seat
        other.preflop_order = self.preflop_order
        return other

    # ------------------------------------------------------------------ set-up
    def _ante_seat(self) -> int | None:
        """Who posts the single ante (rules.md §2, TDA 2024 RP-11): the big blind, or the
        button (with a dead button the player who acts last after the flop); None when every
        player antes or there is no ante."""
        cfg = self.config
        if not cfg.single_ante:
            return None
        if cfg.ante_format is AnteFormat.BIG_BLIND:
            return self.big_blind_seat
        if self.button in self.players:
            return self.button
        return self.deal_order[-1]

    def _validate_positions(self, straddle_seat: int | None) -> None:
        if self.big_blind_seat not in self.players:
            raise IllegalAction(f"big blind seat {self.big_blind_seat} is not dealt in",
                                rule="rules.md §2 [000]")
        if self.small_blind_seat is not None and self.small_blind_seat not in self.players:
            raise IllegalAction(f"small blind seat {self.small_blind_seat} is not dealt in",
                                rule="rules.md §2 [000]")
        if straddle_seat is None:
            return
        if len(self.players) < 3:
            raise IllegalAction("no straddle heads-up: the seat left of the big blind is the "
                                "small blind", rule=cite.STRADDLE)
        left_of_bb = clockwise_from(self.players, self.big_blind_seat)[0]
        if straddle_seat != left_of_bb:
            raise IllegalAction(f"only seat {left_of_bb}, left of the big blind, may straddle",
                                rule=cite.STRADDLE)
        antes = not self.config.single_ante or straddle_seat == self.ante_seat
        needed = 2 * self.config.big_blind + (self.config.ante if antes else 0)
        if self.players[straddle_seat].stack < needed:
            raise IllegalAction(f"a straddle is {2 * self.config.big_blind} (after the ante); "
                                f"seat {straddle_seat} has less", rule=cite.STRADDLE)

    def _post(self, seat: int, kind: PostKind, amount: int, *, live: bool,
              dead: bool = False) -> None:
        p = self.players[seat]
        chips = min(amount, p.stack)
        if chips <= 0:
            return
        p.stack -= chips
        p.contributed += chips
        if live:
            p.bet += chips
        if dead:
            self._dead[seat] = self._dead.get(seat, 0) + chips
        self.log.append(_record(Posted, (seat, kind, chips, live, p.stack == 0)))

    def _post_single_ante(self) -> None:
        """The one ante of the table (rules.md §2, TDA 2024 RP-11): dead, to the main pot."""
        assert self.ante_seat is not None
        self._post(self.ante_seat, PostKind.ANTE, self.config.ante, live=False, dead=True)

    def _post_forced_bets(self, missed: Mapping[int, tuple[bool, bool]]) -> None:
        cfg = self.config
        single = self.ante_seat is not None
        blind_first = single and cfg.ante_order is AnteOrder.BLIND_FIRST
        if cfg.ante and not single:
            # Antes go to the pot and are not part of any bet [001].
            for seat in self.deal_order:
                self._post(seat, PostKind.ANTE, cfg.ante, live=False)
        elif single and not blind_first:
            self._post_single_ante()  # house: the ante first (pokerkit's order)
        if self.small_blind_seat is not None:
            self._post(self.small_blind_seat, PostKind.SMALL_BLIND, cfg.small_blind, live=True)
        self._post(self.big_blind_seat, PostKind.BIG_BLIND, cfg.big_blind, live=True)
        if blind_first:
            # Big-blind-first calculation: the ante takes what the blind left (TDA 2024 RP-11).
            self._post_single_ante()
        for seat in self.deal_order if missed else ():
            small, big = missed.get(seat, (False, False))
            if seat in (self.small_blind_seat, self.big_blind_seat):
                continue
            if big:  # a missed big blind is posted live [000, 003]
                self._post(seat, PostKind.MISSED_BIG_BLIND, cfg.big_blind, live=True)
            if small:  # a missed small blind is dead: it goes to the pot [000, 003]
                self._post(seat, PostKind.MISSED_SMALL_BLIND, cfg.small_blind, live=False)
        current = cfg.big_blind
        bets_made = 1  # fixed limit: the big blind is the first bet
        if self.straddle_seat is not None:
            # Straddle: 2 x BB, acts as a raise and keeps the option [000]; the straddle is
            # then the largest blind, so the minimum raise is one straddle (docs/engine.md).
            current = 2 * cfg.big_blind
            self._post(self.straddle_seat, PostKind.STRADDLE, current, live=True)
            bets_made = 2
        after = self.straddle_seat if self.straddle_seat is not None else self.big_blind_seat
        self._round.start(Street.PREFLOP, start_after=after, current_bet=current,
                          bets_made=bets_made)
        self._street_log_start = len(self.log)
        self._street_acted = False

    # ------------------------------------------------------------------ views
    @property
    def betting_complete(self) -> bool:
        """The current betting round is over (next street, or showdown, is due)."""
        return self.street not in _BETTING_STREETS or self._round_closed

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is; None when no betting is due."""
        if self._round_closed or self.street not in _BETTING_STREETS:
            return None
        return self._round.next_to_act()

    @property
    def stacks(self) -> dict[int, int]:
        """Chips behind (not in the pot) of every seat dealt in; the final stacks once the
        hand is complete."""
        return {s: p.stack for s, p in self.players.items()}

    @property
    def bets(self) -> dict[int, int]:
        """Live chips in front of each player in the current round."""
        return {s: p.bet for s, p in self.players.items() if p.bet}

    def to_call(self, seat: int) -> int:
        """Chips ``seat`` must add to match the current bet of the round (0: nothing to call,
        or no betting is due); not capped by his stack. ``IllegalAction`` if he is not dealt
        in."""
        p = self.players.get(seat)
        if p is None:
            raise IllegalAction(f"seat {seat} is not dealt in", rule=cite.TURN_ORDER)
        if self._round_closed or self.street not in _BETTING_STREETS:
            return 0
        current = self._round.current_bet
        return current - p.bet if current > p.bet else 0

    @property
    def contributions(self) -> dict[int, int]:
        """Every chip each seat has put in this hand (antes, blinds, bets)."""
        return {s: p.contributed for s, p in self.players.items()}

    @property
    def dead_ante(self) -> int:
        """Chips of the single (big blind or button) ante posted, dead in the main pot."""
        return sum(self._dead.values())

    def _build_pots(self, live: Sequence[int]) -> list[Pot]:
        """The pots (rules.md §4); a single ante is dead: it goes to the main pot and is
        nobody's contribution to match (rules.md §2, TDA 2024 RP-11)."""
        dead = self._dead
        if not dead:
            players = self.players
            levels = {players[s].contributed for s in live}
            if len(levels) == 1 and 0 not in levels:
                # every player still in put in the same: one pot of every chip, which they
                # all contest (what build_pots gives for it, without its layers)
                total = 0
                for p in players.values():
                    total += p.contributed
                return [Pot(total, tuple(sorted(live)))]
            return build_pots(self.contributions, live)
        layered = {s: p.contributed - dead.get(s, 0) for s, p in self.players.items()}
        return build_pots(layered, live, dead=sum(dead.values()))

    @property
    def pot(self) -> int:
        """All chips in the middle, current bets included."""
        return sum(p.contributed for p in self.players.values())

    @property
    def live_seats(self) -> tuple[int, ...]:
        """Seats still holding cards, in dealing order."""
        return tuple(s for s in self.deal_order if not self.players[s].folded)

    @property
    def held_out_of_turn(self) -> dict[int, Action]:
        """Out-of-turn actions waiting for the turn to reach their seat [002 #35]."""
        return {s: a for s, (a, _) in self._held.items()}

    @property
    def actions_this_round(self) -> list[ActionTaken]:
        return [r for r in self.log[self._street_log_start:] if isinstance(r, ActionTaken)]

    def pots(self) -> list[Pot]:
        """Main pot and side pots as they stand now (rules.md §4)."""
        return self._build_pots(self.live_seats)

    # ------------------------------------------------------------------ decisions
    def _require_betting(self) -> None:
        if self.result is not None:
            raise IllegalAction("the hand is over", rule=cite.HAND_OVER)
        if self.betting_complete:
            raise IllegalAction(f"no betting now: the {self.street.value} betting round is "
                                "over", rule=cite.TURN_ORDER)

    def legal_actions(self, seat: int | None = None) -> LegalActions:
        """What ``seat`` (default: the player to act) may do now. For another seat, what he
        could do out of turn if the action to him does not change."""
        self._require_betting()
        target = self.to_act if seat is None else seat
        if target is None or target not in self.players:
            raise IllegalAction(f"seat {seat} is not dealt in", rule=cite.TURN_ORDER)
        return self._round.legal(target)

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalAction` naming the rule if ``action`` may not be taken now."""
        self._verify(action)

    def can(self, action: Action) -> bool:
        try:
            self._verify(action)
        except IllegalAction:
            return False
        return True

    def _verify(self, action: Action) -> Resolved:
        if self._round_closed or self.result is not None or self.street not in _BETTING_STREETS:
            self._require_betting()  # raises, naming why
        resolved = self._round.resolve(action)
        if self._held and action.seat in self._held and action.seat != self.to_act:
            raise IllegalAction(f"seat {action.seat} already has an action out of turn "
                                "waiting", rule=cite.OUT_OF_TURN)
        return resolved

    def act(self, action: Action) -> None:
        """Apply ``action``. In turn it takes effect at once. Out of turn it is held, binding,
        until the turn reaches the seat; if the action to him changed meanwhile (a bet or
        raise), it is void, any chips go back and he decides again; a fold out of turn stands
        (rules.md §3 [002 #35])."""
        # _verify, inlined: this is the engine's hottest path (docs/engine.md, Speed)
        if self._round_closed or self.result is not None or self.street not in _BETTING_STREETS:
            self._require_betting()  # raises, naming why
        rnd = self._round
        seat = action.seat
        resolved = rnd.decide(seat, action.kind, action.amount)
        if not rnd.fresh:
            rnd.refresh()
        if seat != rnd.next_seat:  # out of turn
            if self._held and seat in self._held:
                raise IllegalAction(f"seat {seat} already has an action out of turn "
                                    "waiting", rule=cite.OUT_OF_TURN)
            self._held[seat] = (action, rnd.current_bet)
            self.log.append(OutOfTurnHeld(self.street, action))
            return
        rnd.apply(resolved)
        self._street_acted = True
        self.log.append(resolved)  # the resolved action is its own log record
        # _after_change, its usual case inlined: the betting goes on (apply has updated the
        # turn state; one player left holding cards is a round over too)
        if rnd.over or self._held:
            self._after_change()

    def act_in_turn(self, seat: int, kind: ActionKind, amount: int | None = None) -> None:
        """Apply the decision of ``seat``, whose turn it must be: as :meth:`act` does, every
        rule checked and :class:`IllegalAction` naming the one broken, except that an action
        out of turn is refused (turn order, rules.md §3) instead of held [002 #35], and is
        refused for that before its own legality is checked. ``amount`` is the total bet
        ("to") of a bet or raise, as in :class:`Action`. For callers whose actions come in
        turn order, such as a hand history's replay: no :class:`Action` is built."""
        rnd = self._round_in_turn(seat)
        if kind is _FOLD:
            resolved = rnd.fold_in_turn(seat)
        elif amount is None and (kind is _CALL if rnd.current_bet > rnd.players[seat].bet
                                 else kind is _CHECK):
            resolved = rnd.check_or_call_in_turn(seat)  # a check, or a call of no stated total
        else:
            quick = (rnd.raise_in_turn(seat, amount) if amount is not None
                     and (kind is _RAISE or kind is _BET) else None)  # the usual no-limit one
            if quick is None:
                resolved = rnd.decide(seat, kind, amount, True)
                rnd.apply(resolved)
            else:
                resolved = quick
        self._in_turn_done(rnd, resolved)

    def _round_in_turn(self, seat: int) -> BettingRound:
        """The betting round, fresh, once it is known to be ``seat``'s turn in it (else
        :class:`IllegalAction`: no betting due, or out of turn, rules.md §3)."""
        if self._round_closed:  # also when the hand is over or at the showdown
            self._require_betting()  # raises, naming why
        rnd = self._round
        if not rnd.fresh:
            rnd.refresh()
        if seat != rnd.next_seat:
            raise IllegalAction(f"seat {seat} acts out of turn: seat {rnd.next_seat} is to act",
                                rule=cite.TURN_ORDER)
        return rnd

    def _in_turn_done(self, rnd: BettingRound, resolved: Resolved) -> None:
        """An action in turn was applied: logged, and the round or the hand over if it is."""
        self._street_acted = True
        self.log.append(resolved)
        if rnd.over or self._held:  # the betting round or the hand is over
            self._after_change()

    def check_or_call_in_turn(self, seat: int) -> None:
        """``act_in_turn(seat, CALL if to_call(seat) else CHECK)`` in one call: the check, or
        the call, of the player to act (PHH's ``cc``). Refused, with the same error, where
        ``act_in_turn`` refuses it (out of turn, no betting due)."""
        rnd = self._round_in_turn(seat)
        resolved = rnd.check_or_call_in_turn(seat)
        self._in_turn_done(rnd, resolved)

    def time_expired(self, seat: int) -> None:
        """Time called on the player to act ran out: his hand is dead [002 #24] (a fold; his
        chips stay in the pot)."""
        self._require_betting()
        if seat != self.to_act:
            raise IllegalAction(f"time can only run out on the player to act "
                                f"({self.to_act}), not seat {seat}", rule=cite.TIME)
        resolved = self._round.resolve(Action(seat=seat, kind=ActionKind.FOLD))
        self._held.pop(seat, None)
        self.log.append(TimeExpired(self.street, seat))
        self._apply(resolved, out_of_turn=False)
        self._after_change()

    def interpret_chips(self, seat: int, amount: int, *, single_chip: bool = False) -> Action:
        """The action meant by pushing ``amount`` chips without a declaration (the 50% rule,
        TDA 43 [002 #37, #38, #39]); nothing is applied. See :func:`interpret.interpret_chips`.
        """
        legal = self.legal_actions(seat)
        if not legal.can_fold:
            raise IllegalAction(f"seat {seat} faces no decision", rule=cite.TURN_ORDER)
        return interpret_chips(legal, amount, current_bet=self._round.current_bet,
                               full_raise_to=self._round.full_raise_to(),
                               single_chip=single_chip)

    # ------------------------------------------------------------------ applying
    def _apply(self, r: Resolved, *, out_of_turn: bool) -> None:
        self._round.apply(r)
        self._street_acted = True
        self.log.append(r._replace(out_of_turn=True) if out_of_turn else r)

    def _after_change(self) -> None:
        """Advance after an action: held out-of-turn actions, end of round, end of hand."""
        rnd = self._round
        while True:
            if not rnd.fresh:
                rnd.refresh()
            if rnd.live == 1:
                self._end_by_folds()
                return
            if rnd.over:
                self._close_round()
                return
            if not self._held:
                return
            seat = rnd.next_to_act()
            if seat is None or seat not in self._held:
                return
            action, bet_at_hold = self._held.pop(seat)
            unchanged = self._round.current_bet == bet_at_hold
            if unchanged or action.kind is ActionKind.FOLD:
                try:
                    resolved = self._round.resolve(action)
                except IllegalAction:
                    self.log.append(OutOfTurnReleased(self.street, action))
                    return
                self._apply(resolved, out_of_turn=True)
                continue
            self.log.append(OutOfTurnReleased(self.street, action))
            return

    def _return_uncalled(self) -> None:
        """The uncalled part of the round's largest bet goes back [002 #48]: what the top bet
        exceeds the second-largest by (:func:`pots.uncalled_excess`, here without building a
        mapping of the bets)."""
        players = self.players.values()
        bets = sorted(map(_BET_OF, players))  # at least two players
        high = bets[-1]
        chips = high - bets[-2]
        if not chips:
            return
        for p in players:
            if p.bet == high:
                break
        seat = p.seat
        p.bet -= chips
        p.contributed -= chips
        p.stack += chips
        self._round.fresh = False  # invalidate(): chips moved
        self._returned[seat] = self._returned.get(seat, 0) + chips
        self.log.append(_record(BetReturned, (seat, chips)))

    def _close_round(self) -> None:
        self._round_closed = True
        for action, _ in self._held.values():
            self.log.append(OutOfTurnReleased(self.street, action))
        self._held.clear()
        self._return_uncalled()
        if self._street_acted:
            self._final_aggressor = self._round.aggressor
        for p in self.players.values():
            p.bet = 0
        self._round.fresh = False  # invalidate(): chips moved
        if self.street is _RIVER:
            self.street = _SHOWDOWN

    def _end_by_folds(self) -> None:
        """Everybody else folded: the whole pot to the last player, no showdown [000]."""
        if self._held:
            for action, _ in self._held.values():
                self.log.append(OutOfTurnReleased(self.street, action))
            self._held.clear()
        self._return_uncalled()
        # One pot: every chip in the middle (a dead ante too) goes to the last player.
        total = 0
        winner = -1
        for p in self.players.values():
            total += p.contributed
            if not p.folded:
                winner = p.seat
        rake = 0
        if self.config.rake is not None:
            pots, rake = take_rake([Pot(total, (winner,))], self.config.rake,
                                   flop_dealt=self._flop_dealt)
            total = pots[0].amount
        awards = [pot_award(total, (winner,), (winner,), {winner: total})]
        self._finish(awards, rake, showdown=False)

    def _finish(self, awards: list[PotAward], rake: int, *, showdown: bool) -> None:
        log = self.log
        if rake:
            log.append(RakeTaken(rake))
        players = self.players
        for i, award in enumerate(awards):
            shares = award.shares
            log.append(pot_awarded(i, award.amount, tuple(sorted(shares.items()))))
            for seat, chips in shares.items():
                players[seat].stack += chips
        final = {}
        for seat, p in players.items():
            p.bet = 0
            final[seat] = p.stack
        self._round.fresh = False  # invalidate(): chips moved
        self._round_closed = True
        self.street = _COMPLETE
        self.result = hand_result(awards, dict(self._returned), rake, final, showdown)

    # ------------------------------------------------------------------ cards
    def _add_dealt(self, cards: Sequence[Card]) -> None:
        """Add ``cards`` to the cards dealt, checked distinct and new (a duplicate is a fouled
        deck, TDA 2024 35-E): nothing is added when they are not."""
        dealt = self._dealt
        for card in cards:
            bit = _BIT_OF_CARD.get(id(card)) or _card_bit(card)
            if dealt & bit:
                self._refuse_duplicates(cards)
            dealt |= bit
        self._dealt = dealt

    def _refuse_duplicates(self, cards: Sequence[Card]) -> NoReturn:
        """Name the duplicates among ``cards`` and the hand's own cards, and refuse them
        (fouled deck, TDA 2024 35-E); the cards dealt stay as they were."""
        known = {*self.board, *(c for hole in self.hole_cards.values() for c in hole)}
        dup = sorted({str(c) for c in cards if c in known or list(cards).count(c) > 1})
        raise IllegalAction(f"duplicate card(s) {' '.join(dup)}: fouled deck, the hand "
                            "must be voided", rule=cite.DUPLICATE)

    @staticmethod
    def _check_distinct(cards: Sequence[Card], known: set[Card]) -> set[Card]:
        """``cards`` as a set, checked distinct and not among ``known`` (fouled deck)."""
        new = set(cards)
        if len(new) != len(cards) or not known.isdisjoint(new):
            dup = sorted({str(c) for c in cards if c in known or list(cards).count(c) > 1})
            raise IllegalAction(f"duplicate card(s) {' '.join(dup)}: fouled deck, the hand "
                                "must be voided", rule=cite.DUPLICATE)
        return new

    def deal_hole(self, seat: int, cards: Sequence[Card]) -> None:
        """Record ``seat``'s two hole cards (needed for the showdown; may come late)."""
        if self.result is not None:
            raise IllegalAction("the hand is over", rule=cite.HAND_OVER)
        if seat not in self.players:
            raise IllegalAction(f"seat {seat} is not dealt in", rule="rules.md §5 [002 #31]")
        if len(cards) != 2:
            raise IllegalAction(f"a player gets two hole cards, not {len(cards)}",
                                rule="rules.md §1, §5 [000, 002 #31]")
        hole_cards = self.hole_cards
        if seat in hole_cards:
            raise IllegalAction(f"seat {seat} already has hole cards", rule=cite.DEAL)
        first, second = cards  # _add_dealt, inlined: six deals in every hand
        try:  # a subscript: cheaper than a call of get (a miss is a card not of DECK)
            a = _BIT_OF_CARD[id(first)]
            b = _BIT_OF_CARD[id(second)]
        except KeyError:
            a, b = _card_bit(first), _card_bit(second)
        dealt = self._dealt
        if a == b or dealt & (a | b):
            self._refuse_duplicates(cards)
        self._dealt = dealt | a | b
        hole = hole_cards[seat] = tuple(cards)
        self.log.append(_record(HoleCardsDealt, (seat, hole)))

    def deal_board(self, cards: Sequence[Card]) -> None:
        """The next board cards: three for the flop, then one, then one, each only when the
        betting round before it is over (premature cards are invalid, rules.md §5 [003])."""
        if self.result is not None:
            raise IllegalAction("the hand is over: no more cards (no rabbit hunting)",
                                rule=cite.RABBIT)
        following = _NEXT_STREET.get(id(self.street))
        if following is None:
            raise IllegalAction("the board is complete", rule=cite.DEAL)
        nxt, count = following
        if not self._round_closed:
            raise IllegalAction(f"the {self.street.value} betting round is not complete: "
                                "premature board card(s)", rule="rules.md §5 [003]")
        if len(cards) != count:
            raise IllegalAction(f"the {nxt.value} is {count} card(s), not "
                                f"{len(cards)}", rule=cite.DEAL)
        self._add_dealt(cards)
        self.board.extend(cards)
        self.street = nxt
        self._flop_dealt = True
        self.log.append(_record(BoardDealt, (nxt, tuple(cards))))
        self._street_log_start = len(self.log)
        self._street_acted = False
        self._round_closed = False
        # From the flop on, the first active player left of the button acts first [000, 001].
        after = self.button if self.button is not None else self.deal_order[-1]
        self._round.start(nxt, start_after=after)
        self._after_change()

    # ------------------------------------------------------------------ showdown
    def showdown_order(self) -> list[int]:
        """Who shows first (rules.md §4, TDA 17 [000, 002 #12])."""
        return self._showdown_order(self.pots())

    def _showdown_order(self, pots: list[Pot]) -> list[int]:
        return showdown_order(self.live_seats, pots, aggressor=self._final_aggressor,
                              button=self.button)

    def showdown(self, hole_cards: Mapping[int, Sequence[Card]] | None = None, *,
                 mucked: Iterable[int] = ()) -> HandResult:
        """Compare hands and pay every pot. ``hole_cards`` adds or confirms cards (recorded
        cards are used otherwise); ``mucked`` seats forfeit: cards must be tabled to win
        [002 #13]. Cards speak [002 #10]."""
        if self.street is not _SHOWDOWN:
            raise IllegalAction(f"no showdown during the {self.street.value}", rule=cite.DEAL)
        cards = dict(self.hole_cards)
        given = {s: tuple(c) for s, c in (hole_cards or {}).items()}
        fresh = False  # cards given for a seat that has none recorded
        for seat, hand in given.items():
            if seat not in self.players or len(hand) != 2:
                raise IllegalAction(f"seat {seat}: two hole cards of a player dealt in "
                                    "expected", rule=cite.SHOW)
            dealt = cards.get(seat)
            if dealt is None:
                fresh = True
            elif dealt != hand and set(dealt) != set(hand):  # the same cards: usually the
                raise IllegalAction(f"seat {seat} was dealt {_text(dealt)}, not "  # same objects
                                    f"{_text(hand)}", rule=cite.DUPLICATE)
        if fresh:
            known = set(self.board)
            for seat, hand in {**cards, **given}.items():
                self._check_distinct(hand, known)
                known.update(hand)
                cards[seat] = hand
        else:
            # only cards already dealt, which deal_hole and deal_board checked distinct
            cards.update(given)
        muck = set(mucked)
        tabled = [s for s in self.live_seats if s not in muck]
        missing = [s for s in tabled if s not in cards]
        if missing:
            raise IllegalAction(f"seat(s) {missing}: cards must be tabled to win (or mucked)",
                                rule=cite.SHOW)
        evaluate = _EVALUATE or _import_evaluate()
        values = {s: evaluate(list(cards[s]) + self.board) for s in tabled}
        pots = self.pots()
        for i, pot in enumerate(pots):
            if not any(s in values for s in pot.eligible):
                raise IllegalAction(f"pot {i}: at least one contender must table his cards",
                                    rule=cite.SHOW)
        order = self._showdown_order(pots)
        for seat in order:
            if seat in values:
                self.log.append(_record(CardsShown, (seat, cards[seat], values[seat].description)))
            else:
                self.log.append(CardsMucked(seat))
        raked, rake = take_rake(pots, self.config.rake, flop_dealt=self._flop_dealt)
        awards = award_pots(raked, {s: v.score for s, v in values.items()},
                            rule=self.config.odd_chip, unit=self.config.chip_unit,
                            button=self.button, preflop_order=self.preflop_order)
        self._finish(awards, rake, showdown=True)
        assert self.result is not None
        return self.result

    def void(self, reason: str) -> HandResult:
        """Misdeal or fouled deck: the hand is void and every chip goes back to whoever put
        it in (rules.md §5 [000, 002 #31, 003], TDA 2024 35-E)."""
        if self.result is not None:
            raise IllegalAction("the hand is already over", rule=cite.HAND_OVER)
        refunds = {s: p.contributed for s, p in self.players.items() if p.contributed}
        self.log.append(HandVoided(reason, tuple(sorted(refunds.items()))))
        self._held.clear()
        for p in self.players.values():
            p.stack += p.contributed
            p.contributed = 0
            p.bet = 0
        self._dead.clear()
        self._round.fresh = False  # invalidate(): chips moved
        self._round_closed = True
        self.street = Street.COMPLETE
        self.result = HandResult(pots=[], returned=refunds, rake=0, voided=True,
                                 final_stacks=self.stacks, reason=reason)
        return self.result


# The dealt cards are one integer, a bit per card (Card.index), so the duplicate check hashes
# no Card (the dataclass hash is Python code). The 52 cards of DECK, which the readers hand
# out, find their bit by identity (they live as long as the program, so no other object has
# their id); any other Card object computes it.
_BIT_OF_CARD: dict[int, int] = {id(card): 1 << card.index for card in DECK}


# The evaluator builds its lookup tables when first imported (a quarter of a second): imported
# at the first showdown, not by every program that plays or replays hands (most hands end
# without one), and kept here (an import statement at every showdown costs a lookup chain).
_EVALUATE: Callable[[Sequence[Card]], HandValue] | None = None


def _import_evaluate() -> Callable[[Sequence[Card]], HandValue]:
    global _EVALUATE
    from table_controller.engine.evaluator import evaluate

    _EVALUATE = evaluate
    return evaluate


def _card_bit(card: Card) -> int:
    return 1 << card.index


def _rotated(seats: list[int], after: int | None) -> tuple[int, ...]:
    """``seats`` (ascending) clockwise from the first seat after ``after`` (which may be empty
    or None: then from the lowest); as :func:`showdown.clockwise_from`."""
    if after is None or after >= seats[-1]:  # the button on the last seat, usually
        return tuple(seats)
    for i, seat in enumerate(seats):
        if seat > after:
            return (*seats[i:], *seats[:i])
    return tuple(seats)


def _text(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)
