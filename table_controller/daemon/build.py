"""Build a :class:`~table_controller.daemon.controller.Controller` from the table's
configuration: the engine table and the dealing monitor, the journal, the bus, and the devices.

The devices are opened by an :data:`OpenDevices` function: :func:`table_devices` (the default)
opens the table's own per configuration; ``run --sim`` passes the simulator's
(:func:`hw_sim.harness.run_sim.sim_devices`), so the daemon never imports the simulator. Each
device is opened only when the configuration names it; RPi.GPIO and OpenCV are imported only
for the devices that need them. A device that cannot be opened raises :class:`StartError`
naming it, after closing what was already opened; a key folder that cannot be used raises
:class:`~table_controller.config.TableConfigError` naming ``bus.keys``. The journal and the ipc
sockets get the modes of ``[access]`` (:mod:`.access`); with ``[bus] keys`` the tcp channels
are CurveZMQ servers (:mod:`.curve`). The table's sensor threads wake the loop as soon as they
have something (:mod:`.wakeup`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from firmware_bridge.outputs import AlertOutputs
from table_controller.config import TableConfig, TableConfigError
from table_controller.daemon import resume
from table_controller.daemon.access import FileAccess
from table_controller.daemon.alert_delivery import AlertDelivery
from table_controller.daemon.bus import BusError, ConsoleServer, EventBus
from table_controller.daemon.controller import Command, Controller, Sensor
from table_controller.daemon.curve import CurveServer, KeysError, load_server_keys
from table_controller.daemon.journal import HandRecord, Journal, JournalError
from table_controller.daemon.replay import JournaledBurns, Rebuilt, ReplayError, replay_hand
from table_controller.daemon.resume import NOT_RESUMED, CarryOver, carry_over
from table_controller.daemon.sequence import Sequences
from table_controller.daemon.wakeup import Wakeup
from table_controller.engine import Table
from table_controller.monitor import DealingMonitor, MonitorConfig, MonitorError
from table_controller.monitor.restart import hand_not_resumed
from table_controller.phh import Context

log = logging.getLogger(__name__)


class StartError(RuntimeError):
    """A part of the controller could not be started; the text names it."""


@dataclass(slots=True)
class Devices:
    """What a controller reads and drives, as opened for it. ``clock``: the monotonic clock
    the devices run on. ``commands``: extra console commands; ``status``: extra fields of the
    status answer. ``close``: closed by the controller after its sensors and lamps. ``wakeup``:
    set by sensor threads to end the loop's wait for the console (None: the loop polls)."""

    sensors: list[Sensor]
    outputs: AlertOutputs | None = None
    clock: Callable[[], float] = time.monotonic
    commands: Mapping[str, tuple[Command, frozenset[str]]] | None = None
    status: Callable[[], Mapping[str, Any]] | None = None
    close: list[Callable[[], None]] = field(default_factory=list)
    wakeup: Wakeup | None = None
    resume: Callable[[DealingMonitor], None] | None = None
    """Called with the monitor once a killed run's hand was rebuilt in it, before the loop
    starts (the simulator lays its new table out as the hand left it)."""


OpenDevices = Callable[[TableConfig, DealingMonitor, list[Callable[[], None]]], Devices]
"""Opens the devices of a table for its monitor. Each thing opened is added to the list of
closers at once, so a later failure closes it again."""


def build_table(config: TableConfig, carry: CarryOver | None = None) -> Table:
    """The engine table of ``config``; with ``carry``, as the journal's last hand left it
    (stacks, button, hand number: :mod:`table_controller.daemon.resume`)."""
    table = Table(config.table.engine, seats=config.table.seats)
    stacks = dict(config.players or {})
    if carry is not None:
        stacks.update(carry.stacks)
    for seat, stack in sorted(stacks.items()):
        if stack > 0 and 1 <= seat <= config.table.seats:
            table.sit(seat, stack)
    button = config.table.button
    if carry is not None:
        table.hand_number = carry.hand_number
        if carry.button is not None:
            button = carry.button
    if button in table.stacks:
        table.set_button(button)
    elif table.stacks:
        table.set_button(min(table.stacks))
    return table


def _config_summary(config: TableConfig, notes: Mapping[str, Any]) -> str:
    t = config.table
    return json.dumps({"path": config.path, "seats": t.seats, "game": t.game,
                       "engine": {k: str(v) for k, v in asdict(t.engine).items()},
                       "rules": t.monitor.rules, "sensors": sorted(t.monitor.sensors),
                       **notes})


def build_controller(config: TableConfig, *, devices: OpenDevices | None = None,
                     monitor_config: MonitorConfig | None = None,
                     run_notes: Mapping[str, Any] | None = None,
                     commands: Mapping[str, tuple[Command, frozenset[str]]] | None = None,
                     attach: Callable[[Controller], None] | None = None) -> Controller:
    """The controller for ``config``. ``devices``: how its devices are opened (default
    :func:`table_devices`); ``monitor_config`` replaces the configuration's; ``run_notes``
    are added to the configuration summary the journal keeps for this run; ``commands``: more
    console commands (the dealer station's, docs/station.md); ``attach``: told of the
    controller as soon as it exists, before a killed run's hand is replayed (the owner of
    ``commands``, whose requests the replay carries out again)."""
    closers: list[Callable[[], None]] = []
    try:
        return _build(config, devices or table_devices, monitor_config, run_notes or {},
                      commands or {}, closers, attach)
    except Exception:
        for close in reversed(closers):
            with contextlib.suppress(Exception):  # best effort; the first error is reported
                close()
        raise


def _build(config: TableConfig, open_devices: OpenDevices,
           monitor_config: MonitorConfig | None, run_notes: Mapping[str, Any],
           commands: Mapping[str, tuple[Command, frozenset[str]]],
           closers: list[Callable[[], None]],
           attach: Callable[[Controller], None] | None = None) -> Controller:
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
    wall = datetime.now(UTC).isoformat(timespec="milliseconds")
    carry = carry_over(journal, wall=wall)
    table = build_table(config, carry)
    burns = JournaledBurns()
    monitor = DealingMonitor(table, config=monitor_config or config.table.monitor,
                             burn_chooser=burns)
    if carry is not None:
        monitor.ctx.last_number = carry.hand_number
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
    devices = open_devices(config, monitor, closers)
    if devices.wakeup is not None:
        console.watch(devices.wakeup)
    clock = devices.clock
    controller = Controller(monitor=monitor, sensors=devices.sensors, journal=journal, bus=bus,
                            console=console, outputs=devices.outputs, clock=clock,
                            wall_clock=lambda: datetime.now(UTC),
                            phh_context=Context(seat_count=config.table.seats,
                                                table=config.table.name),
                            commands={**(devices.commands or {}), **commands},
                            also_close=[*([] if curve is None else [curve.close]),
                                        *devices.close],
                            extra_status=devices.status, delivery=delivery)
    if attach is not None:
        attach(controller)
    live = None if carry is None else carry.live
    outcome: Rebuilt | str | None = None
    if live is not None:
        outcome = _rebuild(controller, journal, live, burns,
                           skip=frozenset(devices.commands or {}))
        last_t = outcome.last_t if isinstance(outcome, Rebuilt) else (live.start_t or 0.0)
        controller.shift_clock(last_t + 0.001 - clock())  # time goes on after the journal's
        if isinstance(outcome, str):
            resume.void_hand(journal, live, wall=wall, cause=f"{NOT_RESUMED} ({outcome})")
        elif devices.resume is not None:
            devices.resume(monitor)
        notes = ({"resumed": {"hand": live.number, "run": live.run}}
                 if isinstance(outcome, Rebuilt)
                 else {"not_resumed": {"hand": live.number, "run": live.run, "why": outcome}})
        run_notes = {**run_notes, **notes}
    now = controller.clock()
    journal.start_run(t=now, wall=controller.wall(now).isoformat(timespec="milliseconds"),
                      table_name=config.table.name, config=_config_summary(config, run_notes))
    if live is not None and isinstance(outcome, Rebuilt):
        controller.adopt(outcome)
    elif live is not None and isinstance(outcome, str):
        controller.raise_alert(hand_not_resumed(live.number, controller.clock(), outcome))
    return controller


def _rebuild(controller: Controller, journal: Journal, live: HandRecord,
             burns: JournaledBurns, *, skip: frozenset[str]) -> Rebuilt | str:
    """Replay the killed run's ``live`` hand into the controller's monitor; the reason when
    it cannot be (the monitor is then left between hands, the hand counted as played: the
    caller voids it in the journal, rules.md §5)."""
    monitor = controller.monitor
    try:
        rebuilt = replay_hand(monitor, live, journal, carry_out=controller.carry_out,
                              skip=skip, burns=burns)
        if monitor.hand is not None and "rfid" not in monitor.config.sensors:
            raise ReplayError("the camera alone cannot tell its new tracks from the cards of "
                              "the hand")
    except ReplayError as exc:
        why = str(exc)
        log.warning("hand %d not resumed: %s", live.number, why)
        if monitor.hand is not None:
            with contextlib.suppress(MonitorError):
                monitor.void(NOT_RESUMED, live.start_t or 0.0)  # its end: the journal's
        monitor.ctx.last_number = max(monitor.ctx.last_number, live.number)
        monitor.table.hand_number = max(monitor.table.hand_number, live.number)
        return why
    monitor.fusion.forget_camera()  # its track ids do not survive a restart
    log.info("hand %d resumed from run %d (%s)", live.number, live.run,
             "ended in the replay" if monitor.hand is None else "live")
    return rebuilt


def _curve(config: TableConfig, closers: list[Callable[[], None]]) -> CurveServer | None:
    """The CurveZMQ server of ``[bus] keys`` (None without it: every channel is local, the
    configuration checked that). A key folder that cannot be used is a configuration error."""
    if config.bus.keys is None:
        return None
    try:
        keys = load_server_keys(config.bus.keys)
    except KeysError as exc:
        raise TableConfigError(f"{config.path}: bus.keys: {exc}") from None
    curve = CurveServer(keys)
    closers.append(curve.close)
    return curve


def table_devices(config: TableConfig, monitor: DealingMonitor,
                  closers: list[Callable[[], None]]) -> Devices:
    """The table's own devices, as its configuration names them ([gpio], [rfid], [camera]);
    the reader's and the camera's threads set the returned wakeup when they have something."""
    wakeup = Wakeup()  # sensor threads end the loop's wait for the console at once
    closers.append(wakeup.close)
    sensors: list[Sensor] = []
    outputs: AlertOutputs | None = None
    devices: list[Callable[[], None]] = []  # closed by the controller after its sensors
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
        from table_controller.daemon.sensors import RfidSensor

        port = config.rfid.port
        if "://" not in port and not Path(port).exists():  # a device path, not a pyserial URL
            raise StartError(f"rfid.port: {port} does not exist: is the RFID reader plugged "
                             "in? (docs/install.md: the udev rule names it /dev/table-rfid)")
        assert config.decks_db is not None  # the configuration requires it with [rfid]
        try:
            registry = DeckRegistry.open(config.decks_db, create=False)
        except DeckRegistryError as exc:
            raise StartError(f"decks.db: {exc}") from None
        closers.append(registry.close)
        devices.append(registry.close)
        rfid = RfidSensor.open(config=config.rfid, resolver=registry, wake=wakeup.set)
        rfid.start()
        closers.append(rfid.close)
        sensors.append(rfid)
    if config.camera is not None and "camera" in monitor.config.sensors:
        sensors.append(_camera(config, closers, wakeup))
    return Devices(sensors=sensors, outputs=outputs, close=[*devices, wakeup.close],
                   wakeup=wakeup)


def _camera(config: TableConfig, closers: list[Callable[[], None]], wakeup: Wakeup) -> Sensor:
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
    table = None
    if vision.table is not None:
        from vision.empty_table import EmptyTable, TableCalibrationError

        try:
            table = EmptyTable.load(vision.table)
        except TableCalibrationError as exc:
            raise StartError(f"camera: {exc}") from None
    analyser = FrameAnalyser(Recogniser(deck), layout=vision.layout, table=table)
    # The analyser's view carries the zones a hand covers to the tracker.
    sensor = CameraSensor(source=source, analyse=analyser.view,
                          tracker=CardTracker(confirm_frames=vision.confirm_frames,
                                              deck=cam.deck), wake=wakeup.set)
    sensor.start()
    closers.append(sensor.close)
    return sensor
