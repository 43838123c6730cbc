"""The table's configuration file (TOML): what one controller under one table runs with.

``table-controller run --config table.toml`` reads it; ``table_controller/data/table.example.toml``
is a documented example and docs/running.md describes every key. Sections:

- ``[table]``: seats, game (``nlhe`` ``plhe`` ``flhe``), blinds, ante (who posts it:
  ``ante_format`` ``each`` ``big_blind`` ``button``; ``ante_order`` ``blind_first``
  ``ante_first``), rules (``tda`` ``house``),
  sensors, the first hand's button, the monitor's settle time;
- ``players``: ``"console"`` (the dealer console seats them), or a ``[players]`` table of
  ``seat = stack``;
- ``[rfid]``: parsed by :meth:`firmware_bridge.rfid_config.RfidConfig.from_dict`;
- ``[gpio]``: parsed by :meth:`firmware_bridge.gpio.config.GpioConfig.from_dict`;
- ``[camera]``: source, deck, frame size and zone polygons, parsed by
  :func:`vision.calibration.config_from_mapping` (OpenCV is imported only when the section is
  given);
- ``[decks]`` (``db``), ``[journal]`` (``path``), ``[bus]`` (``public``, ``floor``, ``console``,
  ``keys``: a channel off loopback needs the CurveZMQ key folder), ``[access]`` (``group``);
- ``[sim]``: only for ``run --sim``: ``seed``, ``deck_order`` (the first deck's top cards),
  ``move_interval`` (seconds between two of the simulated dealer's movements). With ``sim=True``
  (``run --sim``) the device sections ([rfid], [decks], [gpio], [camera]) are not required: the
  simulated table stands in for them.
- ``[station]``: the dealer station's web page (docs/station.md): ``listen`` (``HOST:PORT``,
  loopback by default, ``"none"``: no station), ``token`` (required on any other address),
  ``clock_time`` and ``clock_count`` (the called clock's minute and final count).

Every problem raises :class:`TableConfigError`, whose text names the file, the key and what is
wrong; nothing is guessed and a key the controller does not know is an error (a misspelt key would
otherwise be silently ignored on a table that takes money). Relative paths are relative to the
file's folder.
"""

from __future__ import annotations

import grp
import ipaddress
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from firmware_bridge.gpio.config import GpioConfig, GpioConfigError
from firmware_bridge.rfid_config import RfidConfig, RfidConfigError
from table_controller.engine import AnteFormat, AnteOrder, GameConfig, Structure
from table_controller.engine import ConfigError as EngineConfigError
from table_controller.monitor import MonitorConfig, MonitorError
from table_controller.monitor.fusion import sensor_lag
from table_controller.vocabulary.cards import Card, CardError, parse_card

GAMES: Mapping[str, Structure] = {"nlhe": Structure.NO_LIMIT, "plhe": Structure.POT_LIMIT,
                                  "flhe": Structure.FIXED_LIMIT}
CAMERA_KEYS = frozenset({"source", "deck", "templates", "width", "height", "card_height",
                         "confirm_frames", "frame_rate", "zones", "table"})
DEFAULT_FRAME_RATE = 10.0
"""Frames per second the camera's frames are analysed at, at least (``[camera] frame_rate``)."""
DEFAULT_PUBLIC = "tcp://127.0.0.1:5556"
DEFAULT_FLOOR = "tcp://127.0.0.1:5557"
DEFAULT_CONSOLE = "tcp://127.0.0.1:5558"
DEFAULT_ALERTS = "tcp://127.0.0.1:5559"
DEFAULT_STATION = "127.0.0.1:8080"
MIN_TOKEN = 16


class TableConfigError(ValueError):
    """A configuration the controller cannot run with; the text names file, key and problem."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSettings:
    name: str = "table"
    seats: int = 9
    game: str = "nlhe"
    button: int = 1
    engine: GameConfig = field(default_factory=GameConfig)
    monitor: MonitorConfig = field(default_factory=MonitorConfig)


@dataclass(frozen=True, slots=True, kw_only=True)
class CameraSettings:
    """``[camera]``: ``raw`` is the section as written (the vision package parses it when the
    camera is opened); ``source`` and ``deck`` are checked here."""

    source: str
    deck: str | None
    templates: Path | None
    raw: Mapping[str, Any]
    confirm_frames: int = 3
    drop_frames: int = 5
    frame_rate: float = DEFAULT_FRAME_RATE


@dataclass(frozen=True, slots=True, kw_only=True)
class BusSettings:
    public: str = DEFAULT_PUBLIC
    floor: str | None = DEFAULT_FLOOR
    console: str = DEFAULT_CONSOLE
    alerts: str | None = DEFAULT_ALERTS  # the acknowledged alert channel (ROUTER)
    keys: Path | None = None  # CurveZMQ key folder (daemon/curve.py); required off loopback

    def endpoints(self) -> dict[str, str]:
        """Config key -> endpoint of every channel bound."""
        out = {"public": self.public, "console": self.console}
        if self.floor is not None:
            out["floor"] = self.floor
        if self.alerts is not None:
            out["alerts"] = self.alerts
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class AccessSettings:
    """``[access] group``: the group that may read the journal and key files and connect to
    the ipc sockets besides the controller's user (``gid`` its number)."""

    group: str | None = None
    gid: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SimSettings:
    seed: int = 1
    deck_order: tuple[Card, ...] = ()
    move_interval: float = 0.3


@dataclass(frozen=True, slots=True, kw_only=True)
class StationSettings:
    """``[station]``: where the dealer station is served (None: not served), the token a
    browser must present (required off loopback), and the called clock: ``clock_time`` seconds,
    then a final count of ``clock_count`` seconds (rules.md §3 [002 #24])."""

    listen: str | None = DEFAULT_STATION
    token: str | None = None
    clock_time: float = 60.0
    clock_count: float = 10.0


@dataclass(frozen=True, slots=True, kw_only=True)
class TableConfig:
    path: str
    table: TableSettings
    players: Mapping[int, int] | None  # seat -> stack; None: seated from the console
    rfid: RfidConfig | None
    gpio: GpioConfig | None
    camera: CameraSettings | None
    decks_db: Path | None
    journal: Path
    bus: BusSettings
    sim: SimSettings = field(default_factory=SimSettings)
    station: StationSettings = field(default_factory=StationSettings)
    access: AccessSettings = field(default_factory=AccessSettings)


_TOP_KEYS = frozenset({"table", "players", "rfid", "gpio", "camera", "decks", "journal", "bus",
                       "sim", "station", "access"})
_TABLE_KEYS = frozenset({"name", "seats", "game", "small_blind", "big_blind", "ante", "ante_format",
                         "ante_order", "small_bet", "big_bet", "button", "rules", "sensors",
                         "settle_time", "stub_visible", "peek_time"})


class _Reader:
    """Typed access to one TOML table, with errors that name ``file: section.key``."""

    def __init__(self, path: str, section: str, data: Any) -> None:
        self.path = path
        self.section = section
        if not isinstance(data, Mapping):
            raise self.error(None, f"expected a table [{section}], got {type(data).__name__}")
        self.data: Mapping[str, Any] = data

    def error(self, key: str | None, problem: str) -> TableConfigError:
        where = self.section if key is None else f"{self.section}.{key}"
        return TableConfigError(f"{self.path}: {where}: {problem}")

    def only(self, known: frozenset[str]) -> None:
        unknown = sorted(set(self.data) - known)
        if unknown:
            raise self.error(unknown[0], f"unknown key (known: {', '.join(sorted(known))})")

    def integer(self, key: str, default: int, *, low: int, high: int | None = None) -> int:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"{value!r} is not a whole number")
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.error(key, f"{value} is out of range ({bound})")
        return value

    def optional_integer(self, key: str, *, low: int) -> int | None:
        if key not in self.data:
            return None
        return self.integer(key, 0, low=low)

    def number(self, key: str, default: float, *, low: float, high: float) -> float:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(key, f"{value!r} is not a number")
        if not low <= value <= high:
            raise self.error(key, f"{value} is out of range ({low}..{high})")
        return float(value)

    def text(self, key: str, default: str | None = None, *,
             choices: tuple[str, ...] | None = None) -> str:
        value = self.data.get(key, default)
        if not isinstance(value, str) or not value:
            raise self.error(key, "required" if value is None else f"{value!r} is not a text")
        if choices is not None and value not in choices:
            raise self.error(key, f"{value!r} is not one of {', '.join(choices)}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"{value!r} is not true or false")
        return value

    def path_of(self, key: str, base: Path, default: str | None = None) -> Path:
        return _resolve(base, self.text(key, default))


def _resolve(base: Path, text: str) -> Path:
    p = Path(text).expanduser()
    return p if p.is_absolute() else base / p


def load_config(path: str | Path, *, sim: bool = False) -> TableConfig:
    """Read and check the table's configuration file; :class:`TableConfigError` on any problem.
    ``sim``: for the simulated table (no device section is required)."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise TableConfigError(
            f"{name}: cannot read the configuration: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TableConfigError(
            f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise TableConfigError(f"{name}: not valid TOML: {exc}") from None
    return parse_config(data, path=name, base=Path(name).resolve().parent, sim=sim)


def parse_config(data: Mapping[str, Any], *, path: str = "<config>",
                 base: Path | None = None, sim: bool = False) -> TableConfig:
    """Check a parsed configuration (``path`` names it in errors, ``base`` anchors relative
    paths, default the working folder). ``sim``: the simulated table's devices stand in for
    the table's, so [rfid], [decks] and [camera] are not required by ``table.sensors``."""
    base = base or Path.cwd()
    _Reader(path, "(top level)", data)  # the document itself must be a table
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise TableConfigError(f"{path}: {unknown[0]}: unknown section (known: "
                          f"{', '.join(sorted(_TOP_KEYS))})")
    table = _table(_Reader(path, "table", data.get("table", {})))
    players = _players(path, data.get("players"), table.seats)
    rfid = _section(path, data, "rfid", lambda d: RfidConfig.from_dict(d), RfidConfigError)
    gpio = _section(path, data, "gpio", lambda d: GpioConfig.from_dict(d), GpioConfigError)
    camera = _camera(path, data.get("camera"), base)
    for sensor in sorted(table.monitor.sensors) if not sim else ():
        if sensor == "rfid" and rfid is None:
            raise TableConfigError(
                f"{path}: table.sensors: names rfid but there is no [rfid] section")
        if sensor == "camera" and camera is None:
            raise TableConfigError(f"{path}: table.sensors: names camera but there is no [camera] "
                              "section")
    if rfid is not None and camera is not None and len(table.monitor.sensors) == 2:
        table = replace(table, monitor=replace(table.monitor, sensor_lag=sensor_lag(
            hold_time=rfid.reader.hold_time, confirm_frames=camera.confirm_frames,
            drop_frames=camera.drop_frames, frame_rate=camera.frame_rate)))
    decks_db = None
    if "decks" in data:
        decks = _Reader(path, "decks", data["decks"])
        decks.only(frozenset({"db"}))
        decks_db = decks.path_of("db", base)
    if rfid is not None and decks_db is None and not sim:
        raise TableConfigError(f"{path}: decks.db: required with [rfid] (the tag -> card registry, "
                          "table-controller deck)")
    journal = _Reader(path, "journal", data.get("journal", {}))
    journal.only(frozenset({"path"}))
    settings = _bus(_Reader(path, "bus", data.get("bus", {})), base)
    access = _Reader(path, "access", data.get("access", {}))
    access.only(frozenset({"group"}))
    group = access.text("group") if "group" in access.data else None
    gid = None
    if group is not None:
        try:
            gid = grp.getgrnam(group).gr_gid
        except KeyError:
            raise access.error("group", f"{group!r}: no such group on this machine") from None
    return TableConfig(path=path, table=table, players=players, rfid=rfid, gpio=gpio,
                       camera=camera, decks_db=decks_db,
                       journal=journal.path_of("path", base, "journal.sqlite"), bus=settings,
                       access=AccessSettings(group=group, gid=gid),
                       sim=_sim(_Reader(path, "sim", data.get("sim", {}))),
                       station=_station(_Reader(path, "station", data.get("station", {}))))


def _station(r: _Reader) -> StationSettings:
    r.only(frozenset({"listen", "token", "clock_time", "clock_count"}))
    listen: str | None = r.text("listen", DEFAULT_STATION)
    token = r.text("token") if "token" in r.data else None
    if token is not None and (len(token) < MIN_TOKEN or not token.isprintable()
                              or " " in token):
        raise r.error("token", f"at least {MIN_TOKEN} printable characters without spaces "
                               "(e.g. the output of: openssl rand -hex 16)")
    if listen == "none":
        listen = None
    else:
        from table_controller.webserve import WebServerError, is_loopback, parse_listen

        assert listen is not None
        try:
            host, _port = parse_listen(listen, where=f"{r.path}: station.listen")
        except WebServerError as exc:
            raise TableConfigError(str(exc)) from None
        if not is_loopback(host) and token is None:
            raise r.error("token", f"required: station.listen {listen!r} is not a loopback "
                                   "address, and a station on a network needs a token")
    return StationSettings(listen=listen, token=token,
                           clock_time=r.number("clock_time", 60.0, low=1.0, high=600.0),
                           clock_count=r.number("clock_count", 10.0, low=0.0, high=60.0))


def _sim(r: _Reader) -> SimSettings:
    r.only(frozenset({"seed", "deck_order", "move_interval"}))
    raw = r.data.get("deck_order", [])
    if not isinstance(raw, list):
        raise r.error("deck_order", f"{raw!r} is not a list of cards such as [\"As\", \"Kd\"]")
    cards: list[Card] = []
    for i, text in enumerate(raw):
        try:
            card = parse_card(text) if isinstance(text, str) else None
        except CardError as exc:
            raise r.error(f"deck_order[{i}]", str(exc)) from None
        if card is None:
            raise r.error(f"deck_order[{i}]", f"{text!r} is not a card such as \"As\"")
        if card in cards:
            raise r.error(f"deck_order[{i}]", f"{text} is already in the deck order")
        cards.append(card)
    return SimSettings(seed=r.integer("seed", 1, low=0), deck_order=tuple(cards),
                       move_interval=r.number("move_interval", 0.3, low=0.05, high=10.0))


def alerts_beside(console: str) -> str:
    """The default ``bus.alerts`` endpoint: beside the console's, so two daemons whose console
    endpoints differ do not collide on it. ``ipc://`` names the socket after the console's,
    with ``alerts`` for ``console`` in its name (``ipc:///run/t1/console.sock`` gives
    ``ipc:///run/t1/alerts.sock``, ``ipc:///tmp/t1-console`` ``ipc:///tmp/t1-alerts``) or
    ``-alerts`` added; ``tcp://HOST:PORT`` gives the next port on the same host (the defaults:
    5558, 5559); anything else :data:`DEFAULT_ALERTS`."""
    if console.startswith("ipc://"):
        head, slash, name = console[len("ipc://"):].rpartition("/")
        stem, dot, suffix = name.partition(".")
        stem = stem.replace("console", "alerts") if "console" in stem else f"{stem}-alerts"
        return f"ipc://{head}{slash}{stem}{dot}{suffix}"
    if console.startswith("tcp://"):
        host, _, port = console[len("tcp://"):].rpartition(":")
        if port.isdigit() and int(port) < 65535:
            return f"tcp://{host}:{int(port) + 1}"
    return DEFAULT_ALERTS


def _bus(bus: _Reader, base: Path) -> BusSettings:
    bus.only(frozenset({"public", "floor", "console", "alerts", "keys"}))
    console = _endpoint(bus, "console", bus.text("console", DEFAULT_CONSOLE))
    optional: dict[str, str | None] = {"floor": DEFAULT_FLOOR,
                                       "alerts": alerts_beside(console)}
    for name in optional:
        if name in bus.data:
            value = bus.text(name)
            optional[name] = None if value == "none" else _endpoint(bus, name, value)
    keys = bus.path_of("keys", base) if "keys" in bus.data else None
    settings = BusSettings(public=_endpoint(bus, "public", bus.text("public", DEFAULT_PUBLIC)),
                           floor=optional["floor"], alerts=optional["alerts"],
                           console=console, keys=keys)
    if "alerts" not in bus.data and settings.alerts in (settings.public, settings.floor):
        raise bus.error("alerts", f"the default beside the console, {settings.alerts}, is "
                        "already bound by another channel: set bus.alerts")
    if keys is None:
        for name, endpoint in settings.endpoints().items():
            if not is_local(endpoint):
                raise bus.error(name, f"{endpoint} is not a loopback or ipc:// endpoint: set "
                                "bus.keys to a key folder (table-controller keys new FOLDER) "
                                "so it is bound with CurveZMQ, or bind it to 127.0.0.1")
    return settings


def is_local(endpoint: str) -> bool:
    """``ipc://``, ``inproc://``, or ``tcp://`` on a loopback address (127.0.0.0/8, ::1,
    localhost): reachable from this machine only."""
    if endpoint.startswith(("ipc://", "inproc://")):
        return True
    if not endpoint.startswith("tcp://"):
        return False
    host = endpoint[len("tcp://"):].rpartition(":")[0]
    if ";" in host:  # tcp://source;host:port: what is bound is the host
        host = host.rpartition(";")[2]
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # an interface name or "*": every or some other address
        return False


def _endpoint(reader: _Reader, key: str, value: str) -> str:
    if not value.startswith(("tcp://", "ipc://", "inproc://")):
        raise reader.error(key, f"{value!r} is not a zmq endpoint (tcp://HOST:PORT or "
                                "ipc://PATH)")
    return value


def _section(path: str, data: Mapping[str, Any], name: str, build: Any,
             error: type[Exception]) -> Any:
    if name not in data:
        return None
    section = data[name]
    if not isinstance(section, Mapping):
        raise TableConfigError(f"{path}: {name}: expected a table [{name}]")
    try:
        return build(section)
    except error as exc:
        raise TableConfigError(f"{path}: {exc}") from None
    except TypeError as exc:  # a value of the wrong type reaching a dataclass check
        raise TableConfigError(f"{path}: {name}: {exc}") from None


def _table(r: _Reader) -> TableSettings:
    r.only(_TABLE_KEYS)
    seats = r.integer("seats", 9, low=2, high=10)
    game = r.text("game", "nlhe", choices=tuple(GAMES))
    small_blind = r.integer("small_blind", 1, low=0)
    big_blind = r.integer("big_blind", 2, low=1)
    ante = r.integer("ante", 0, low=0)
    # who posts the ante: every player, or one ante for the table by the big blind or the
    # button; blind or ante first when that player is short (rules.md §2, TDA 2024 RP-11)
    ante_format = AnteFormat(r.text("ante_format", "each",
                                    choices=tuple(f.value for f in AnteFormat)))
    ante_order = AnteOrder(r.text("ante_order", "blind_first",
                                  choices=tuple(o.value for o in AnteOrder)))
    small_bet = r.optional_integer("small_bet", low=1)
    big_bet = r.optional_integer("big_bet", low=1)
    button = r.integer("button", 1, low=1, high=seats)
    rules = r.text("rules", "tda", choices=("tda", "house"))
    sensors_raw = r.data.get("sensors", ["rfid"])
    if (not isinstance(sensors_raw, list) or not sensors_raw
            or not all(isinstance(s, str) for s in sensors_raw)):
        raise r.error("sensors", f"{sensors_raw!r} is not a list such as [\"rfid\", \"camera\"]")
    bad = [s for s in sensors_raw if s not in ("rfid", "camera")]
    if bad:
        raise r.error("sensors", f"{bad[0]!r} is not a sensor (rfid, camera)")
    settle = r.number("settle_time", 0.3, low=0.0, high=60.0)
    try:
        engine = GameConfig(structure=GAMES[game], small_blind=small_blind, big_blind=big_blind,
                            ante=ante, ante_format=ante_format, ante_order=ante_order,
                            small_bet=small_bet, big_bet=big_bet)
    except EngineConfigError as exc:
        raise r.error(None, f"the game is not playable: {exc}") from None
    try:
        monitor = MonitorConfig(rules="house" if rules == "house" else "tda",
                                sensors=frozenset(sensors_raw), settle_time=settle,
                                stub_visible=r.boolean("stub_visible", False),
                                peek_time=r.number("peek_time", 4.0, low=0.0, high=60.0))
    except MonitorError as exc:
        raise r.error(None, str(exc)) from None
    name = r.text("name", "table")
    return TableSettings(name=name, seats=seats, game=game, button=button, engine=engine,
                         monitor=monitor)


def _players(path: str, raw: Any, seats: int) -> Mapping[int, int] | None:
    if raw is None or raw == "console":
        return None
    if isinstance(raw, str):
        raise TableConfigError(f"{path}: players: {raw!r}: write players = \"console\" or a "
                          "[players] table of seat = stack")
    r = _Reader(path, "players", raw)
    out: dict[int, int] = {}
    for key in r.data:
        if not key.isdigit() or not 1 <= int(key) <= seats:
            raise r.error(key, f"not a seat number 1..{seats}")
        out[int(key)] = r.integer(key, 0, low=1)
    if len(out) < 2:
        raise r.error(None, "a hand needs at least two players (or players = \"console\")")
    return out


def _camera(path: str, raw: Any, base: Path) -> CameraSettings | None:
    if raw is None:
        return None
    r = _Reader(path, "camera", raw)
    r.only(CAMERA_KEYS)
    source = r.data.get("source", "0")
    if isinstance(source, int) and not isinstance(source, bool):
        source = str(source)
    if not isinstance(source, str) or not source:
        raise r.error("source", f"{source!r} is not a camera index, file, URL or picamera2")
    deck = r.text("deck") if "deck" in r.data else None
    templates = r.path_of("templates", base) if "templates" in r.data else None
    frame_rate = r.number("frame_rate", DEFAULT_FRAME_RATE, low=0.5, high=240.0)
    from vision.calibration import CalibrationError, config_from_mapping  # OpenCV: only here
    from vision.tracker import CardTracker

    try:
        vision = config_from_mapping({k: v for k, v in r.data.items()
                                      if k not in ("templates", "frame_rate")},
                                     where=f"{path}: camera")
    except CalibrationError as exc:
        raise TableConfigError(str(exc).replace("[vision", "[camera")) from None
    tracker = CardTracker(confirm_frames=vision.confirm_frames)  # its drop count, as built
    raw_section = dict(r.data)
    if "table" in raw_section:  # the calibrated table: relative to the configuration file
        raw_section["table"] = str(r.path_of("table", base))
    return CameraSettings(source=source, deck=deck, templates=templates, raw=raw_section,
                          confirm_frames=vision.confirm_frames, drop_frames=tracker.drop_frames,
                          frame_rate=frame_rate)
