"""The dealing monitor (issue 5): the table knows the dealing procedure and tells the dealer the
moment a card goes wrong, with the remedy, before substantial action makes it unrecoverable.

::

    from table_controller.monitor import DealingMonitor, MonitorConfig, ConsoleAction
    mon = DealingMonitor(table, config=MonitorConfig(rules="tda", sensors=frozenset({"rfid"})))
    out = mon.observe(obs)            # CardObservation | ButtonPressed | SensorStatus
    out = mon.console(ConsoleAction(seat=3, kind="raise", amount=6, t=12.5))
    out = mon.resolve("FOUR_CARD_FLOP", t=13.0)
    out = mon.tick(now)
    out.alerts, out.hand_started, out.hand_ended   # what the call did (MonitorOutput)

See docs/monitor.md.
"""

from table_controller.monitor.context import BurnChooser
from table_controller.monitor.monitor import DealingMonitor, secure_burn_choice
from table_controller.monitor.output import MonitorOutput
from table_controller.monitor.records import ConsoleAction, HandEnd, MonitorConfig, MonitorError

__all__ = [
    "BurnChooser",
    "ConsoleAction",
    "DealingMonitor",
    "HandEnd",
    "MonitorConfig",
    "MonitorError",
    "MonitorOutput",
    "secure_burn_choice",
]
