"""How the controller is doing, for ``table-controller status`` (console ``{"cmd": "health"}``,
docs/running.md "Status"): uptime, each sensor's state, counters, the current hand, the last
alert. Read in the controller's loop from the controller, the monitor, the journal and the bus.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any

from table_controller.daemon.alert_delivery import AlertDelivery
from table_controller.daemon.bus import EventBus
from table_controller.daemon.console_input import RequestJournal
from table_controller.daemon.journal import Journal, JournalError
from table_controller.daemon.published import PublishedAlerts
from table_controller.monitor import DealingMonitor
from table_controller.vocabulary.observations import Source

SOURCES = {"rfid": Source.RFID, "camera": Source.CAMERA}


def take(*, monitor: DealingMonitor, sensors: Sequence[str], failing: Collection[str],
         journal: Journal | None, bus: EventBus | None, delivery: AlertDelivery | None,
         requests: RequestJournal, published: PublishedAlerts, started: float,
         now: float, wall: Callable[[float], datetime], table: str | None) -> dict[str, Any]:
    """The health object (schema in docs/running.md). ``sensors``: the names of the sensors the
    controller polls; ``failing``: those whose last poll raised; ``published``: the alerts of
    the run; ``started``: the controller's start (monotonic)."""
    counts: dict[str, dict[str, Any]] = {}
    if journal is not None:
        try:
            counts = journal.sensor_counts(run=journal.run)
        except JournalError:
            counts = {}
    out_sensors = []
    for name in sensors:
        entry: dict[str, Any] = {"name": name, "polling": name not in failing}
        source = SOURCES.get(name)
        if source is not None:
            entry["online"] = monitor.fusion.active(source)
        seen = counts.get(name, {})
        last_t = seen.get("last_t")
        entry["observations"] = seen.get("observations", 0)
        entry["refused"] = seen.get("refused", 0)
        entry["last_seen_s"] = None if last_t is None else round(max(0.0, now - last_t), 3)
        out_sensors.append(entry)
    hand = monitor.hand
    return {
        "type": "health",
        "table": table,
        "uptime_s": round(now - started, 3),
        "started": wall(started).isoformat(timespec="milliseconds"),
        "run": None if journal is None else journal.run,
        "hand": None if hand is None else hand.number,
        "last_hand": monitor.hand_number,
        "to_act": None if hand is None else hand.to_act,
        "halted": monitor.halted,
        "open_alerts": [a.code for a in monitor.open_alerts],
        "sensors": out_sensors,
        "counters": {
            "observations": sum(int(c["observations"]) for c in counts.values()),
            "observations_refused": sum(int(c["refused"]) for c in counts.values()),
            "requests": requests.accepted,
            "requests_refused": requests.refused,
            "alerts": published.count,
            "hands": monitor.hand_number,
            "journal_pending": 0 if journal is None else journal.pending,
            "journal_failures": 0 if journal is None else journal.failures,
            "published": 0 if bus is None else bus.sent,
            "publish_dropped": 0 if bus is None else bus.dropped,
            "alerts_unacked": 0 if delivery is None else len(delivery.pending),
        },
        "floor_clients": [] if delivery is None else delivery.clients,
        "last_alert": None if published.last is None else dict(published.last),
        "time": wall(now).isoformat(timespec="milliseconds"),
    }
