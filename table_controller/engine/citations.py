"""Rule citations used in IllegalAction messages and log records (one place, so the wording
stays consistent). ``[002 #N]`` is rule N in the seed's TDA edition; "TDA N" is the 2024 number
(rules.md §6)."""

from __future__ import annotations

TURN_ORDER = "rules.md §3 [000, 001]"
CHECK = "rules.md §3 [000, 001]"
MIN_BET = "TDA 43 [002 #37]"
MIN_RAISE = "TDA 43 [002 #37]"
REOPEN = "TDA 47 [000, 002 #37]"
NO_OPPONENT = "TDA 16 [000, 002 #11]"
FL_SIZE = "rules.md §3 [000, 001] (fixed limit)"
FL_CAP = "rules.md §3 [000, 002 #40]"
PL_MAX = "rules.md §3 [000, 001] (pot limit)"
TABLE_STAKES = "rules.md §3 [000]"
OUT_OF_TURN = "rules.md §3 [002 #35, 003, 004]"
TIME = "rules.md §3 [002 #24]"
DEAL = "rules.md §1 [000]"
SHOW = "rules.md §4 [002 #13]"
RABBIT = "rules.md §5 [002 #25]"
DUPLICATE = "TDA 35-E, rules.md §5 [000, 003]"
FIFTY_PERCENT = "TDA 43 [002 #37, 003, 004]"
SINGLE_CHIP = "rules.md §3 [002 #38, #39]"
STRADDLE = "rules.md §2 [000]"
HAND_OVER = "rules.md §4"
TOURNAMENT_RAKE = "rules.md §4 [002 #56]"
SINGLE_ANTE = "rules.md §2, TDA 2024 RP-11"
