"""What real players and dealers do with the cards all the time, at seeded rates.

Continuous play (``demo``, the soak: :mod:`hw_sim.harness.autoplay`) and the simulated table
playing alone (``run --sim``: :mod:`hw_sim.harness.sim_autoplay`) make their players and dealer
behave like a real table's, as the scenario steps of docs/scenario.md ("Behaviours") do:

- ``peek``: before his first action of a hand a player lifts his cards off the felt under his
  hand, looks, and lays them back (0.8 to 2.5 seconds);
- ``square``: after the deal he squares his two cards, one on the other;
- ``protect``: he lays a chip or a card protector on them;
- ``slide``: the dealer slides a hole card in under his hand;
- ``reach``: after a street the dealer's hand passes over the board (0.4 to 1.2 seconds);
- ``muck``: a folded hand is pushed into the muck, an overlapping pile (otherwise it stays in
  front of the player until the hand ends).

Each rate is a probability per occasion (per player, per hole card, per street, per fold).
The table's cloth and the room's light (the camera's ``felt`` and ``light``) are part of the
setting too. Everything is drawn from the caller's seeded random generator.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace

from hw_sim.harness.scenario import FELTS, LIGHTS

PEEK_SECONDS = (0.8, 2.5)
REACH_SECONDS = (0.4, 1.2)
PROTECTORS = ("chip", "protector")


@dataclass(frozen=True, slots=True)
class Behaviours:
    """The rates (0 to 1) of each behaviour, and the table's cloth and light."""

    peek: float = 0.4
    square: float = 0.3
    protect: float = 0.25
    slide: float = 0.1
    reach: float = 0.3
    muck: float = 0.9
    felt: str = "green"
    light: str = "neutral"

    def __post_init__(self) -> None:
        for name in RATES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not 0.0 <= value <= 1.0:
                raise ValueError(f"behaviour {name}: {value!r} is not a rate from 0 to 1")
        if self.felt not in FELTS:
            raise ValueError(f"felt {self.felt!r} is not one of {', '.join(FELTS)}")
        if self.light not in LIGHTS:
            raise ValueError(f"light {self.light!r} is not one of {', '.join(LIGHTS)}")

    @property
    def any(self) -> bool:
        return any(getattr(self, name) > 0 for name in RATES)

    def with_rates(self, text: str) -> Behaviours:
        """These behaviours with the rates ``text`` names changed: ``"peek=0.5,square=0"``;
        ``"off"``: every rate 0. Raises ValueError naming what is wrong."""
        changes: dict[str, float] = {}
        if text.strip() == "off":
            changes = dict.fromkeys(RATES, 0.0)
            return replace(self, **changes)  # type: ignore[arg-type]
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            name, sep, value = part.partition("=")
            name = name.strip()
            if not sep or name not in RATES:
                raise ValueError(f"{part!r} is not NAME=RATE with NAME one of "
                                 f"{', '.join(RATES)}")
            try:
                changes[name] = float(value)
            except ValueError:
                raise ValueError(f"{part!r}: {value.strip()!r} is not a number") from None
        return replace(self, **changes)  # type: ignore[arg-type]


RATES = tuple(f.name for f in fields(Behaviours) if f.name not in ("felt", "light"))
OFF = Behaviours().with_rates("off")
"""No behaviour at all: the dealer and the players of the earlier simulator."""


def chance(rng: random.Random, rate: float) -> bool:
    """True with probability ``rate`` (no draw when the rate is 0, so a table without
    behaviours plays exactly as before)."""
    return rate > 0 and rng.random() < rate


def peek_seconds(rng: random.Random) -> float:
    return round(rng.uniform(*PEEK_SECONDS), 2)


def reach_seconds(rng: random.Random) -> float:
    return round(rng.uniform(*REACH_SECONDS), 2)


def protector(rng: random.Random) -> str:
    return rng.choice(PROTECTORS)


def table_setting(seed: int) -> tuple[str, str]:
    """A cloth and a light for the table of ``seed`` (the soak varies them across tables)."""
    return FELTS[seed % len(FELTS)], LIGHTS[(seed // len(FELTS)) % len(LIGHTS)]
