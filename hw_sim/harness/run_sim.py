"""``table-controller run --sim``: the daemon's controller on the simulated table's devices.

The configuration's [rfid], [gpio] and [camera] are not opened; the simulated table
(:class:`~hw_sim.devices.sim_table.SimTable`, the same wiring the scenarios use) takes their
place, with the sensors of ``[table] sensors``, its clock following real time, and a dealer
driven from the console (:mod:`hw_sim.harness.console_dealer`). ``[sim]`` gives the seed, the
first deck's top cards and the dealer's pace.

Unless ``manual``, a simulated dealer station (:class:`~hw_sim.harness.sim_autoplay.SimStation`)
plays the game through the console socket: the dealer's hands, the players' actions, a dealer
error in ``error_rate`` of the hands and its remedy. With ``manual`` the console's clients do
all of that (``sim_press``, ``sim_deal``, ``action``, ...).

Restarted on the journal of a run killed during a hand, the new simulated table is laid out as
the rebuilt hand left the old one (:func:`lay_out`) and the station plays the hand on
(docs/running.md "Restart after a crash").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace

from hw_sim.devices.sim_table import PacedClock, SimTable, sensor_lag
from hw_sim.harness.behaviours import OFF, Behaviours
from hw_sim.harness.console_dealer import ConsoleDealer
from hw_sim.harness.sim_autoplay import SimStation, streets_on_board
from table_controller.config import TableConfig
from table_controller.daemon.build import Devices, build_controller
from table_controller.daemon.controller import Command, Controller
from table_controller.monitor import DealingMonitor
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import BOARD, BURN, SHUFFLER

log = logging.getLogger(__name__)


def sim_devices(config: TableConfig, monitor: DealingMonitor,
                closers: list[Callable[[], None]], *, seed: int | None = None,
                felt: str = "green", light: str = "neutral") -> Devices:
    """The simulated table's devices for ``monitor`` (``seed`` overrides ``[sim] seed``;
    ``felt`` and ``light``: the camera's cloth and the room's light)."""
    table = SimTable(seed=config.sim.seed if seed is None else seed,
                     sensors=monitor.config.sensors, first_order=config.sim.deck_order,
                     # the daemon runs for days: its simulated camera keeps no frames (their
                     # memory would be counted as the controller's)
                     felt=felt, light=light, camera_cache=0)
    closers.append(table.close)
    dealer = ConsoleDealer(table, move_interval=config.sim.move_interval,
                           deal_order=monitor.deal_order,
                           open_alerts=lambda: monitor.open_alerts, rules=monitor.config.rules)
    return Devices(sensors=[dealer, *table.sensors], outputs=table.outputs(),
                   clock=PacedClock(table), commands=dealer.commands(), status=dealer.status,
                   close=[table.model.close], resume=lambda m: lay_out(table, m))


def lay_out(table: SimTable, monitor: DealingMonitor) -> None:
    """A killed ``run --sim`` resumed: the new simulated table is laid out as the rebuilt hand
    left the old one (docs/running.md "Restart after a crash"), every tagged card where the
    journal put it, face up on the board and face down elsewhere unless the picture knows its
    face, the next street's burn ready when it is on the burn pile already; the simulated
    dealer and players then play the hand on (:class:`~hw_sim.harness.sim_autoplay.SimStation`)."""
    if monitor.hand is None:
        return  # the replay ended it (its end had not been journaled): the felt is clear
    cards = sorted((tc for tc in monitor.fusion.picture
                    if tc.rfid_key is not None and tc.zone != SHUFFLER and not tc.pending),
                   key=lambda tc: tc.seq)
    laid = [(str(tc.rfid_key), tc.zone,
             tc.face if tc.face is not Face.UNKNOWN else Face.UP if tc.zone == BOARD
             else Face.DOWN) for tc in cards]
    missing = table.lay_out(laid)
    if missing:
        log.warning("resume: %d card(s) of the hand are not the simulated deck's own: %s",
                    len(missing), ", ".join(missing))
    board = len(table.model.in_zone(BOARD))
    table.dealer.burn_ready = len(table.model.in_zone(BURN)) > streets_on_board(board)


def build_sim_controller(config: TableConfig, *, seed: int | None = None, manual: bool = True,
                         error_rate: float = 0.05,
                         commands: Mapping[str, tuple[Command, frozenset[str]]] | None = None,
                         attach: Callable[[Controller], None] | None = None,
                         behaviours: Behaviours = OFF) -> Controller:
    """The controller of ``run --sim``: journal and bus as configured, the simulated devices;
    unless ``manual``, the simulated station playing on them (``error_rate``: the fraction of
    hands with a dealer error). The simulated table has no antenna or camera over the shuffler
    tray, so the stub is not checked at the green button; with both sensors the fusion waits
    out the simulated devices' lag (:func:`~hw_sim.devices.sim_table.sensor_lag`), not the
    configuration's. ``commands``: more console commands (the dealer station's), ``attach``:
    their owner, told of the controller before a killed run's hand is replayed.
    ``behaviours``: what the station's players and dealer do with the cards, and the camera's
    cloth and light (:mod:`hw_sim.harness.behaviours`)."""
    if not 0.0 <= error_rate <= 1.0:
        raise ValueError(f"error rate {error_rate}: a fraction between 0 and 1")
    opened: list[Devices] = []

    def devices(config: TableConfig, monitor: DealingMonitor,
                closers: list[Callable[[], None]]) -> Devices:
        opened.append(sim_devices(config, monitor, closers, seed=seed, felt=behaviours.felt,
                                  light=behaviours.light))
        return opened[-1]

    sensors = config.table.monitor.sensors
    controller = build_controller(
        config, devices=devices,
        monitor_config=replace(config.table.monitor, stub_visible=False,
                               sensor_lag=sensor_lag(sensors)),
        run_notes={"sim": True, "manual": manual, "error_rate": error_rate},
        commands=commands, attach=attach)
    if not manual and controller.console is not None:
        dealer = opened[0].sensors[0]
        assert isinstance(dealer, ConsoleDealer)
        monitor = controller.monitor
        station = SimStation(dealer, monitor, endpoint=controller.console.endpoint,
                             seed=config.sim.seed if seed is None else seed,
                             error_rate=error_rate, rules=monitor.config.rules,
                             settle=2 * monitor.config.settle_time + 0.4
                             + 2 * config.sim.move_interval,
                             resume=monitor.hand is not None, behaviours=behaviours)
        controller.sensors.append(station)
    return controller
