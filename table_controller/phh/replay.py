"""Play a :class:`HandHistory` through our rules engine and return the finishing stacks.

The engine decides everything it decides at a real table (blinds, who acts, legal amounts,
pots, odd chips, showdown); the file only supplies the decisions and the cards. Any action the
engine refuses, any card that is not a card or appears twice, and any hand the engine cannot set
up the way the file describes raises :class:`PhhError` naming the action or field.

What the engine plays, and so what can be replayed (docs/hand-histories.md):

- variants NT, PT, FT; uniform antes, or one ante for the table posted by the big blind or
  by the button (``antes`` with one entry, rules.md §2, TDA 2024 RP-11); blinds
  ``[SB, BB, 0, ...]`` with optionally a straddle of 2 x BB by ``p3`` (the player left of the
  big blind, rules.md §2 [000]), or ``[BB, 0, ...]`` for a hand with a dead small blind
  (tournament dead-button rule [002 #28]; with a straddle the user field
  ``_dead_small_blind`` tells ``[BB, straddle, 0...]`` from a small and big blind);
- ``min_bet`` equal to the big blind (the minimum bet is the big blind, rules.md §3);
- whole chips only (in the fields and actions the replay uses: a descriptive field such as
  ``finishing_stacks`` with half a chip is kept as written and not used);
- a check (``cc``) by the last player with chips when every opponent is all-in for no more
  than his bet is accepted as the no-op it is (pokerkit writes it; the engine has closed the
  round);
- ``ante_trimming_status`` is not used with a single ante: it is dead in the main pot;
- user-defined fields written by :mod:`.export`: ``_odd_chip``, ``_rake_percent``,
  ``_rake_cap``, ``_chip_unit``, ``_tournament``, ``_dead_small_blind``, ``_ante_order``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any, NamedTuple, cast

from table_controller.engine import (
    ActionKind,
    AnteFormat,
    AnteOrder,
    EngineError,
    GameConfig,
    Hand,
    IllegalAction,
    OddChipRule,
    RakeConfig,
    Street,
    Structure,
)
from table_controller.phh import codec
from table_controller.phh.model import (
    BetOrRaiseTo,
    CheckOrCall,
    DealBoard,
    DealHole,
    Fold,
    HandHistory,
    PhhAction,
    PhhError,
    ShowOrMuck,
)
from table_controller.vocabulary.cards import Card

_BETTING = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)
STRUCTURE_OF = {"NT": Structure.NO_LIMIT, "PT": Structure.POT_LIMIT, "FT": Structure.FIXED_LIMIT}


class Replayed(NamedTuple):
    """A replayed hand: finishing stacks in the file's player order, and the engine's hand."""

    finishing_stacks: tuple[int, ...]
    hand: Hand


def _field(name: str, message: str) -> PhhError:
    return PhhError(f"field {name!r}: {message}")


@dataclass(frozen=True, slots=True)
class BlindLayout:
    """Who posts what before the deal, in player numbers (1-based), from PHH's
    ``blinds_or_straddles`` (reversed heads-up, phh-std)."""

    small_blind: int  # amount (0: no small blind posted)
    big_blind: int
    small_blind_player: int | None
    big_blind_player: int
    straddle: int  # amount (0: none), posted by the player after the big blind


def blind_layout(history: HandHistory) -> BlindLayout:
    """Read the blinds the engine can post: a small blind by p1 and a big blind by p2 (heads-up:
    the big blind by p1, the small blind by the button p2, rules.md §2 [000]); no small blind
    when its seat is empty (dead small blind, [002 #28]: the big blind is then p1); optionally
    a straddle by the player left of the big blind (rules.md §2 [000])."""
    return _blind_layout(history.blinds_or_straddles,
                         history.user_fields.get("_dead_small_blind") is True)


def _blind_layout(field: Sequence[int], dead_small_blind: bool) -> BlindLayout:
    if len(field) == 2:
        # Heads-up: p1 is the big blind and posts the second entry (phh-std "reverse-assigned").
        small, big = field
        if big <= 0 or small > big:
            raise _blinds_refused(field)
        return BlindLayout(small, big, 2 if small else None, 1, 0)
    first, second, *rest = field
    if dead_small_blind:
        # written by our export: no small blind, p1 the big blind, p2 may straddle
        if first <= 0 or any(rest) or second not in (0, 2 * first):
            raise _blinds_refused(field)
        return BlindLayout(0, first, None, 1, second)
    if first and not second and not any(rest):
        return BlindLayout(0, first, None, 1, 0)  # dead small blind: p1 is the big blind
    if second <= 0 or first > second or any(rest[1:]):
        raise _blinds_refused(field)
    return BlindLayout(first, second, 1 if first else None, 2, rest[0] if rest else 0)


def _blinds_refused(field: Sequence[int]) -> PhhError:
    return _field(
        "blinds_or_straddles",
        f"{list(field)}: this table posts a small blind, a big blind and optionally a straddle "
        "by the player left of the big blind (rules.md §2)",
    )


def ante_layout(history: HandHistory, layout: BlindLayout) -> tuple[int, AnteFormat]:
    """The ante and who posts it: the same ante from every player, or one ante for the table
    posted by the big blind or by the button (rules.md §2, TDA 2024 RP-11). PHH reverses the
    heads-up entries like the blinds: ``antes[1]`` is the big blind's, ``antes[0]`` the
    button's."""
    return _ante_layout(history.antes, layout)


def _ante_layout(antes: Sequence[int], layout: BlindLayout) -> tuple[int, AnteFormat]:
    if len(set(antes)) == 1:
        return antes[0], AnteFormat.EACH
    posters = [i for i, chips in enumerate(antes) if chips]
    count = len(antes)
    if len(posters) == 1:
        slot = posters[0]
        player = count - slot if count == 2 else slot + 1  # heads-up: reverse-assigned
        if player == layout.big_blind_player:
            return antes[slot], AnteFormat.BIG_BLIND
        if player == count:
            return antes[slot], AnteFormat.BUTTON
    raise _field(
        "antes",
        f"{list(antes)}: this table plays the same ante from every player, or one ante for the "
        "table posted by the big blind or by the button (rules.md §2, TDA 2024 RP-11)",
    )


def game_config(history: HandHistory) -> GameConfig:
    """The engine configuration a history describes (raises PhhError for what it cannot play)."""
    return _setup(history)[0]


def _setup(history: HandHistory) -> tuple[GameConfig, BlindLayout]:
    """Configuration and blinds of ``history``. Hands of one game repeat the same fields, so
    the result is remembered for them (the check against the stacks is made every time)."""
    user = history.user_fields
    try:
        config, layout = _configure_cached(
            history.variant, history.antes, history.blinds_or_straddles, history.min_bet,
            history.small_bet, history.big_bet, tuple(user.items()))
    except TypeError:  # a user field holds an unhashable value (an array): not remembered
        config, layout = _configure(history.variant, history.antes, history.blinds_or_straddles,
                                    history.min_bet, history.small_bet, history.big_bet, user)
    if (config.ante and config.ante_format is AnteFormat.EACH
            and not history.ante_trimming_status and min(history.starting_stacks) < config.ante):
        raise _field(
            "ante_trimming_status",
            "false with a stack shorter than the ante: the engine pays a short ante only the "
            "chips it contributed (side pots by contribution, rules.md §4), i.e. true",
        )
    # With a single ante ``ante_trimming_status`` is not used: the big-blind or button ante is
    # dead in the main pot (rules.md §2, TDA 2024 RP-11). Trimmed, nobody's ante would match
    # it and it would go back to its poster, as pokerkit does; real files (WSOP 2019) that say
    # true record the ante as taken.
    return config, layout


@lru_cache(maxsize=256)
def _configure_cached(variant: str, antes: tuple[int, ...], blinds: tuple[int, ...],
                      min_bet: int | None, small_bet: int | None, big_bet: int | None,
                      user: tuple[tuple[str, Any], ...]) -> tuple[GameConfig, BlindLayout]:
    return _configure(variant, antes, blinds, min_bet, small_bet, big_bet, dict(user))


def _configure(variant: str, antes: Sequence[int], blinds: Sequence[int], min_bet: int | None,
               small_bet: int | None, big_bet: int | None,
               user: Mapping[str, Any]) -> tuple[GameConfig, BlindLayout]:
    structure = STRUCTURE_OF.get(variant)
    if structure is None:
        raise _field("variant", f"unsupported variant {variant!r}")
    layout = _blind_layout(blinds, user.get("_dead_small_blind") is True)
    ante, ante_format = _ante_layout(antes, layout)
    if layout.straddle and layout.straddle != 2 * layout.big_blind:
        raise _field(
            "blinds_or_straddles",
            f"straddle of {layout.straddle}; the straddle is 2 x the big blind "
            f"= {2 * layout.big_blind} (rules.md §2)",
        )
    if structure is not Structure.FIXED_LIMIT and min_bet != layout.big_blind:
        raise _field(
            "min_bet",
            f"{min_bet} differs from the big blind {layout.big_blind}; the minimum bet "
            "is the big blind (rules.md §3)",
        )
    try:
        odd_chip = OddChipRule(user.get("_odd_chip", OddChipRule.TDA.value))
    except ValueError:
        choices = ", ".join(r.value for r in OddChipRule)
        raise _field("_odd_chip", f"{user.get('_odd_chip')!r} is not one of {choices}") from None
    # A file with a single ante that does not say follows pokerkit, the PHH reference
    # implementation: the ante first. (Without a single ante the order does not apply.)
    unsaid = AnteOrder.BLIND_FIRST if ante_format is AnteFormat.EACH else AnteOrder.ANTE_FIRST
    try:
        ante_order = AnteOrder(user.get("_ante_order", unsaid.value))
    except (ValueError, TypeError):
        choices = ", ".join(o.value for o in AnteOrder)
        given = user.get("_ante_order")
        raise _field("_ante_order", f"{given!r} is not one of {choices}") from None
    rake = None
    if "_rake_percent" in user:
        try:
            rake = RakeConfig(percent=str(user["_rake_percent"]), cap=user.get("_rake_cap"))
        except (EngineError, ValueError, TypeError) as exc:
            raise _field("_rake_percent", str(exc)) from None
    try:
        config = GameConfig(
            structure=structure,
            small_blind=layout.small_blind,
            big_blind=layout.big_blind,
            ante=ante,
            ante_format=ante_format,
            ante_order=ante_order,
            odd_chip=odd_chip,
            rake=rake,
            chip_unit=int(user.get("_chip_unit", 1)),
            tournament=bool(user.get("_tournament", False)),
            small_bet=small_bet,
            big_bet=big_bet,
        )
    except (EngineError, ValueError, TypeError) as exc:
        raise PhhError(f"game configuration: {exc}") from None
    return config, layout


def _seats(history: HandHistory) -> tuple[int, ...]:
    """Seat of each player (p1 first), checked to run clockwise from p1 (seat numbers grow
    clockwise); without a ``seats`` field, players sit at seats 1..N."""
    if history.seats is None:
        return tuple(range(1, history.player_count + 1))
    seats = history.seats
    wraps = sum(1 for a, b in pairwise(seats) if b < a)
    if wraps > 1 or (wraps == 1 and seats[-1] >= seats[0]):
        raise _field(
            "seats",
            f"{list(seats)}: players must be listed clockwise from the first player left of the "
            "button to the button",
        )
    return seats


def start_hand(history: HandHistory) -> Hand:
    """The engine hand the history starts from: its players, button, antes and blinds.

    The hand is built from the file's positions (:meth:`Hand.from_positions`, not through a
    :class:`Table`), because a hand history is one hand: there is no previous hand to move the
    button or the blinds from, and a file may describe a layout only a table's history
    produces (a dead small blind, [002 #28]). Hands of one game repeat the same set-up (the
    fields of the game, the starting stacks, the seats): a hand is set up once for each and
    copied (:meth:`Hand.copy`), its number set.
    """
    number = history.hand if isinstance(history.hand, int) else 1
    key: Hashable = (history.variant, history.antes, history.blinds_or_straddles,
                     history.min_bet, history.small_bet, history.big_bet,
                     history.ante_trimming_status, history.starting_stacks, history.seats,
                     tuple(history.user_fields.items()))
    try:
        set_up = _SET_UP.get(key)  # the key is hashed once, here
    except TypeError:  # a user field holds an unhashable value (an array): not remembered
        hand = _set_up(history)
    else:
        if set_up is None:
            if len(_SET_UP) >= _SET_UP_MAX:
                _SET_UP.clear()
            set_up = _SET_UP[key] = _set_up(history)
        hand = set_up.copy()
    hand.number = number
    return hand


# Hands set up and not played, by their set-up (see start_hand); bounded.
_SET_UP: dict[Hashable, Hand] = {}
_SET_UP_MAX = 256


def _set_up(history: HandHistory) -> Hand:
    config, layout = _setup(history)
    seats = _seats(history)
    try:
        hand = Hand(
            config=config,
            number=1,
            stacks=dict(zip(seats, history.starting_stacks, strict=True)),
            button=seats[-1],
            small_blind_seat=(
                None if layout.small_blind_player is None else seats[layout.small_blind_player - 1]
            ),
            big_blind_seat=seats[layout.big_blind_player - 1],
            straddle_seat=seats[layout.big_blind_player] if layout.straddle else None,
        )
    except EngineError as exc:
        raise PhhError(f"cannot set up the hand: {exc}") from None
    if hand.deal_order != seats:
        raise PhhError(
            f"the engine deals seats {list(hand.deal_order)}, the file lists players at seats "
            f"{list(seats)} (p1 must be first left of the button)"
        )
    return hand


def replay(history: HandHistory) -> Replayed:
    """Play ``history`` through the engine; raises PhhError naming what was wrong."""
    hand = start_hand(history)
    seats = hand.deal_order
    # The usual actions go straight to the engine here; anything else, and any action the
    # engine refuses (which changes nothing in the hand), goes to _ReplayState.apply, which
    # plays it with every fallback (check or call, an all-in below the minimum, the no-op
    # check) or names what is wrong in the file's terms. The state, which also remembers the
    # cards shown and mucked, is made when first needed.
    state: _ReplayState | None = None
    act = hand.act_in_turn
    deal_hole = hand.deal_hole
    deal_board = hand.deal_board
    check_or_call = hand.check_or_call_in_turn
    for number, action in enumerate(history.actions, start=1):
        try:
            try:
                if type(action) is DealHole:
                    cards = action.cards
                    if len(cards) == 2 and cards[0] is not None and cards[1] is not None:
                        deal_hole(seats[action.player - 1], cards)  # type: ignore[arg-type]
                        continue
                elif type(action) is Fold:
                    act(seats[action.player - 1], _FOLD)
                    continue
                elif type(action) is CheckOrCall:
                    check_or_call(seats[action.player - 1])
                    continue
                elif type(action) is BetOrRaiseTo:
                    act(seats[action.player - 1], _RAISE, action.amount)
                    continue
                elif type(action) is DealBoard:
                    deal_board(action.cards)
                    continue
            except IllegalAction:
                pass
            if state is None:
                state = _ReplayState(hand=hand, seats=seats)
            state.apply(action)
        except (PhhError, EngineError) as exc:
            raise PhhError(f"action {number} {codec.format_action(action)!r}: {exc}") from None
    result = hand.result
    if result is None or state is not None:
        (state or _ReplayState(hand=hand, seats=seats)).finish()
        result = hand.result
        assert result is not None
    return _new(Replayed, (tuple(map(result.final_stacks.__getitem__, seats)), hand))


_new = tuple.__new__  # a named tuple built without its Python-level __new__


class _ReplayState:
    """Applies PHH actions to an engine hand, checking what PHH promises (turns, cards)."""

    def __init__(self, *, hand: Hand, seats: Sequence[int]) -> None:
        self.hand = hand
        self.seats = seats
        self.shown: dict[int, tuple[Card, ...]] = {}
        self.mucked: set[int] = set()

    def player_of(self, seat: int) -> int:
        """The PHH player number (1-based) at ``seat``."""
        return list(self.seats).index(seat) + 1

    def _turn_error(self, player: int) -> PhhError | None:
        """Why ``player`` may not act now, if the reason is the turn (PHH lists actions in
        turn order, so an action out of turn is an error in the file, not a held action)."""
        hand = self.hand
        if hand.result is not None or hand.betting_complete:
            return PhhError("no betting action is due now (the round is over)")
        to_act = hand.to_act
        if to_act is not None and to_act != self.seats[player - 1]:
            return PhhError(f"not p{player}'s turn: p{self.player_of(to_act)} is to act")
        return None

    def _act(self, player: int, kind: ActionKind, amount: int | None = None) -> None:
        """Apply one decision in turn (:meth:`Hand.act_in_turn`: the engine checks every rule
        and refuses an action out of turn); when it refuses, the reason is the turn if that
        is what is wrong (PHH lists actions in turn order: an error in the file)."""
        try:
            self.hand.act_in_turn(self.seats[player - 1], kind, amount)
        except IllegalAction:
            error = self._turn_error(player)
            if error is not None:
                raise error from None
            raise

    def _idle_check(self, player: int) -> bool:
        """A check by the last player with chips when every opponent still in is all-in for no
        more than his bet: no more betting is possible, so the engine has closed the round
        ([000, 002 #11]) and there is nothing to decide. pokerkit still asks that player
        (typically the big blind whose only caller went all-in for less) and writes his
        check; it is accepted as the no-op it is."""
        hand = self.hand
        if hand.result is not None or hand.to_act is not None or hand.street not in _BETTING:
            return False
        stacks = hand.stacks
        seat = self.seats[player - 1]
        live = hand.live_seats
        return seat in live and stacks[seat] > 0 and all(
            stacks[s] == 0 for s in live if s != seat
        )

    def _twice(self, cards: Sequence[Card], here: str, exc: IllegalAction) -> PhhError:
        """The engine refused ``cards`` as duplicates (fouled deck): say where each was."""
        hand = self.hand
        where: dict[Card, str] = {c: "the board" for c in hand.board}
        for seat, hole in hand.hole_cards.items():
            where.update((c, f"p{self.player_of(seat)}") for c in hole)
        for i, card in enumerate(cards):
            other = where.get(card) or ("the same action" if card in cards[:i] else None)
            if other is not None:
                return PhhError(f"card {card} is dealt twice ({other} and {here})")
        return PhhError(str(exc))

    def apply(self, action: PhhAction) -> None:
        # the kinds in the order real files hold most of them (hole cards, folds, checks and
        # calls, bets and raises, the board)
        hand = self.hand
        if type(action) is DealHole:
            cards = action.cards
            if len(cards) == 2 and cards[0] is not None and cards[1] is not None:
                # the usual case, one call: the engine checks the seat and the cards (both
                # known: checked just above, which mypy does not follow into the tuple)
                try:
                    hand.deal_hole(self.seats[action.player - 1], cards)  # type: ignore[arg-type]
                except IllegalAction as exc:
                    raise self._hole_refused(action, exc) from None
            else:
                self._unknown_hole(action)
        elif type(action) is Fold:
            self._act(action.player, _FOLD)
        elif type(action) is CheckOrCall:
            player = action.player
            # Check or call: guessed from the chips to call, the other one if the engine
            # disagrees (a short all-in big blind still has to be called in full).
            if hand.to_call(self.seats[player - 1]):
                try:
                    self._act(player, _CALL)
                except IllegalAction:
                    self._act(player, _CHECK)
                return
            try:
                self._act(player, _CHECK)
            except PhhError:  # not his turn, or no betting is due
                if not self._idle_check(player):
                    raise
            except IllegalAction:
                self._act(player, _CALL)
        elif type(action) is BetOrRaiseTo:
            player, amount = action.player, action.amount
            try:
                self._act(player, _RAISE, amount)  # the engine takes it as a bet too
            except IllegalAction:
                # an all-in below the minimum is only legal declared as all-in
                legal = hand.legal_actions(self.seats[player - 1])
                if amount != legal.all_in_to:
                    raise
                self._act(player, _ALL_IN)
        elif type(action) is DealBoard:
            board = action.cards
            try:
                hand.deal_board(board)
            except IllegalAction as exc:
                if "duplicate" not in exc.message:
                    raise
                raise self._twice(board, "the board", exc) from None
        elif type(action) is ShowOrMuck:
            self._show(action)

    def _hole_refused(self, action: DealHole, exc: IllegalAction) -> PhhError:
        """Why the engine refused known hole cards, in the file's terms."""
        player = action.player
        if self.seats[player - 1] in self.hand.hole_cards:
            return PhhError(f"p{player} already has hole cards")
        return self._twice(cast("tuple[Card, ...]", action.cards), f"p{player}", exc)

    def _unknown_hole(self, action: DealHole) -> None:
        """Hole cards some of which are unknown (``??``): checked, not dealt to the engine."""
        player, cards = action.player, action.cards
        if self.seats[player - 1] in self.hand.hole_cards:
            raise PhhError(f"p{player} already has hole cards")
        if len(cards) != 2:
            raise PhhError(f"Texas hold'em deals 2 hole cards, got {len(cards)}")

    def _show(self, action: ShowOrMuck) -> None:
        player, cards = action.player, action.cards
        seat = self.seats[player - 1]
        if not action.shown:
            self.mucked.add(seat)
            return
        known = tuple(c for c in cards if c is not None)
        if cards and len(known) == len(cards):
            dealt = self.hand.hole_cards.get(seat)
            if dealt is not None and dealt != known and set(dealt) != set(known):
                raise PhhError(
                    f"p{player} shows {' '.join(map(str, known))} but was dealt "
                    f"{' '.join(map(str, dealt))}"
                )
            if dealt is None:
                shown = [c for hole in self.shown.values() for c in hole]
                for card in known:
                    if card in _hand_cards(self.hand) or card in shown:
                        raise PhhError(f"card {card} is dealt twice (shown by p{player})")
            self.shown[seat] = known

    def finish(self) -> None:
        hand = self.hand
        if hand.street is _SHOWDOWN:
            cards = {**self.hand.hole_cards, **self.shown}
            contenders = {s: c for s, c in cards.items() if s not in self.mucked}
            try:
                hand.showdown(contenders, mucked=sorted(self.mucked))
            except EngineError as exc:
                raise PhhError(f"showdown: {exc}") from None
        if hand.street is not _COMPLETE or hand.result is None:
            where = hand.street.value
            who = "" if hand.to_act is None else f", p{self.player_of(hand.to_act)} to act"
            raise PhhError(f"the actions end before the hand is over ({where}{who})")


_FOLD, _CHECK, _CALL = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL
_RAISE, _ALL_IN = ActionKind.RAISE, ActionKind.ALL_IN
_SHOWDOWN, _COMPLETE = Street.SHOWDOWN, Street.COMPLETE  # globals: faster than Enum attributes


def _hand_cards(hand: Hand) -> set[Card]:
    """Every card the hand has dealt: the board and the known hole cards."""
    return {*hand.board, *(c for hole in hand.hole_cards.values() for c in hole)}


def replay_file(path: str | Path) -> Replayed:
    """Load and replay one file; error messages start with the file name."""
    history = codec.load(path)
    try:
        return replay(history)
    except PhhError as exc:
        raise PhhError(f"{path}: {exc}") from None
