"""The seeded policy of the simulated players and of the simulated dealer's errors, shared by
continuous play (``demo``, :mod:`hw_sim.harness.autoplay`) and the simulated table playing alone
(``run --sim``, :mod:`hw_sim.harness.sim_autoplay`).

Players: facing a bet they mostly call, sometimes fold or raise the minimum; otherwise they
mostly check, sometimes bet (or raise) the minimum. The dealer: with probability ``error_rate``
a hand gets one error, chosen at random among :data:`ERRORS`, each with the alert it must raise
(alerts.md, rules.md §5).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from typing import Any

ERRORS: dict[str, str] = {
    # error kind -> the alert code it must raise (alerts.md, rules.md §5)
    "wrong_first_seat": "MISDEAL_WRONG_FIRST_SEAT",
    "exposed_card": "EXPOSED_CARD_REPLACE",
    "premature_flop": "PREMATURE_BOARD_CARD",
    "four_card_flop": "FOUR_CARD_FLOP",
    "missing_burn": "MISSING_BURN",
    "duplicate": "DUPLICATE_CARD",
}
CAMERA_ONLY_ERRORS = frozenset({"exposed_card"})
"""A card's face is seen only by the camera: with RFID alone these errors cannot be seen."""


def error_kinds(sensors: Collection[str]) -> list[str]:
    """The errors the controller can see with ``sensors``, in a fixed order."""
    return sorted(k for k in ERRORS if "camera" in sensors or k not in CAMERA_ONLY_ERRORS)


def plan_error(rng: random.Random, error_rate: float, kinds: Sequence[str]) -> str | None:
    """The dealer error of the next hand, or None (probability ``1 - error_rate``)."""
    if rng.random() < error_rate:
        return rng.choice(list(kinds))
    return None


def choose_action(legal: Any, rng: random.Random) -> tuple[str, int | None]:
    """The player's action given the engine's legal actions: ``(kind, amount)``, kind one of
    fold, call, raise, bet, check, allin (amounts are the "to" totals)."""
    r = rng.random()
    if legal.call_amount:
        if r < 0.15 and legal.can_fold:
            return "fold", None
        if r > 0.92 and legal.min_raise_to is not None:
            return "raise", int(legal.min_raise_to)
        return "call", None
    if r > 0.85 and legal.min_bet_to is not None:
        return "bet", int(legal.min_bet_to)
    if r > 0.85 and legal.min_raise_to is not None:
        return "raise", int(legal.min_raise_to)
    if legal.can_check:
        return "check", None
    return "allin", None
