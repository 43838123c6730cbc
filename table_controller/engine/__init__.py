"""Texas Hold'em rules engine: pure (no I/O, no clock, no randomness), deterministic.

See ``docs/engine.md`` for the API and the reading chosen for each ambiguous rule; every rule
cites its source (rules.md section, seed ``[000]``, ``[002 #N]`` = TDA rule N of the seed's
edition, TDA 2024 number) where it is implemented.
"""

from table_controller.engine.actions import Action, ActionKind, LegalActions, Street
from table_controller.engine.config import (
    AnteFormat,
    AnteOrder,
    GameConfig,
    OddChipRule,
    RakeConfig,
    Structure,
)
from table_controller.engine.errors import ConfigError, EngineError, IllegalAction, TableError
from table_controller.engine.hand import Hand
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
    PotAwarded,
    RakeTaken,
    TimeExpired,
)
from table_controller.engine.results import HandResult, PotAward
from table_controller.engine.table import Table

__all__ = [
    "Action",
    "ActionKind",
    "ActionTaken",
    "AnteFormat",
    "AnteOrder",
    "BetReturned",
    "BoardDealt",
    "CardsMucked",
    "CardsShown",
    "ConfigError",
    "EngineError",
    "GameConfig",
    "Hand",
    "HandResult",
    "HandVoided",
    "HoleCardsDealt",
    "IllegalAction",
    "LegalActions",
    "LogRecord",
    "OddChipRule",
    "OutOfTurnHeld",
    "OutOfTurnReleased",
    "PostKind",
    "Posted",
    "PotAward",
    "PotAwarded",
    "RakeConfig",
    "RakeTaken",
    "Street",
    "Structure",
    "Table",
    "TableError",
    "TimeExpired",
]
