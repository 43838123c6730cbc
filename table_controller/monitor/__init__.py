"""The dealing monitor (issue 5): the table knows the dealing procedure and tells the dealer the
moment a card goes wrong, with the remedy, before substantial action makes it unrecoverable.

::

    from table_controller.monitor import DealingMonitor, MonitorConfig, ConsoleAction
    mon = DealingMonitor(table, config=MonitorConfig(rules="tda", sensors=frozenset({"rfid"})))
    alerts = mon.observe(obs)            # CardObservation | ButtonPressed | SensorStatus
    alerts = mon.console(ConsoleAction(seat=3, kind="raise", amount=6, t=12.5))
    alerts = mon.resolve("FOUR_CARD_FLOP", t=13.0)
    alerts = mon.tick(now)

See docs/monitor.md.
"""

from table_controller.monitor.monitor import BurnChooser, DealingMonitor, secure_burn_choice
from table_controller.monitor.records import ConsoleAction, HandEnd, MonitorConfig, MonitorError

__all__ = [
    "BurnChooser",
    "ConsoleAction",
    "DealingMonitor",
    "HandEnd",
    "MonitorConfig",
    "MonitorError",
    "secure_burn_choice",
]
