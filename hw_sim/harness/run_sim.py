"""``table-controller run --sim``: the daemon's controller on the simulated table's devices.

The configuration's [rfid], [gpio] and [camera] are not opened; the simulated table
(:class:`~hw_sim.devices.sim_table.SimTable`, the same wiring the scenarios use) takes their
place, with the sensors of ``[table] sensors``, its clock following real time, and a dealer
driven from the console (:mod:`hw_sim.harness.console_dealer`). ``[sim]`` gives the seed, the
first deck's top cards and the dealer's pace.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from hw_sim.devices.sim_table import PacedClock, SimTable, sensor_lag
from hw_sim.harness.console_dealer import ConsoleDealer
from table_controller.config import TableConfig
from table_controller.daemon.build import Devices, build_controller
from table_controller.daemon.controller import Controller
from table_controller.monitor import DealingMonitor


def sim_devices(config: TableConfig, monitor: DealingMonitor,
                closers: list[Callable[[], None]], *, seed: int | None = None) -> Devices:
    """The simulated table's devices for ``monitor`` (``seed`` overrides ``[sim] seed``)."""
    table = SimTable(seed=config.sim.seed if seed is None else seed,
                     sensors=monitor.config.sensors, first_order=config.sim.deck_order)
    closers.append(table.close)
    dealer = ConsoleDealer(table, move_interval=config.sim.move_interval,
                           deal_order=monitor.deal_order)
    return Devices(sensors=[dealer, *table.sensors], outputs=table.outputs(),
                   clock=PacedClock(table), commands=dealer.commands(), status=dealer.status,
                   close=[table.model.close])


def build_sim_controller(config: TableConfig, *, seed: int | None = None) -> Controller:
    """The controller of ``run --sim``: journal and bus as configured, the simulated devices.
    The simulated table has no antenna or camera over the shuffler tray, so the stub is not
    checked at the green button; with both sensors the fusion waits out the simulated devices'
    lag (:func:`~hw_sim.devices.sim_table.sensor_lag`), not the configuration's."""
    monitor = config.table.monitor
    return build_controller(
        config, devices=partial(sim_devices, seed=seed),
        monitor_config=replace(monitor, stub_visible=False,
                               sensor_lag=sensor_lag(monitor.sensors)),
        run_notes={"sim": True})
