"""Handing a street on the board to the rules engine (docs/monitor.md, the board).

The monitor commits a street lazily: at the next betting action, the next street, or the
showdown, so that a street the dealer is still correcting (a four-card flop [002 #33], an extra
card [003], premature cards, TDA 2024 RP-5) reaches the engine corrected.
"""

from __future__ import annotations

from table_controller.engine import EngineError
from table_controller.monitor.context import CheckContext
from table_controller.monitor.records import MonitorError


def commit_street(ctx: CheckContext, *, strict: bool = True) -> bool:
    """Hand the street on the board to the engine once its betting may start (a complete
    street, the betting before it complete). Returns whether it was handed over. An engine
    refusal is a :class:`MonitorError` when ``strict``; otherwise the street waits."""
    run = ctx.run
    if run is None or run.halted is not None:
        return False
    b = run.board
    if not b.full or not run.hand.betting_complete:
        return False
    cards = [ctx.picture.get(pid) for pid in b.street]
    known = [tc.card for tc in cards if tc is not None and tc.card is not None]
    if len(known) != len(b.street):
        return False  # identities not known yet: the engine cannot take the street
    try:
        run.hand.deal_board(known)
    except EngineError as exc:
        if not strict:
            return False
        raise MonitorError(f"the {b.name} {' '.join(map(str, known))}: {exc}") from None
    run.committed.update(b.street)
    b.commit()
    return True
