"""Hand histories in the open PHH format (phh-std, the format pokerkit reads and writes).

- :mod:`.model`: :class:`HandHistory` and the typed action records;
- :mod:`.codec`: PHH text <-> :class:`HandHistory` (strict reading, errors name field or action);
- :mod:`.export`: a finished hand of our engine -> :class:`HandHistory`;
- :mod:`.replay`: :class:`HandHistory` -> played through our engine -> finishing stacks.

The product reads and writes PHH itself (``tomllib`` and a small writer); pokerkit is used only by
the tests, as an independent referee.
"""

from table_controller.phh.codec import dump, dumps, format_action, load, loads, parse_action
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

__all__ = [
    "VARIANTS",
    "BetOrRaiseTo",
    "CheckOrCall",
    "DealBoard",
    "DealHole",
    "Fold",
    "HandHistory",
    "NoOp",
    "PhhAction",
    "PhhError",
    "ShowOrMuck",
    "dump",
    "dumps",
    "format_action",
    "load",
    "loads",
    "parse_action",
]
