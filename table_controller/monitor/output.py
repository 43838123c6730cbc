"""What one call of the dealing monitor did: the alerts it raised, the hand it started or ended.

Every input method of :class:`~table_controller.monitor.DealingMonitor` (``observe``,
``console``, ``tick``, ``resolve``, ``showdown``, ``void``) returns one :class:`MonitorOutput`,
so a caller learns what happened from the answer and never by comparing the monitor's state
before and after the call.

Within one output the events happened in this order: the hand started, the alerts were raised
(in order), the hand ended. A single call never both starts and ends a hand: a hand starts at
the green button only, and ends at a console action, a showdown, a void or a resolve.

One dealer error is one alert identity (``Alert.ref``, alerts.md "Lifecycle"): ``alerts`` holds
the alerts raised for the first time, ``updates`` the open alerts restated with what changed
(same ``ref``), ``resolved`` the open alerts that ended and how. Within one output the order is:
the hand started, the alerts raised, their updates, the alerts resolved, the hand ended.

Growing the record: a new kind of event is a new field with an empty default, a line in
:meth:`__add__` and a term in :attr:`empty`. Callers that read the fields they know and combine
outputs with ``+`` keep working unchanged; the daemon's controller publishes the new field.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.engine import Hand
from table_controller.monitor.records import AlertResolved, HandEnd
from table_controller.vocabulary.alerts import Alert


@dataclass(frozen=True, slots=True)
class MonitorOutput:
    """``alerts``: raised by the call, in order (a remedy found not carried out is raised
    again with the same code). ``hand_started``: the engine's hand the call started (the green
    button). ``hand_ended``: the record of the hand the call ended (played out or void).
    ``updates``: open alerts restated (the same ``ref`` as an earlier alert: the next card of a
    premature street, a remedy found not carried out). ``resolved``: open alerts that ended."""

    alerts: tuple[Alert, ...] = ()
    hand_started: Hand | None = None
    hand_ended: HandEnd | None = None
    updates: tuple[Alert, ...] = ()
    resolved: tuple[AlertResolved, ...] = ()

    def __add__(self, later: MonitorOutput) -> MonitorOutput:
        """This output followed by ``later`` (from the same call, or from the next one)."""
        if not isinstance(later, MonitorOutput):
            return NotImplemented
        if self.hand_started is not None and later.hand_started is not None:
            raise ValueError("two hands started in one monitor output")
        if self.hand_ended is not None and later.hand_ended is not None:
            raise ValueError("two hands ended in one monitor output")
        return MonitorOutput(
            alerts=self.alerts + later.alerts,
            hand_started=later.hand_started if self.hand_started is None else self.hand_started,
            hand_ended=later.hand_ended if self.hand_ended is None else self.hand_ended,
            updates=self.updates + later.updates,
            resolved=self.resolved + later.resolved,
        )

    @property
    def empty(self) -> bool:
        """Nothing happened."""
        return (not self.alerts and not self.updates and not self.resolved
                and self.hand_started is None and self.hand_ended is None)

    @property
    def published(self) -> tuple[Alert, ...]:
        """The alerts raised and the updates, in that order (whatever a display must show)."""
        return self.alerts + self.updates


NOTHING = MonitorOutput()
"""The output of a call that changed nothing anyone needs to hear about."""


def raised(alerts: list[Alert] | tuple[Alert, ...], seen: set[int] | None = None
           ) -> MonitorOutput:
    """An output with only ``alerts``. With ``seen`` (the refs already reported), an alert whose
    ``ref`` is in it is an update, not a new alert; the new refs are added to ``seen``."""
    if not alerts:
        return NOTHING
    if seen is None:
        return MonitorOutput(alerts=tuple(alerts))
    new: list[Alert] = []
    updates: list[Alert] = []
    for alert in alerts:
        if alert.ref is not None and alert.ref in seen:
            updates.append(alert)
        else:
            new.append(alert)
            if alert.ref is not None:
                seen.add(alert.ref)
    return MonitorOutput(alerts=tuple(new), updates=tuple(updates))


def ended(resolutions: list[AlertResolved] | tuple[AlertResolved, ...]) -> MonitorOutput:
    """An output with only ``resolved``."""
    return MonitorOutput(resolved=tuple(resolutions)) if resolutions else NOTHING
