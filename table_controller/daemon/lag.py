"""How far a sensor says it has reported: the optional ``reported_through()`` of the
controller's ``Sensor`` protocol (docs/monitor.md, "Judged on the sensors' own times"), asked
by the controller's step and passed through by a sensor that wraps another."""

from __future__ import annotations

from typing import Any


def said_through(sensor: Any) -> float | None:
    """The time up to which ``sensor`` says it has delivered everything it saw; None when it is
    up to date (it says None, or has no ``reported_through``)."""
    ask = getattr(sensor, "reported_through", None)
    through = ask() if ask is not None else None
    return None if through is None else float(through)
