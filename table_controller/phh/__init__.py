"""Hand histories in the open PHH format (phh-std, the format pokerkit reads and writes).

- :mod:`.model`: :class:`HandHistory` and the typed action records;
- :mod:`.codec`: PHH text <-> :class:`HandHistory` (strict reading, errors name field or action);
- :mod:`.export`: a finished hand of our engine -> :class:`HandHistory`;
- :mod:`.replay`: :class:`HandHistory` -> played through our engine -> finishing stacks.

The product reads and writes PHH itself (``tomllib`` and a small writer); pokerkit is used only by
the tests, as an independent referee.
"""

from table_controller.phh.codec import dump, dumps, format_action, load, loads, parse_action
from table_controller.phh.export import Context, export_hand
from table_controller.phh.model import (
    VARIANTS,
    BetOrRaiseTo,
    CheckOrCall,
    DealBoard,
    DealHole,
    Fold,
    HandHistory,
    NoOp,
    PhhAction,
    PhhError,
    ShowOrMuck,
)
from table_controller.phh.replay import Replayed, replay, replay_file

__all__ = [
    "VARIANTS",
    "BetOrRaiseTo",
    "CheckOrCall",
    "Context",
    "DealBoard",
    "DealHole",
    "Fold",
    "HandHistory",
    "NoOp",
    "PhhAction",
    "PhhError",
    "Replayed",
    "ShowOrMuck",
    "dump",
    "dumps",
    "export_hand",
    "format_action",
    "load",
    "loads",
    "parse_action",
    "replay",
    "replay_file",
]
