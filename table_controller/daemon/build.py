"""Build a :class:`~table_controller.daemon.controller.Controller` from the table's
configuration: the engine table and the dealing monitor, the journal, the bus, and the devices
(real ones per configuration, or the simulator's with ``sim=True``).

Each device is opened only when the configuration names it; RPi.GPIO and OpenCV are imported
only for the devices that need them. A device that cannot be opened raises :class:`StartError`
naming it, after closing what was already opened; a key folder that cannot be used raises
:class:`~table_controller.config.ConfigError` naming ``bus.keys``. The journal and the ipc
sockets get the modes of ``[access]`` (:mod:`.access`); with ``[bus] keys`` the tcp channels
are CurveZMQ servers (:mod:`.curve`).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from table_controller.config import ConfigError, TableConfig
from table_controller.daemon.access import FileAccess
from table_controller.daemon.alert_delivery import AlertDelivery
from table_controller.daemon.bus import BusError, ConsoleServer, EventBus
from table_controller.daemon.controller import Controller, Sensor
from table_controller.daemon.curve import CurveServer, KeysError, load_server_keys
from table_controller.daemon.journal import Journal, JournalError
from table_controller.daemon.sequence import Sequences
from table_controller.engine import Table
from table_controller.monitor import DealingMonitor
from table_controller.phh import Context


class StartError(RuntimeError):
    """A part of the controller could not be started; the text names it."""


def build_table(config: TableConfig) -> Table:
    table = Table(config.table.engine, seats=config.table.seats)
    for seat, stack in sorted((config.players or {}).items()):
        table.sit(seat, stack)
    table.set_button(config.table.button)
    return table


def _config_summary(config: TableConfig) -> str:
    t = config.table
    return json.dumps({"path": config.path, "seats": t.seats, "game": t.game,
                       "engine": {k: str(v) for k, v in asdict(t.engine).items()},
                       "rules": t.monitor.rules, "sensors": sorted(t.monitor.sensors)})


def build_controller(config: TableConfig, *, sim: bool = False,
                     sim_seed: int | None = None) -> Controller:
    """The controller for ``config``; with ``sim`` its devices are the simulated table's (the
    configuration's [rfid], [gpio], [camera] are not opened; [sim] is used, ``sim_seed``
    overrides its seed)."""
    closers: list[Callable[[], None]] = []
    try:
        return _build(config, sim=sim, sim_seed=sim_seed, closers=closers)
    except Exception:
        for close in reversed(closers):
            with contextlib.suppress(Exception):  # best effort; the first error is reported
                close()
        raise


def _build(config: TableConfig, *, sim: bool, sim_seed: int | None,
           closers: list[Callable[[], None]]) -> Controller:
    table = build_table(config)
    monitor_config = config.table.monitor
    if sim:  # the simulator covers no shuffler tray
        from table_controller.daemon.simtable import sensor_lag
        from table_controller.monitor import MonitorConfig

        monitor_config = MonitorConfig(rules=monitor_config.rules,
                                       sensors=monitor_config.sensors,
                                       settle_time=monitor_config.settle_time,
                                       stub_visible=False,
                                       sensor_lag=sensor_lag(monitor_config.sensors))
    monitor = DealingMonitor(table, config=monitor_config)
    access = FileAccess(config.access.gid)
    try:
        access.prepare_file(config.journal)
        journal = Journal.open(config.journal)
        access.journal(config.journal)
    except JournalError as exc:
        raise StartError(str(exc)) from None
    except OSError as exc:
        raise StartError(f"journal {config.journal}: {exc.strerror or exc}") from None
    closers.append(journal.close)
    curve = _curve(config, closers)
    sequences = Sequences(journal)
    try:
        bus = EventBus(public=config.bus.public, floor=config.bus.floor, curve=curve,
                       access=access, sequences=sequences)
        closers.append(bus.close)
        console = ConsoleServer(config.bus.console, curve=curve, access=access)
        closers.append(console.close)
        delivery = AlertDelivery(config.bus.alerts, journal=journal, sequences=sequences,
                                 curve=curve, access=access)
        closers.append(delivery.close)
    except BusError as exc:
        raise StartError(f"event bus: {exc}") from None
    sensors: list[Sensor] = []
    outputs: Any = None
    commands = None
    extra_status = None
    devices: list[Callable[[], None]] = []  # closed by the controller after its sensors
    if curve is not None:
        devices.append(curve.close)
    clock: Callable[[], float] = time.monotonic
    if sim:
        from hw_sim.devices.clock import SimClock
        from table_controller.daemon.simtable import PacedClock, SimTable

        sim_table = SimTable(clock=SimClock(),
                             seed=config.sim.seed if sim_seed is None else sim_seed,
                             move_interval=config.sim.move_interval,
                             deal_order=monitor.deal_order, first_order=config.sim.deck_order,
                             rfid="rfid" in monitor_config.sensors,
                             camera="camera" in monitor_config.sensors)
        closers.append(sim_table.close)
        sensors = sim_table.sensors
        outputs = sim_table.outputs()
        commands = sim_table.commands()
        extra_status = sim_table.status
        clock = PacedClock(sim_table)
    else:
        sensors, outputs = _devices(config, closers, devices)
    controller = Controller(monitor=monitor, sensors=sensors, journal=journal, bus=bus,
                            console=console, outputs=outputs, clock=clock,
                            wall_clock=lambda: datetime.now(UTC),
                            phh_context=Context(seat_count=config.table.seats,
                                                table=config.table.name),
                            commands=commands, also_close=devices,
                            extra_status=extra_status, delivery=delivery)
    journal.start_run(t=clock(), wall=controller.wall(clock()).isoformat(timespec="milliseconds"),
                      table_name=config.table.name,
                      config=_config_summary(config) if not sim else
                      _config_summary(config)[:-1] + ', "sim": true}')
    return controller


def _curve(config: TableConfig, closers: list[Callable[[], None]]) -> CurveServer | None:
    """The CurveZMQ server of ``[bus] keys`` (None without it: every channel is local, the
    configuration checked that). A key folder that cannot be used is a configuration error."""
    if config.bus.keys is None:
        return None
    try:
        keys = load_server_keys(config.bus.keys)
    except KeysError as exc:
        raise ConfigError(f"{config.path}: bus.keys: {exc}") from None
    curve = CurveServer(keys)
    closers.append(curve.close)
    return curve


def _devices(config: TableConfig, closers: list[Callable[[], None]],
             devices: list[Callable[[], None]]) -> tuple[list[Sensor], Any]:
    sensors: list[Sensor] = []
    outputs: Any = None
    if config.gpio is not None:
        from firmware_bridge.button import ShufflerButton
        from firmware_bridge.gpio import GpioError, open_backend
        from firmware_bridge.outputs import AlertOutputs
        from table_controller.daemon.sensors import ButtonSensor

        g = config.gpio
        try:
            gpio = open_backend(g.backend)
        except GpioError as exc:
            raise StartError(f"gpio: {exc}") from None
        closers.append(gpio.cleanup)
        devices.append(gpio.cleanup)
        button = ShufflerButton(gpio, pin=g.button, debounce=g.debounce,
                                active_low=g.button_active_low)
        sensors.append(ButtonSensor(button))
        outputs = AlertOutputs(gpio, red=g.red, amber=g.amber, buzzer=g.buzzer,
                               active_low=g.outputs_active_low)
    if config.rfid is not None:
        from firmware_bridge.decks import DeckRegistry, DeckRegistryError
        from firmware_bridge.rfid import RfidService
        from table_controller.daemon.sensors import RfidSensor

        assert config.decks_db is not None  # the configuration requires it with [rfid]
        try:
            registry = DeckRegistry.open(config.decks_db, create=False)
        except DeckRegistryError as exc:
            raise StartError(f"decks.db: {exc}") from None
        closers.append(registry.close)
        devices.append(registry.close)
        rfid = RfidSensor(RfidService(config=config.rfid, resolver=registry))
        rfid.start()
        closers.append(rfid.close)
        sensors.append(rfid)
    if config.camera is not None and "camera" in config.table.monitor.sensors:
        sensors.append(_camera(config, closers))
    return sensors, outputs


def _camera(config: TableConfig, closers: list[Callable[[], None]]) -> Sensor:
    from table_controller.daemon.sensors import CameraSensor
    from vision.analyse import FrameAnalyser
    from vision.calibration import config_from_mapping
    from vision.recognise import Recogniser
    from vision.sources import FrameSourceError, open_source
    from vision.templates import EnrolmentError, default_store, load_deck
    from vision.tracker import CardTracker

    cam = config.camera
    assert cam is not None
    vision = config_from_mapping({k: v for k, v in cam.raw.items() if k != "templates"},
                                 where=f"{config.path}: camera")
    if cam.deck is None:
        raise StartError(f"{config.path}: camera.deck: required to recognise cards (the "
                         "deck enrolled with table-controller vision enroll)")
    try:
        deck = load_deck(cam.deck, cam.templates or default_store())
    except EnrolmentError as exc:
        raise StartError(f"camera: {exc}") from None
    try:
        source = open_source(cam.source)
    except FrameSourceError as exc:
        raise StartError(f"camera: {exc}") from None
    analyser = FrameAnalyser(Recogniser(deck), layout=vision.layout)
    sensor = CameraSensor(source=source, analyse=analyser.analyse,
                          tracker=CardTracker(confirm_frames=vision.confirm_frames,
                                              deck=cam.deck))
    sensor.start()
    closers.append(sensor.close)
    return sensor
