"""The whole table state in one object, for a display that joins late or saw a gap in the
``seq`` numbers (console ``{"cmd": "snapshot"}``, docs/running.md "Snapshot").

It is read from the controller, the dealing monitor and the engine in the controller's loop, so
it is exactly the state after the last message of each channel: its ``seq`` says which.
Hole cards are not in it (the open alerts are in floor form, as the console's answers are).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from table_controller.daemon.alert_delivery import AlertDelivery
from table_controller.daemon.bus import EventBus
from table_controller.daemon.published import PublishedAlerts
from table_controller.engine import ActionKind, EngineError, LegalActions
from table_controller.monitor import DealingMonitor
from table_controller.vocabulary.zones import BOARD


def take(*, monitor: DealingMonitor, published: PublishedAlerts,
         seq: Mapping[str, int], wall: Callable[[float], datetime], now: float
         ) -> dict[str, Any]:
    """The snapshot object (schema in docs/running.md). ``published``: the open alerts of the
    run as published (floor form, with ids); ``seq``: :func:`seqs`; ``wall``: monotonic -> wall
    time; ``now``: monotonic now."""
    table = monitor.table
    hand = monitor.hand
    stacks = dict(table.stacks)
    if hand is not None:
        stacks.update(hand.stacks)  # chips behind of the seats dealt in, as the hand stands
    seen = [] if hand is None else [
        None if tc.card is None else str(tc.card)
        for tc in monitor.fusion.picture.in_zone(BOARD, settled=True)]
    to_act = None if hand is None else hand.to_act
    return {
        "type": "snapshot",
        "hand": None if hand is None else hand.number,
        "last_hand": monitor.hand_number,
        "button": table.button if hand is None else hand.button,
        "street": None if hand is None else hand.street.value,
        "board": [] if hand is None else [str(c) for c in hand.board],
        "board_seen": seen,
        "pot": 0 if hand is None else hand.pot,
        "pots": [] if hand is None else [{"amount": p.amount, "eligible": list(p.eligible)}
                                         for p in hand.pots()],
        "stacks": {str(s): v for s, v in sorted(stacks.items())},
        "bets": {} if hand is None else {str(s): v for s, v in sorted(hand.bets.items())},
        "dealt_in": [] if hand is None else sorted(hand.players),
        "deal_order": [] if hand is None else list(hand.deal_order),
        "folded": [] if hand is None else sorted(s for s, p in hand.players.items()
                                                 if p.folded),
        "to_act": to_act,
        "legal": None if hand is None or to_act is None else _legal(hand.legal_actions),
        "halted": monitor.halted,
        "open_alerts": _open_alerts(monitor, published, wall),
        "seq": dict(seq),
        "time": wall(now).isoformat(timespec="milliseconds"),
    }


def seqs(bus: EventBus | None, delivery: AlertDelivery | None) -> dict[str, int]:
    """Channel -> the ``seq`` of its last message (``public``, ``floor``, ``alerts``)."""
    out = {} if bus is None else bus.seqs()
    if delivery is not None and delivery.endpoint is not None:
        out["alerts"] = delivery.last_seq
    return out


def _legal(legal_actions: Any) -> dict[str, Any] | None:
    try:
        legal: LegalActions = legal_actions()
    except EngineError:
        return None
    # the console's words for them (docs/running.md): "allin", the others as the engine's
    kinds = sorted("allin" if k is ActionKind.ALL_IN else k.value for k in legal.kinds)
    return {"seat": legal.seat, "kinds": kinds,
            "call": legal.call_amount, "min_bet_to": legal.min_bet_to,
            "max_bet_to": legal.max_bet_to, "min_raise_to": legal.min_raise_to,
            "max_raise_to": legal.max_raise_to, "all_in_to": legal.all_in_to,
            "stack": legal.stack, "bet": legal.bet, "no_raise": legal.reason_no_raise}


def _open_alerts(monitor: DealingMonitor, published: PublishedAlerts,
                 wall: Callable[[float], datetime]) -> list[dict[str, Any]]:
    """The monitor's open alerts as they were published (with their ids): the last alert of the
    run with the same code, hand and seat."""
    out: list[dict[str, Any]] = []
    for alert in monitor.open_alerts:
        match = published.find(alert)
        out.append(match if match is not None else alert.to_dict(wall(alert.t)))
    return out
