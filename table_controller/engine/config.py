"""Game configuration: structure, blinds, antes, house rules (keyword-only, frozen).

Sources: rules.md §2 (blinds, antes), §3 (structures and bet sizes), §4 (odd chip, rake).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from table_controller.engine.citations import TOURNAMENT_RAKE
from table_controller.engine.errors import ConfigError


class Structure(enum.Enum):
    """Betting structure (rules.md §3 [000, 001])."""

    NO_LIMIT = "no_limit"
    POT_LIMIT = "pot_limit"
    FIXED_LIMIT = "fixed_limit"


class AnteFormat(enum.Enum):
    """Who posts the ante (rules.md §2).

    - ``EACH`` (default): every player dealt in posts ``ante`` [001]; a short stack posts what
      he has, before his blind, and can win from each opponent only what he put in (side pots
      by contribution, rules.md §4).
    - ``BIG_BLIND``: the big-blind ante, one ante for the whole table posted by the big blind
      (TDA 2024 RP-11, rules.md §2). It is dead: not part of his bet, and it goes to the main
      pot (whoever wins the main pot wins it, his opponents need not match it).
    - ``BUTTON``: the button ante, the same single ante posted by the player on the button
      (rules.md §2); with a dead button (an empty seat, [002 #28]) by the player who acts last
      after the flop, so the table still gets its one ante.

    A single ante is never reduced when the table is short-handed (TDA 2024 RP-11).
    """

    EACH = "each"
    BIG_BLIND = "big_blind"
    BUTTON = "button"


class AnteOrder(enum.Enum):
    """What a single-ante poster pays first when his stack cannot cover his blind and the ante
    (``AnteFormat.BIG_BLIND``/``BUTTON`` only; with ``EACH`` the antes always come first).

    - ``BLIND_FIRST`` (default): the blind first, the ante takes what is left ("big-blind-first
      calculation", TDA 2024 RP-11, rules.md §2).
    - ``ANTE_FIRST``: house option: the ante first, the blind from what is left; this is the
      order pokerkit (the PHH reference implementation) posts them in.
    """

    BLIND_FIRST = "blind_first"
    ANTE_FIRST = "ante_first"


class OddChipRule(enum.Enum):
    """Who receives the odd chip(s) of a split pot (rules.md §4).

    - ``TDA`` (default): one odd chip per winner, in seat order clockwise from the button, no
      player receiving more than one odd chip [002 #16] (TDA 2024 rule 20).
    - ``HOUSE_LATER_ACTOR``: [000] the smaller share goes to the player who began acting later,
      i.e. odd chips go to the winners in the order they first act in the hand (preflop order).
    - ``HOUSE_COUNTERCLOCKWISE``: [001] the whole remainder goes to the winner nearest the dealer
      going counter-clockwise (the button itself first).
    """

    TDA = "tda"
    HOUSE_LATER_ACTOR = "house_later_actor"
    HOUSE_COUNTERCLOCKWISE = "house_counterclockwise"


@dataclass(frozen=True, slots=True, kw_only=True)
class RakeConfig:
    """House fee taken from the pot: ``percent`` of it, at most ``cap`` chips (None: no cap).

    No flop, no drop: nothing is taken from a hand that ended before the flop [000].
    ``percent`` is exact (int, Fraction or a decimal string such as ``"2.5"``); the rake is
    rounded down to a whole chip.
    """

    percent: int | Fraction | str
    cap: int | None = None

    def __post_init__(self) -> None:
        try:
            value = Fraction(self.percent)
        except (ValueError, TypeError, ZeroDivisionError) as exc:
            raise ConfigError(f"rake percent {self.percent!r} is not a number") from exc
        if not 0 <= value <= 100:
            raise ConfigError(f"rake percent {self.percent!r} must be between 0 and 100")
        if self.cap is not None and self.cap < 0:
            raise ConfigError(f"rake cap {self.cap!r} must not be negative")

    @property
    def fraction(self) -> Fraction:
        """The rate as an exact fraction of the pot (``percent / 100``)."""
        return Fraction(self.percent) / 100

    def rake_for(self, pot: int) -> int:
        """Chips taken from a pot of ``pot`` chips (the flop having been dealt)."""
        rake = int(pot * self.fraction)  # rounds down: the house never takes a partial chip
        if self.cap is not None:
            rake = min(rake, self.cap)
        return rake


@dataclass(frozen=True, slots=True, kw_only=True)
class GameConfig:
    """Everything that fixes how a hand is played; keyword-only.

    - ``small_blind``/``big_blind``: posted by the two seats left of the button (rules.md §2).
    - ``ante``: the ante, to the pot, not part of any bet [001]; ``ante_format`` says who
      posts it (every player, or one ante for the table by the big blind or the button,
      :class:`AnteFormat`) and ``ante_order`` whether a single-ante poster too short for both
      pays his blind or the ante first (:class:`AnteOrder`, TDA 2024 RP-11).
    - ``small_bet``/``big_bet``: fixed-limit sizes; default ``small_bet = big_blind`` and
      ``big_bet = 2 * small_bet`` [000, 001]. Ignored in no limit and pot limit.
    - ``tournament``: the fixed-limit cap stays heads-up [002 #40]; the dead-button rule
      applies [002 #28] unless ``dead_button`` says otherwise.
    - ``dead_button``: None follows ``tournament``; True: the big blind always moves on one
      player and the button may rest on an empty seat; False: the button moves to the next
      player dealt in.
    - ``odd_chip``: see :class:`OddChipRule`; ``chip_unit`` is the smallest denomination in
      play, the size of an "odd chip" [002 #16].
    - ``rake``: None for no rake. A tournament with a rake is refused (:class:`ConfigError`):
      tournament rake is taken from the buy-ins, not at the table (rules.md §4 [002 #56]).
    """

    structure: Structure = Structure.NO_LIMIT
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    ante_format: AnteFormat = AnteFormat.EACH
    ante_order: AnteOrder = AnteOrder.BLIND_FIRST
    small_bet: int | None = None
    big_bet: int | None = None
    tournament: bool = False
    dead_button: bool | None = None
    odd_chip: OddChipRule = OddChipRule.TDA
    chip_unit: int = 1
    rake: RakeConfig | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.structure, Structure):
            raise ConfigError(f"structure {self.structure!r} is not a Structure")
        if not isinstance(self.odd_chip, OddChipRule):
            raise ConfigError(f"odd_chip {self.odd_chip!r} is not an OddChipRule")
        if not isinstance(self.ante_format, AnteFormat):
            raise ConfigError(f"ante_format {self.ante_format!r} is not an AnteFormat")
        if not isinstance(self.ante_order, AnteOrder):
            raise ConfigError(f"ante_order {self.ante_order!r} is not an AnteOrder")
        for name in ("small_blind", "big_blind", "ante", "chip_unit"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(f"{name} must be a non-negative whole number, got {value!r}")
        if self.big_blind <= 0:
            raise ConfigError("big_blind must be positive (it is the minimum bet, rules.md §3)")
        if self.chip_unit <= 0:
            raise ConfigError("chip_unit must be positive")
        if self.small_blind > self.big_blind:
            raise ConfigError(
                f"small_blind {self.small_blind} larger than big_blind {self.big_blind}"
            )
        for name in ("small_bet", "big_bet"):
            value = getattr(self, name)
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value <= 0
            ):
                raise ConfigError(f"{name} must be a positive whole number, got {value!r}")
        if self.rake is not None and not isinstance(self.rake, RakeConfig):
            raise ConfigError(f"rake {self.rake!r} is not a RakeConfig")
        if self.tournament and self.rake is not None:
            # Tournament rake is taken from the buy-ins, not at the table (rules.md §4).
            raise ConfigError(
                f"{TOURNAMENT_RAKE}: a tournament takes no rake from the pots (tournament rake "
                "is taken from the buy-ins, not at the table); leave rake=None"
            )

    @property
    def single_ante(self) -> bool:
        """One ante for the table (big blind or button ante), dead (TDA 2024 RP-11)."""
        return self.ante_format is not AnteFormat.EACH and self.ante > 0

    @property
    def small_bet_size(self) -> int:
        """Fixed-limit bet on preflop and flop (default: the big blind) [000, 001]."""
        return self.small_bet if self.small_bet is not None else self.big_blind

    @property
    def big_bet_size(self) -> int:
        """Fixed-limit bet on turn and river (default: 2 x small bet) [000, 001]."""
        return self.big_bet if self.big_bet is not None else 2 * self.small_bet_size

    @property
    def uses_dead_button(self) -> bool:
        """Whether the dead-button rule moves the blinds (default: tournaments) [002 #28]."""
        return self.tournament if self.dead_button is None else self.dead_button
