"""Seats, stacks, button and blinds from one hand to the next (rules.md §2).

- The big blind moves on one player each hand [000]. Cash games (default): the small blind and
  the button are the players before the new big blind. Tournaments: dead-button rule, the small
  blind goes to the previous big blind's seat and the button to the previous small blind's,
  so the button rests on an empty seat only when that player busted [002 #28].
- Heads-up: the button posts the small blind; when heads-up starts, the player who had the big
  blind does not take it again [000, 002 #30] (TDA 34-B).
- A new player who sits between the button and the small blind waits until the button has
  passed him [000, 003]; a player away when a blind passes him owes it before playing again
  [000, 003] (big blind live, small blind dead).
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.engine.config import GameConfig
from table_controller.engine.errors import ConfigError, TableError
from table_controller.engine.hand import Hand
from table_controller.engine.showdown import clockwise_from

MIN_SEATS, MAX_SEATS = 2, 10


@dataclass(slots=True)
class _Seat:
    stack: int
    waiting: bool = False  # newcomer waiting for the button to pass [000, 003]
    away: bool = False  # sitting out
    missed_small: bool = False
    missed_big: bool = False


@dataclass(frozen=True, slots=True)
class _Positions:
    button: int  # may be an empty seat (dead button) [002 #28]
    small_blind: int | None  # position; posted only if a player dealt in sits there
    big_blind: int


def _between(seat: int, start: int, end: int) -> bool:
    """``seat`` lies strictly between ``start`` and ``end`` going clockwise."""
    if start < end:
        return start < seat < end
    return seat > start or seat < end


def _before(seats: list[int], seat: int) -> int:
    """The last of ``seats`` strictly before ``seat`` going clockwise."""
    return clockwise_from(seats, seat - 1)[-1]


class Table:
    """A table of ``seats`` physical seats numbered 1..seats (2 to 10, rules.md §1)."""

    def __init__(self, config: GameConfig, seats: int = 9) -> None:
        if not isinstance(config, GameConfig):
            raise ConfigError(f"config {config!r} is not a GameConfig")
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ConfigError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
        self.config = config
        self.seats = seats
        self.button: int | None = None
        self.hand_number = 0
        self._players: dict[int, _Seat] = {}
        self._last: _Positions | None = None  # positions of the last hand played out
        self._hand: Hand | None = None
        self._current_positions: _Positions | None = None
        self._flags_before: dict[int, tuple[bool, bool, bool]] = {}  # restored after a void

    # ------------------------------------------------------------------ seating
    @property
    def stacks(self) -> dict[int, int]:
        """seat -> chips, occupied seats only."""
        return {s: p.stack for s, p in sorted(self._players.items())}

    @property
    def waiting(self) -> tuple[int, ...]:
        """Newcomers not dealt in until the button passes them [000, 003]."""
        return tuple(s for s, p in sorted(self._players.items()) if p.waiting)

    @property
    def missed_blinds(self) -> dict[int, tuple[bool, bool]]:
        """seat -> (missed small blind, missed big blind) still owed [000, 003]."""
        return {s: (p.missed_small, p.missed_big) for s, p in sorted(self._players.items())
                if p.missed_small or p.missed_big}

    @property
    def hand(self) -> Hand | None:
        """The hand in progress (started and not yet finished)."""
        return self._hand

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 1 <= seat <= self.seats:
            raise TableError(f"seat {seat!r} does not exist (1..{self.seats})")

    def _check_idle(self, seat: int, what: str) -> None:
        if self._hand is not None and seat in self._hand.players:
            raise TableError(f"seat {seat} is in hand {self._hand.number}: cannot {what} "
                             "before it is finished (no chips added or removed during a "
                             "hand, rules.md §3 [000])")

    def sit(self, seat: int, stack: int) -> None:
        """Seat a new player. Between the button and the small blind he waits until the
        button passes (rules.md §2 [000, 003])."""
        self._check_seat(seat)
        if seat in self._players:
            raise TableError(f"seat {seat} is taken")
        if not isinstance(stack, int) or isinstance(stack, bool) or stack <= 0:
            raise TableError(f"a player sits with a positive number of chips, not {stack!r}")
        waiting = False
        last = self._current_positions  # the hand in progress, else the last one dealt
        if last is not None:
            end = last.small_blind if last.small_blind not in (None, last.button) \
                else last.big_blind
            waiting = end is not None and _between(seat, last.button, end)
        self._players[seat] = _Seat(stack=stack, waiting=waiting)

    def leave(self, seat: int) -> None:
        self._check_seat(seat)
        if seat not in self._players:
            raise TableError(f"seat {seat} is empty")
        self._check_idle(seat, "leave")
        del self._players[seat]

    def add_chips(self, seat: int, chips: int) -> None:
        """Rebuy or add-on between hands (never during one, rules.md §3 [000])."""
        self._check_seat(seat)
        if seat not in self._players:
            raise TableError(f"seat {seat} is empty")
        if not isinstance(chips, int) or isinstance(chips, bool) or chips <= 0:
            raise TableError(f"chips to add must be positive, not {chips!r}")
        self._check_idle(seat, "add chips")
        self._players[seat].stack += chips

    def sit_out(self, seat: int) -> None:
        """The player is away: not dealt in, and owes the blinds that pass him [000, 003].
        Tournament players are dealt in while absent, so this is for cash games."""
        if self.config.tournament:
            raise TableError("tournament players are dealt in while away; fold the hand")
        self._player(seat).away = True

    def sit_in(self, seat: int) -> None:
        self._player(seat).away = False

    def _player(self, seat: int) -> _Seat:
        self._check_seat(seat)
        player = self._players.get(seat)
        if player is None:
            raise TableError(f"seat {seat} is empty")
        return player

    def set_button(self, seat: int) -> None:
        """Button for the first hand (drawn by high card, rules.md §2 [000, 004])."""
        self._check_seat(seat)
        if seat not in self._players:
            raise TableError(f"seat {seat} is empty: the button starts in front of a player")
        if self._hand is not None:
            raise TableError("the button cannot move during a hand")
        self.button = seat
        self._last = None

    # ------------------------------------------------------------------ positions
    def _eligible(self) -> list[int]:
        return [s for s, p in sorted(self._players.items())
                if p.stack > 0 and not p.waiting and not p.away]

    def _positions(self, eligible: list[int]) -> _Positions:
        last = self._last
        if last is None:
            if self.button is None:
                raise TableError("set the button first (high card, rules.md §2 [000, 004])")
            button = self.button if self.button in eligible \
                else clockwise_from(eligible, self.button)[0]
            if len(eligible) == 2:  # heads-up: the button posts the small blind [000]
                other = clockwise_from(eligible, button)[0]
                return _Positions(button, button, other)
            first_small = clockwise_from(eligible, button)[0]
            return _Positions(button, first_small, clockwise_from(eligible, first_small)[0])
        big = clockwise_from(eligible, last.big_blind)[0]  # the big blind moves on one player
        if len(eligible) == 2:
            # Heads-up: nobody takes the big blind twice in a row [002 #30]; the other player
            # has the button and posts the small blind [000].
            other = next(s for s in eligible if s != big)
            return _Positions(other, other, big)
        if self.config.uses_dead_button:
            # Dead button [002 #28]: small blind on the last big blind's seat (dead if he
            # left), button on the last small blind's seat (empty if he busted).
            small: int | None = last.big_blind
            button = last.small_blind if last.small_blind is not None else last.button
            if small == big:
                small = None
            if button != big:
                return _Positions(button, small, big)
            # Seats changed so much that the dead-button rule has no answer: fall back on
            # the cash-game placement below.

        # Cash (simplified moving button): the blinds and the button are the two players
        # before the new big blind, so nobody skips the big blind; the button may stay on a
        # player when the small blind left (docs/engine.md).
        moving_small = _before(eligible, big)
        return _Positions(_before(eligible, moving_small), moving_small, big)

    # ------------------------------------------------------------------ hands
    def start_hand(self, straddle: int | None = None) -> Hand:
        """Start the next hand: positions, antes, blinds, missed blinds, optional straddle
        (the seat left of the big blind, rules.md §2 [000])."""
        if self._hand is not None:
            raise TableError(f"hand {self._hand.number} is not finished")
        eligible = self._eligible()
        if len(eligible) < 2:
            raise TableError(f"{len(eligible)} player(s) can be dealt in; a hand needs two")
        pos = self._positions(eligible)
        last = self._last
        missed_now: dict[int, tuple[bool, bool]] = {}
        owed: dict[int, tuple[bool, bool]] = {}
        for seat in eligible:
            p = self._players[seat]
            if not (p.missed_small or p.missed_big):
                continue
            missed_now[seat] = (p.missed_small, p.missed_big)
            if seat == pos.big_blind:
                continue  # his big blind settles what he owes
            if seat == pos.small_blind:
                owed[seat] = (False, False)  # posts the small blind; a missed big blind waits
                continue
            owed[seat] = (p.missed_small, p.missed_big)
        small_seat = pos.small_blind if pos.small_blind in eligible else None
        hand = Hand(config=self.config, number=self.hand_number + 1,
                    stacks={s: self._players[s].stack for s in eligible},
                    button=pos.button, small_blind_seat=small_seat,
                    big_blind_seat=pos.big_blind, straddle_seat=straddle,
                    missed={s: o for s, o in owed.items() if any(o)})
        # The hand is valid: commit the table changes.
        self.hand_number += 1
        self._hand = hand
        self._flags_before = {s: (p.waiting, p.missed_small, p.missed_big)
                              for s, p in self._players.items()}
        for seat in missed_now:
            p = self._players[seat]
            if seat == pos.big_blind:
                p.missed_small = p.missed_big = False
            elif seat == pos.small_blind:
                p.missed_small = False
            else:
                p.missed_small = p.missed_big = False
        if last is not None:
            self._mark_missed(last, pos)
            for p_seat, p in self._players.items():
                if p.waiting and (p_seat == pos.button or _between(p_seat, last.button,
                                                                     pos.button)):
                    p.waiting = False  # the button has passed him [000, 003]
        self.button = pos.button
        self._current_positions = pos
        return hand

    def _mark_missed(self, last: _Positions, pos: _Positions) -> None:
        """Players away when a blind passed their seat owe it [000, 003]."""
        for seat, p in self._players.items():
            if not p.away or p.stack <= 0:
                continue
            if _between(seat, last.big_blind, pos.big_blind):
                p.missed_big = True
            if last.small_blind is not None and pos.small_blind is not None \
                    and _between(seat, last.small_blind, pos.small_blind):
                p.missed_small = True

    def finish_hand(self, hand: Hand) -> None:
        """Commit the hand's final stacks. After a played-out hand the positions move on
        (the button moves); after a void the button stays and the hand is redealt with the
        same positions (rules.md §5)."""
        if hand is not self._hand:
            raise TableError("this is not the hand in progress at this table")
        if hand.result is None:
            raise TableError(f"hand {hand.number} is not over (street {hand.street.value})")
        for seat, chips in hand.result.final_stacks.items():
            if seat in self._players:
                self._players[seat].stack = chips
        if hand.result.voided:
            for seat, (waiting, small, big) in self._flags_before.items():
                if seat in self._players:
                    p = self._players[seat]
                    p.waiting, p.missed_small, p.missed_big = waiting, small, big
        else:
            self._last = self._current_positions
            eligible = self._eligible()
            if len(eligible) >= 2:
                self.button = self._positions(eligible).button
        self._hand = None
        self._flags_before = {}
