"""Log lines for a machine to read (``run --log-format json``): one JSON object per line on
stderr, which journald keeps as the message (``journalctl -u table-controller -o cat | jq``).

``{"time": "2026-11-30T12:00:00.123+00:00", "level": "WARNING", "logger": "firmware_bridge.link",
"message": "...", "exception": "Traceback ..."}`` (``exception`` only when there is one).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure(level: str, fmt: str) -> None:
    """Log to stderr at ``level``, as ``text`` or ``json`` lines."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
