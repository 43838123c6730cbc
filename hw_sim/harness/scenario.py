"""Scenario files: parse and validate a TOML scenario (docs/scenario.md).

A scenario is checked completely before anything runs. Any problem raises
:class:`ScenarioError`, whose message names the file, the section or step (steps are numbered
from 1 in file order) and what is wrong; ``table-controller sim`` turns it into exit status 2.

Unknown keys are refused rather than ignored: a misspelt ``too = "seat3"`` would otherwise
silently change what a scenario tests.

Keys beyond the core format (it allows more; docs/simulator.md documents them): ``[deck]
missing`` / ``extra`` (a short or over-full deck), ``card`` steps ``to = "shuffler"`` with
``face = "up"`` (a card found face up on the stub), the action ``"SEAT time"`` (the clock called
on the seat ran out), the step ``button = SEAT`` (the console reports the dealer button), the
seating steps ``sit = SEAT`` (with ``stack``), ``leave``, ``sit_out``, ``sit_in`` (console records
that move players between hands), ``[table] ante_format``, the behaviour steps ``peek``,
``square``, ``cover``/``uncover``, ``reach`` and ``muck`` (what players and the dealer do with
the cards at every table, docs/scenario.md), ``under_hand`` on ``card`` and ``move`` steps, and
the ``[camera]`` section (the cloth and the room's light).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.vocabulary.alerts import CATALOGUE
from table_controller.vocabulary.cards import Card, CardError, parse_card
from table_controller.vocabulary.zones import BOARD, BURN, MUCK, SHUFFLER

GAMES = ("nlhe", "plhe", "flhe")
RULE_PROFILES = ("tda", "house")
SENSORS = ("rfid", "camera")
STREETS = ("hole", "flop", "turn", "river")
FACES = ("up", "down")
FAULTS = ("serial_garbage", "serial_unplug", "tag_dropout", "camera_freeze")
ACTION_KINDS = ("fold", "check", "call", "bet", "raise", "allin", "time")
STEP_KINDS = (
    "green_button", "deal", "card", "move", "flip", "actions", "resolve", "showdown", "fault",
    "button", "sit", "leave", "sit_out", "sit_in",
    "peek", "square", "cover", "uncover", "reach", "muck",
)
BEHAVIOUR_KINDS = ("peek", "square", "cover", "uncover", "reach", "muck")
COVERS = ("chip", "protector", "hand")  # hw_sim.devices.table_model.COVERS
FELTS = ("green", "blue", "grey", "black", "printed")  # vision.props.FELTS
LIGHTS = ("neutral", "cool", "warm", "low")  # hw_sim.devices.camera.LIGHTS
PEEK_SECONDS = 1.5  # a player's look at his cards
REACH_SECONDS = 0.8  # a hand passing over a zone
MIN_SECONDS, MAX_SECONDS = 0.1, 10.0
SEATING_KINDS = ("sit", "leave", "sit_out", "sit_in")
ANTE_FORMATS = ("each", "big_blind", "button")  # rules.md §2, TDA 2024 RP-11
MAX_EXTRA = 8  # [deck] extra: more would be a second deck, not a fouled one
MIN_SEATS, MAX_SEATS = 2, 10


class ScenarioError(ValueError):
    """A scenario file that cannot run; the message names the file, the place and the problem."""


# --- the parsed scenario -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableSpec:
    seats: int
    game: str
    small_blind: int
    big_blind: int
    ante: int
    button: int
    rules: str
    sensors: tuple[str, ...]
    ante_format: str = "each"  # who posts the ante: every player, the big blind, the button


@dataclass(frozen=True, slots=True)
class ScenarioAction:
    """One betting action: ``"5 raise 6"`` -> seat 5, kind ``raise``, amount 6 ("raise to").
    Kind ``time``: the clock called on the seat ran out (rules.md §3, [002 #24]); ``button``
    (from a ``button`` step): the console reports the dealer button on the seat."""

    seat: int
    kind: str
    amount: int | None = None

    def __str__(self) -> str:
        return f"{self.seat} {self.kind}" + ("" if self.amount is None else f" {self.amount}")


@dataclass(frozen=True, slots=True)
class PressGreenButton:
    number: int


@dataclass(frozen=True, slots=True)
class Deal:
    number: int
    street: str  # hole | flop | turn | river


@dataclass(frozen=True, slots=True)
class PlaceCard:
    """``card = ...``: a card from the deck to a zone. ``card`` None with ``joker`` False means
    the top card ("next")."""

    number: int
    card: Card | None
    joker: bool
    to: str
    face: str  # up | down (the default already applied)
    copy: bool = False
    foreign: bool = False
    under_hand: bool = False  # slid in under the dealer's hand

    @property
    def is_next(self) -> bool:
        return self.card is None and not self.joker


@dataclass(frozen=True, slots=True)
class MoveCard:
    number: int
    card: Card | None  # None: the joker
    to: str
    face: str | None  # None: keep the card's face
    under_hand: bool = False  # slid in under the dealer's hand


@dataclass(frozen=True, slots=True)
class FlipCard:
    number: int
    card: Card | None  # None: the joker


@dataclass(frozen=True, slots=True)
class Actions:
    number: int
    actions: tuple[ScenarioAction, ...]


@dataclass(frozen=True, slots=True)
class Resolve:
    number: int
    code: str


@dataclass(frozen=True, slots=True)
class Showdown:
    number: int


@dataclass(frozen=True, slots=True)
class Fault:
    number: int
    kind: str


@dataclass(frozen=True, slots=True)
class ButtonReport:
    """``button = 4``: the dealer console (or the camera) reports the dealer button on seat 4;
    the controller compares it with the rotation (MISDEAL_BUTTON_POSITION, [000] [003])."""

    number: int
    seat: int


@dataclass(frozen=True, slots=True)
class Seating:
    """A console record that seats or unseats a player: ``sit`` (a newcomer with ``stack``
    chips; between the button and the small blind he waits for the button, rules.md §2),
    ``leave``, ``sit_out`` (away: the blinds that pass him are owed, [000, 003]), ``sit_in``."""

    number: int
    kind: str  # sit | leave | sit_out | sit_in
    seat: int
    stack: int | None = None  # sit only

    def action(self) -> ScenarioAction:
        """The record as the console action the controller takes."""
        return ScenarioAction(self.seat, self.kind, self.stack)


@dataclass(frozen=True, slots=True)
class Behaviour:
    """What players and the dealer do with the cards at every table, moving none of them out
    of its zone except ``muck`` (docs/scenario.md, "Behaviours"): ``peek`` (the player at
    ``zone``'s seat lifts his cards off the felt under his hand for ``seconds`` and lays them
    back), ``square`` (he squares them, one on the other), ``cover`` (``by``: a chip or a card
    protector on the zone's cards, or a hand held over it, until ``uncover``), ``uncover``
    (``by`` None: everything), ``reach`` (a hand passes over the zone for ``seconds``),
    ``muck`` (the seat's cards pushed face down into the muck, under the dealer's hand)."""

    number: int
    kind: str
    zone: str
    by: str | None = None
    seconds: float = 0.0


Step = (PressGreenButton | Deal | PlaceCard | MoveCard | FlipCard | Actions | Resolve | Showdown
        | Fault | ButtonReport | Seating | Behaviour)


@dataclass(frozen=True, slots=True)
class Expectation:
    """``alert = CODE`` (``expected`` True) with optional filters, or ``no_alert = CODE``."""

    code: str
    expected: bool
    hand: int | None = None
    seat: int | None = None
    step: int | None = None

    def describe(self) -> str:
        if not self.expected:
            return f"no_alert {self.code}"
        parts = [f"alert {self.code}"]
        parts += [f"{k} {v}" for k, v in (("hand", self.hand), ("seat", self.seat),
                                           ("step", self.step)) if v is not None]
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class ResultSpec:
    strict: bool = True
    hands: int | None = None
    stacks: dict[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    path: str
    name: str
    table: TableSpec
    players: dict[int, int]
    deck_seed: int
    deck_order: tuple[Card, ...]
    steps: tuple[Step, ...]
    expectations: tuple[Expectation, ...] = ()
    result: ResultSpec = field(default_factory=ResultSpec)
    deck_missing: tuple[Card, ...] = ()  # [deck] missing: cards the shuffler's deck lacks
    deck_extra: tuple[Card, ...] = ()  # [deck] extra: second cards of these faces in the deck
    felt: str = "green"  # [camera] felt: the cloth (vision.props.FELTS)
    light: str = "neutral"  # [camera] light: the room's light (hw_sim.devices.camera.LIGHTS)


# --- parsing -------------------------------------------------------------------------------


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate ``path``; raises :class:`ScenarioError` naming what is wrong."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"{p}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{p}: not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    return parse_scenario(text, source=str(p))


def parse_scenario(text: str, *, source: str = "<scenario>") -> Scenario:
    """Validate the TOML ``text``; ``source`` names the file in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{source}: not valid TOML: {exc}") from None
    return _Parser(source).scenario(data)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str) -> ScenarioError:
        return ScenarioError(f"{self.source}: {where}: {problem}")

    def keys(self, where: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
        extra = sorted(set(table) - set(allowed))
        if extra:
            raise self.fail(where, f"unknown key {extra[0]!r} (expected one of "
                                   f"{', '.join(allowed)})")

    def table(self, where: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"must be a table, not {_kind(value)}")
        return value

    def integer(self, where: str, value: Any, *, low: int | None = None,
                high: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"must be an integer, not {_kind(value)}")
        if low is not None and value < low:
            raise self.fail(where, f"{value} is below {low}")
        if high is not None and value > high:
            raise self.fail(where, f"{value} is above {high}")
        return value

    def string(self, where: str, value: Any, choices: tuple[str, ...] | None = None) -> str:
        if not isinstance(value, str):
            raise self.fail(where, f"must be a string, not {_kind(value)}")
        if choices is not None and value not in choices:
            raise self.fail(where, f"{value!r} is not one of {', '.join(map(repr, choices))}")
        return value

    def boolean(self, where: str, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"must be true or false, not {_kind(value)}")
        return value

    def card(self, where: str, value: Any) -> Card:
        token = self.string(where, value)
        try:
            return parse_card(token)
        except CardError as exc:
            raise self.fail(where, str(exc)) from None

    # sections ---------------------------------------------------------------------------

    def scenario(self, data: dict[str, Any]) -> Scenario:
        self.keys("top level", data,
                  ("name", "table", "players", "deck", "step", "expect", "result", "camera"))
        for required in ("table", "players", "deck", "step"):
            if required not in data:
                what = "[[step]] entries" if required == "step" else f"a [{required}] section"
                raise self.fail("top level", f"missing {what}")
        name = self.string("name", data["name"]) if "name" in data else ""
        players = self.players(data["players"])
        table = self.table_spec(data["table"], players)
        seed, order, missing, extra = self.deck(data["deck"])
        seated = set(players)  # every seat that has a player at some point of the run
        steps = self.steps(data["step"], table, seated)
        expectations = self.expectations(data.get("expect", []), table, len(steps))
        result = self.result(data["result"], seated) if "result" in data else ResultSpec()
        felt, light = self.camera(data["camera"], table) if "camera" in data else (
            "green", "neutral")
        return Scenario(path=self.source, name=name, table=table, players=players,
                        deck_seed=seed, deck_order=order, steps=steps,
                        expectations=expectations, result=result,
                        deck_missing=missing, deck_extra=extra, felt=felt, light=light)

    def camera(self, value: Any, table: TableSpec) -> tuple[str, str]:
        c = self.table("[camera]", value)
        self.keys("[camera]", c, ("felt", "light"))
        if "camera" not in table.sensors:
            raise self.fail("[camera]", f"needs the camera sensor, and [table] sensors = "
                                        f"{list(table.sensors)!r}")
        return (self.string("[camera] felt", c.get("felt", "green"), FELTS),
                self.string("[camera] light", c.get("light", "neutral"), LIGHTS))

    def seconds(self, where: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(where, f"must be a number of seconds, not {_kind(value)}")
        if not MIN_SECONDS <= value <= MAX_SECONDS:
            raise self.fail(where, f"{value} is not {MIN_SECONDS} to {MAX_SECONDS} seconds")
        return float(value)

    def behaviour(self, n: int, s: dict[str, Any], kind: str, table: TableSpec) -> Behaviour:
        where = f"step {n}"
        if kind in ("peek", "square", "muck"):
            self.keys(where, s, (kind, "seconds") if kind == "peek" else (kind,))
            seat = self.integer(f"{where} {kind}", s[kind], low=1, high=table.seats)
            seconds = (self.seconds(f"{where} seconds", s.get("seconds", PEEK_SECONDS))
                       if kind == "peek" else 0.0)
            return Behaviour(n, kind, f"seat{seat}", seconds=seconds)
        zone = self.zone(f"{where} {kind}", s[kind], table)
        if kind == "reach":
            self.keys(where, s, (kind, "seconds"))
            return Behaviour(n, kind, zone, by="hand",
                             seconds=self.seconds(f"{where} seconds",
                                                  s.get("seconds", REACH_SECONDS)))
        self.keys(where, s, (kind, "by"))
        if kind == "cover" and "by" not in s:
            raise self.fail(where, f"'cover' needs 'by' (one of {', '.join(COVERS)})")
        by = self.string(f"{where} by", s["by"], COVERS) if "by" in s else None
        return Behaviour(n, kind, zone, by=by)

    def players(self, value: Any) -> dict[int, int]:
        section = self.table("[players]", value)
        players: dict[int, int] = {}
        for key, stack in section.items():
            if not key.isdigit():
                raise self.fail("[players]", f"key {key!r} is not a seat number")
            seat = int(key)
            players[seat] = self.integer(f"[players] seat {seat}", stack, low=1)
        if len(players) < 2:
            raise self.fail("[players]", f"{len(players)} player(s): a hand needs at least 2")
        return dict(sorted(players.items()))

    def table_spec(self, value: Any, players: dict[int, int]) -> TableSpec:
        t = self.table("[table]", value)
        self.keys("[table]", t, ("seats", "game", "blinds", "ante", "ante_format", "button",
                                 "rules", "sensors"))
        for required in ("seats", "game", "blinds", "button"):
            if required not in t:
                raise self.fail("[table]", f"missing key {required!r}")
        seats = self.integer("[table] seats", t["seats"], low=MIN_SEATS, high=MAX_SEATS)
        game = self.string("[table] game", t["game"], GAMES)
        blinds = t["blinds"]
        if not isinstance(blinds, list) or len(blinds) != 2:
            raise self.fail("[table] blinds", "must be [small blind, big blind]")
        sb = self.integer("[table] blinds small blind", blinds[0], low=1)
        bb = self.integer("[table] blinds big blind", blinds[1], low=1)
        if sb > bb:
            raise self.fail("[table] blinds", f"small blind {sb} is above big blind {bb}")
        ante = self.integer("[table] ante", t.get("ante", 0), low=0)
        ante_format = self.string("[table] ante_format", t.get("ante_format", "each"),
                                  ANTE_FORMATS)
        button = self.integer("[table] button", t["button"], low=1, high=seats)
        rules = self.string("[table] rules", t.get("rules", "tda"), RULE_PROFILES)
        sensors_raw = t.get("sensors", list(SENSORS))
        if not isinstance(sensors_raw, list) or not sensors_raw:
            raise self.fail("[table] sensors",
                            'must be a non-empty list such as ["rfid", "camera"]')
        sensors = tuple(self.string("[table] sensors", s, SENSORS) for s in sensors_raw)
        if len(set(sensors)) != len(sensors):
            raise self.fail("[table] sensors", "lists a sensor twice")
        for seat in players:
            if seat > seats:
                raise self.fail("[players]", f"seat {seat} is beyond the table's {seats} seats")
        if button not in players:
            raise self.fail("[table] button", f"seat {button} has no player")
        return TableSpec(seats=seats, game=game, small_blind=sb, big_blind=bb, ante=ante,
                         button=button, rules=rules, sensors=sensors, ante_format=ante_format)

    def card_list(self, where: str, value: Any) -> tuple[Card, ...]:
        """A list of distinct cards such as ``["As", "Kd"]``."""
        if not isinstance(value, list):
            raise self.fail(where, "must be a list of cards such as [\"As\", \"Kd\"]")
        cards = tuple(self.card(f"{where} item {i}", c) for i, c in enumerate(value, 1))
        seen: set[Card] = set()
        for c in cards:
            if c in seen:
                raise self.fail(where, f"{c} is listed twice")
            seen.add(c)
        return cards

    def deck(self, value: Any) -> tuple[int, tuple[Card, ...], tuple[Card, ...],
                                        tuple[Card, ...]]:
        d = self.table("[deck]", value)
        self.keys("[deck]", d, ("seed", "order", "missing", "extra"))
        if "seed" not in d:
            raise self.fail("[deck]", "missing key 'seed'")
        seed = self.integer("[deck] seed", d["seed"])
        order = self.card_list("[deck] order", d.get("order", []))
        missing = self.card_list("[deck] missing", d.get("missing", []))
        extra = self.card_list("[deck] extra", d.get("extra", []))
        if len(extra) > MAX_EXTRA:
            raise self.fail("[deck] extra", f"{len(extra)} cards: at most {MAX_EXTRA}")
        for c in missing:
            if c in extra:
                raise self.fail("[deck]", f"{c} is both missing and extra")
            if c in order:
                raise self.fail("[deck] order", f"{c} is missing from the deck ([deck] missing)")
        return seed, order, missing, extra

    def steps(self, value: Any, table: TableSpec, seated: set[int]) -> tuple[Step, ...]:
        """The steps in order; ``seated`` (the players' seats) grows with each ``sit``, so an
        action may name a newcomer only after he sat down."""
        if not isinstance(value, list) or not value:
            raise self.fail("top level", "'step' must be one or more [[step]] entries")
        return tuple(self.step(n, raw, table, seated) for n, raw in enumerate(value, 1))

    def zone(self, where: str, value: Any, table: TableSpec, *,
             shuffler: bool = False) -> str:
        """A felt zone; with ``shuffler`` also ``"shuffler"`` (the stub, ``card`` steps)."""
        z = self.string(where, value)
        if z in (BOARD, BURN, MUCK) or (shuffler and z == SHUFFLER):
            return z
        if z.startswith("seat") and z[4:].isdigit():
            n = int(z[4:])
            if 1 <= n <= table.seats:
                return z
            raise self.fail(where, f"{z!r}: the table has seats 1 to {table.seats}")
        also = ", shuffler" if shuffler else ""
        raise self.fail(where, f"{z!r} is not a zone (seat1..seat{table.seats}, board, burn, "
                               f"muck{also})")

    def step(self, n: int, raw: Any, table: TableSpec, seated: set[int]) -> Step:
        where = f"step {n}"
        s = self.table(where, raw)
        kinds = [k for k in STEP_KINDS if k in s]
        if len(kinds) != 1:
            found = ", ".join(kinds) if kinds else "none"
            raise self.fail(where, f"needs exactly one of {', '.join(STEP_KINDS)} (found {found})")
        kind = kinds[0]
        value = s[kind]
        if kind in ("green_button", "showdown"):
            self.keys(where, s, (kind,))
            if value is not True:
                raise self.fail(where, f"{kind} must be true")
            return PressGreenButton(n) if kind == "green_button" else Showdown(n)
        if kind == "deal":
            self.keys(where, s, ("deal",))
            return Deal(n, self.string(f"{where} deal", value, STREETS))
        if kind == "card":
            return self.place(n, s, table)
        if kind == "move":
            self.keys(where, s, ("move", "to", "face", "under_hand"))
            if "to" not in s:
                raise self.fail(where, "'move' needs 'to'")
            face = self.string(f"{where} face", s["face"], FACES) if "face" in s else None
            return MoveCard(n, self.felt_card(f"{where} move", value),
                            self.zone(f"{where} to", s["to"], table), face,
                            self.boolean(f"{where} under_hand", s.get("under_hand", False)))
        if kind == "flip":
            self.keys(where, s, ("flip",))
            return FlipCard(n, self.felt_card(f"{where} flip", value))
        if kind == "actions":
            self.keys(where, s, ("actions",))
            if not isinstance(value, list) or not value:
                raise self.fail(where, 'actions must be a non-empty list such as ["3 call"]')
            return Actions(n, tuple(self.action(f"{where} action {i}", a, seated)
                                    for i, a in enumerate(value, 1)))
        if kind in SEATING_KINDS:
            return self.seating(n, s, kind, table, seated)
        if kind in BEHAVIOUR_KINDS:
            return self.behaviour(n, s, kind, table)
        if kind == "button":
            self.keys(where, s, ("button",))
            return ButtonReport(n, self.integer(f"{where} button", value, low=1,
                                                high=table.seats))
        if kind == "resolve":
            self.keys(where, s, ("resolve",))
            code = self.string(f"{where} resolve", value)
            if code not in CATALOGUE:
                raise self.fail(where, f"resolve: unknown alert code {code!r}")
            return Resolve(n, code)
        self.keys(where, s, ("fault",))
        fault = self.string(f"{where} fault", value, FAULTS)
        needs = "camera" if fault == "camera_freeze" else "rfid"
        if needs not in table.sensors:
            raise self.fail(where, f"fault {fault!r} needs the {needs} sensor, and [table] "
                                   f"sensors = {list(table.sensors)!r}")
        return Fault(n, fault)

    def seating(self, n: int, s: dict[str, Any], kind: str, table: TableSpec,
                seated: set[int]) -> Seating:
        where = f"step {n}"
        self.keys(where, s, (kind, "stack") if kind == "sit" else (kind,))
        seat = self.integer(f"{where} {kind}", s[kind], low=1, high=table.seats)
        if kind != "sit":
            if seat not in seated:
                raise self.fail(where, f"{kind} = {seat}: seat {seat} has no player")
            return Seating(n, kind, seat)
        if "stack" not in s:
            raise self.fail(where, "'sit' needs 'stack' (the newcomer's chips)")
        stack = self.integer(f"{where} stack", s["stack"], low=1)
        seated.add(seat)
        return Seating(n, kind, seat, stack)

    def felt_card(self, where: str, value: Any) -> Card | None:
        if value == "joker":
            return None
        return self.card(where, value)

    def place(self, n: int, s: dict[str, Any], table: TableSpec) -> PlaceCard:
        where = f"step {n}"
        self.keys(where, s, ("card", "to", "face", "copy", "foreign", "under_hand"))
        if "to" not in s:
            raise self.fail(where, "'card' needs 'to'")
        token = self.string(f"{where} card", s["card"])
        to = self.zone(f"{where} to", s["to"], table, shuffler=True)
        copy = self.boolean(f"{where} copy", s.get("copy", False))
        foreign = self.boolean(f"{where} foreign", s.get("foreign", False))
        if copy and foreign:
            raise self.fail(where, "a card cannot be both copy (active deck) and foreign")
        card: Card | None = None
        joker = token == "joker"
        if token not in ("next", "joker"):
            card = self.card(f"{where} card", token)
        elif copy or foreign:
            flag = "copy" if copy else "foreign"
            raise self.fail(where, f"{flag} = true needs a named card such as \"As\", "
                                   f"not {token!r}")
        default = "up" if to == BOARD else "down"
        face = self.string(f"{where} face", s["face"], FACES) if "face" in s else default
        if to == SHUFFLER and face != "up":
            raise self.fail(where, 'to = "shuffler" needs face = "up" (a card found face up '
                                   "on the stub); cards go back to the stub when a hand ends")
        under = self.boolean(f"{where} under_hand", s.get("under_hand", False))
        if under and to == SHUFFLER:
            raise self.fail(where, 'under_hand: a card is slid under a hand on the felt, not '
                                   "on the stub")
        return PlaceCard(n, card, joker, to, face, copy, foreign, under)

    def action(self, where: str, value: Any, players: set[int]) -> ScenarioAction:
        text = self.string(where, value)
        parts = text.split()
        if len(parts) not in (2, 3) or not parts[0].isdigit():
            raise self.fail(where, f"{text!r} is not 'SEAT ACTION [AMOUNT]' (as in \"5 raise 6\")")
        seat = int(parts[0])
        if seat not in players:
            raise self.fail(where, f"{text!r}: seat {seat} has no player")
        kind = parts[1]
        if kind not in ACTION_KINDS:
            raise self.fail(where, f"{text!r}: {kind!r} is not one of {', '.join(ACTION_KINDS)}")
        if kind in ("bet", "raise"):
            if len(parts) != 3 or not parts[2].isdigit() or int(parts[2]) < 1:
                raise self.fail(where, f"{text!r}: {kind} needs the total amount, as in "
                                       f"\"{seat} {kind} 6\"")
            return ScenarioAction(seat, kind, int(parts[2]))
        if len(parts) != 2:
            raise self.fail(where, f"{text!r}: {kind} takes no amount")
        return ScenarioAction(seat, kind)

    def expectations(self, value: Any, table: TableSpec,
                     n_steps: int) -> tuple[Expectation, ...]:
        if not isinstance(value, list):
            raise self.fail("[[expect]]", "must be one or more [[expect]] entries")
        out: list[Expectation] = []
        for i, raw in enumerate(value, 1):
            where = f"expect {i}"
            e = self.table(where, raw)
            has = [k for k in ("alert", "no_alert") if k in e]
            if len(has) != 1:
                raise self.fail(where, "needs exactly one of 'alert' or 'no_alert'")
            code = self.string(f"{where} {has[0]}", e[has[0]])
            if code not in CATALOGUE:
                raise self.fail(where, f"unknown alert code {code!r}")
            if has[0] == "no_alert":
                self.keys(where, e, ("no_alert",))
                out.append(Expectation(code, expected=False))
                continue
            self.keys(where, e, ("alert", "hand", "seat", "step"))
            hand = self.integer(f"{where} hand", e["hand"], low=1) if "hand" in e else None
            seat = (self.integer(f"{where} seat", e["seat"], low=1, high=table.seats)
                    if "seat" in e else None)
            step = (self.integer(f"{where} step", e["step"], low=1, high=n_steps)
                    if "step" in e else None)
            out.append(Expectation(code, expected=True, hand=hand, seat=seat, step=step))
        return tuple(out)

    def result(self, value: Any, players: set[int]) -> ResultSpec:
        r = self.table("[result]", value)
        self.keys("[result]", r, ("strict", "hands", "stacks"))
        strict = self.boolean("[result] strict", r.get("strict", True))
        hands = self.integer("[result] hands", r["hands"], low=0) if "hands" in r else None
        stacks: dict[int, int] | None = None
        if "stacks" in r:
            raw = self.table("[result] stacks", r["stacks"])
            stacks = {}
            for key, amount in raw.items():
                if not key.isdigit() or int(key) not in players:
                    raise self.fail("[result] stacks", f"seat {key!r} has no player")
                stacks[int(key)] = self.integer(f"[result] stacks seat {key}", amount, low=0)
        return ResultSpec(strict=strict, hands=hands, stacks=stacks)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__

