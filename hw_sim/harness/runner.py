"""Run a scenario: the simulated table on one side, the daemon's controller on the other.

::

    scenario steps -> Dealer -> TableModel (every physical card, its zone, face and tag)
                                   |                          |                      |
             VirtualRfidController on a pty          sim GPIO pin (bounce)    VirtualCamera frames
                                   |                          |                      |
              REAL SerialLink + RfidReader        REAL ShufflerButton        REAL vision tracker
                                   \\___________ observations ___________/
                                                     |
        table_controller.daemon.controller.Controller (the one a table runs): DealingMonitor +
        rules engine, console requests, journal (optional), lamps, hole-card redaction
                                                     |
                               MonitorOutput -> alerts attributed to steps, hand_end records

The simulated table is :class:`~hw_sim.devices.sim_table.SimTable` (the same wiring as
``run --sim`` and ``demo``). The runner moves its clock. After every single card movement (and
every button press, console action, fault) it *settles*: it lets the controller look at the
table (``Controller.step``: every sensor polled, the observations fed to the monitor in time
order, the monitor's clock ticked), advancing the clock in ticks and stopping at each time a
device has something scheduled, until the debouncers' hold times and the monitor's settle time
have passed. Betting actions, resolves and the showdown go through the controller's console
requests, as a dealer console sends them. Alerts are attributed to the scenario step during
which they were raised.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from hw_sim.devices import wiring
from hw_sim.devices.dealer import DealerError
from hw_sim.devices.sim_table import SimTable
from hw_sim.devices.table_model import ModelError, PhysicalCard
from hw_sim.harness.expectations import RaisedAlert, RunRecord
from hw_sim.harness.scenario import (
    Actions,
    Behaviour,
    ButtonReport,
    Deal,
    Fault,
    FlipCard,
    MoveCard,
    PlaceCard,
    PressGreenButton,
    Resolve,
    Scenario,
    ScenarioAction,
    Seating,
    Showdown,
    Step,
)
from table_controller.daemon.controller import Controller
from table_controller.daemon.journal import Journal
from table_controller.engine import AnteFormat, EngineError, GameConfig, Structure, Table
from table_controller.monitor import (
    BurnChooser,
    DealingMonitor,
    HandEnd,
    MonitorConfig,
    MonitorError,
)
from table_controller.monitor.fusion import sensor_lag
from table_controller.monitor.output import MonitorOutput
from table_controller.monitor.records import RulesProfile
from table_controller.phh import Context
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import MUCK, SHUFFLER

CONSOLE_KINDS = {"time": "time_expired"}
"""Scenario action words that the console's ``action`` request names differently."""
HAND_IN = 0.2
"""Simulated seconds a hand is over a zone before the cards under it move (and after)."""
STRUCTURES = {"nlhe": Structure.NO_LIMIT, "plhe": Structure.POT_LIMIT,
              "flhe": Structure.FIXED_LIMIT}


@dataclass(frozen=True, slots=True)
class Timing:
    """Simulated seconds. ``tick``: how far the clock moves between two looks at the sensors;
    ``settle``: how long the table stays still after each movement (longer than every hold
    time and the monitor's settle time, so each movement is seen before the next)."""

    tick: float = 0.05
    settle: float = 0.4
    action_settle: float = 0.2  # after a console action: nothing moved on the felt


class StepError(Exception):
    """A scenario step that cannot be carried out on the table as it is."""


@dataclass(slots=True)
class Listeners:
    on_alert: Callable[[RaisedAlert], None] = lambda _a: None
    on_update: Callable[[RaisedAlert], None] = lambda _a: None
    on_resolved: Callable[[dict[str, Any]], None] = lambda _r: None
    on_hand_end: Callable[[dict[str, Any]], None] = lambda _h: None
    on_step: Callable[[Step], None] = lambda _s: None


@dataclass(slots=True)
class ScenarioRunner:
    """Runs ``scenario`` step by step on the simulated ``table`` against ``controller`` (whose
    sensors are the table's)."""

    scenario: Scenario
    table: SimTable
    controller: Controller
    timing: Timing = field(default_factory=Timing)
    listeners: Listeners = field(default_factory=Listeners)
    record: RunRecord = field(default_factory=RunRecord)
    step_number: int = 0
    open_alerts: list[Alert] = field(default_factory=list)
    _ended: list[HandEnd] = field(default_factory=list)
    _faults: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.controller.on_output = self._heard
        self.controller.on_fault = self._faults.append

    def run(self) -> RunRecord:
        if self.start():
            for step in self.scenario.steps:
                if not self.do(step):
                    break
        return self.finish()

    def start(self) -> bool:
        """The sensors take a first look at the table (the shuffler holds the first deck);
        False (and the error recorded) if that failed."""
        self.table.dealer.after_move = self.settle
        try:
            self.settle()
        except StepError as exc:
            self.record.errors.append(f"before step 1: {exc}")
            return False
        return True

    def do(self, step: Step) -> bool:
        """Perform one step and let the table settle; False (and the error recorded) if the
        step could not be carried out."""
        self.step_number = step.number
        self.listeners.on_step(step)
        try:
            self.perform(step)
            console = isinstance(step, Actions | ButtonReport | Seating)
            self.settle(self.timing.action_settle if console else None)
        except (StepError, DealerError, ModelError, MonitorError, EngineError) as exc:
            # the table or the controller refused the step: name it, keep the state
            self.record.errors.append(f"step {step.number}: {exc}")
            return False
        return True

    def finish(self) -> RunRecord:
        self.record.stacks = dict(self.controller.table.stacks)
        return self.record

    def close(self) -> None:
        """Close the controller: the sensor chains, the lamps, the journal, the table."""
        self.controller.close()

    # --- steps --------------------------------------------------------------------------

    def perform(self, step: Step) -> None:
        dealer, model = self.table.dealer, self.table.model
        if isinstance(step, PressGreenButton):
            self.table.press_green_button()
        elif isinstance(step, Deal):
            if step.street == "hole":
                order = list(self.controller.monitor.deal_order())
                if not order:
                    raise StepError("deal = \"hole\": the controller has no hand to deal")
                dealer.deal_hole(order)
            else:
                dealer.deal_street(step.street)
        elif isinstance(step, PlaceCard) and step.to == SHUFFLER:
            dealer.face_up_on_stub(self._stub_card_for(step))
        elif isinstance(step, PlaceCard):
            card = self._card_for(step)
            self._by_hand(step.to, step.under_hand,
                          lambda: dealer.put(card, step.to, Face(step.face)))
        elif isinstance(step, MoveCard):
            pc = model.find_on_felt(step.card)
            self._by_hand(step.to, step.under_hand, lambda: dealer.move(
                pc, step.to, None if step.face is None else Face(step.face)))
        elif isinstance(step, Behaviour):
            self.behave(step)
        elif isinstance(step, FlipCard):
            dealer.flip(model.find_on_felt(step.card))
        elif isinstance(step, Actions):
            for action in step.actions:
                self.console(action_request(action))
                self.settle(self.timing.action_settle)
        elif isinstance(step, Seating):
            self.console(seating_request(step))
        elif isinstance(step, ButtonReport):
            self.console(action_request(ScenarioAction(step.seat, "button")))
        elif isinstance(step, Resolve):
            self.resolve(step.code)
        elif isinstance(step, Showdown):
            for seat in self.controller.monitor.showdown_order():
                dealer.show(seat)
            self.console({"cmd": "showdown"})
        elif isinstance(step, Fault) and not self.table.fault(step.kind, self.table.clock()):
            raise StepError(f"fault {step.kind!r}: no sensor in this run carries it")

    def _by_hand(self, zone: str, under: bool, move: Callable[[], None]) -> None:
        """``move`` the card; ``under``: slid in under the dealer's hand, which covers the zone
        from a moment before the card lands (``HAND_IN``) to a moment after; the step's settle
        follows once the hand has gone."""
        if not under:
            move()
            return
        model, dealer = self.table.model, self.table.dealer
        model.cover(zone, "hand")
        self.settle(HAND_IN)
        after = dealer.after_move
        dealer.after_move = lambda: self.settle(HAND_IN)  # the hand lifts once the card lies
        try:
            move()
        finally:
            dealer.after_move = after
        model.uncover(zone, "hand")

    def behave(self, step: Behaviour) -> None:
        """What players and the dealer do with the cards (docs/scenario.md, "Behaviours")."""
        model, zone = self.table.model, step.zone
        if step.kind in ("peek", "muck"):
            cards = model.in_zone(zone)
            if not cards:
                raise StepError(f"{step.kind} = {zone[4:]}: the seat has no cards")
            if step.kind == "muck":
                # the player takes his chip or protector back and pushes his cards forward;
                # the dealer sweeps them into the muck pile
                model.uncover(zone)

                def sweep() -> None:
                    for pc in cards:
                        self.table.dealer.move(pc, MUCK, Face.DOWN)

                self._by_hand(MUCK, True, sweep)
                return
            model.cover(zone, "hand")
            self.settle(HAND_IN)
            model.lift(cards)
            self.settle(step.seconds)
            model.lift(cards, up=False)
            self.settle(HAND_IN)
            model.uncover(zone, "hand")
        elif step.kind == "square":
            model.square(zone)
        elif step.kind == "cover":
            assert step.by is not None  # the loader requires it
            model.cover(zone, step.by)
        elif step.kind == "uncover":
            model.uncover(zone, step.by)
        else:  # reach: a hand passes over the zone
            model.cover(zone, "hand")
            self.settle(step.seconds)
            model.uncover(zone, "hand")

    def console(self, request: dict[str, Any]) -> dict[str, Any]:
        """A request on the dealer console; a refusal is a :class:`StepError` with its
        reason."""
        answer = self.controller.handle(request)
        if not answer.get("ok"):
            raise StepError(str(answer.get("error")))
        return answer

    def _card_for(self, step: PlaceCard) -> PhysicalCard:
        model = self.table.model
        if step.joker:
            return model.new_joker()
        if step.card is None:
            return model.draw_top()
        if step.copy:
            return model.new_copy(step.card)
        if step.foreign:
            return model.new_foreign(step.card)
        return model.draw(step.card)

    def _stub_card_for(self, step: PlaceCard) -> PhysicalCard:
        """The card found face up on the stub: the top card ("next"), the named card of the
        deck wherever it lay in the stub, or a card brought in (copy, foreign, joker)."""
        model = self.table.model
        if step.is_next:
            stub = model.stub
            if not stub:
                raise StepError("card = \"next\" to the shuffler: the stub is empty")
            return stub[0]
        if step.card is not None and not (step.copy or step.foreign):
            return model.find_in_stub(step.card)
        return self._card_for(step)

    def resolve(self, code: str) -> None:
        """The dealer carries out the remedy of the last open alert with ``code``; the floor
        acknowledges it."""
        alert = next((a for a in reversed(self.open_alerts) if a.code == code), None)
        if alert is None:
            raise StepError(f"resolve {code}: the controller raised no {code} to resolve")
        self.table.dealer.carry_out(alert, rules=self.scenario.table.rules)
        self.open_alerts = [a for a in self.open_alerts if a.code != code]
        self.console({"cmd": "resolve", "code": code})

    # --- time -------------------------------------------------------------------------

    def settle(self, seconds: float | None = None) -> None:
        """Let the controller look at the table until it has been still for ``seconds``
        (default ``timing.settle``) simulated seconds."""
        clock, timing = self.table.clock, self.timing
        end = clock() + (timing.settle if seconds is None else seconds)
        while True:
            now = clock()
            self.controller.step()
            self._after_look()
            if now >= end:
                return
            target = min(now + timing.tick, end)
            due = self.table.next_due(now)
            if due is not None and due < target:
                target = due
            clock.advance_to(target)

    def _after_look(self) -> None:
        if self._faults:
            fault = self._faults[0]
            self._faults.clear()
            raise StepError(fault)
        while self._ended:
            end = self._ended.pop(0)
            self.record.hands += 1
            self.open_alerts.clear()
            self.listeners.on_hand_end(hand_end_json(end))
            # scenario.md: when a hand ends the dealer gathers every card back into the shuffler
            self.table.dealer.collect()

    def _heard(self, out: MonitorOutput) -> None:
        """What the controller published, as it happened."""
        ids = self.controller.alert_id
        for alert in out.alerts:
            raised = RaisedAlert(alert, self.step_number, ids(alert.ref))
            self.record.alerts.append(raised)
            self.open_alerts.append(alert)
            self.listeners.on_alert(raised)
        for update in out.updates:  # the same error, restated: the dealer reads the latest
            self.open_alerts = [update if a.ref == update.ref else a for a in self.open_alerts]
            self.listeners.on_update(RaisedAlert(update, self.step_number, ids(update.ref),
                                                 update=True))
        for end in out.resolved:
            self.listeners.on_resolved({
                "type": "alert_resolved", "id": ids(end.ref), "code": end.code,
                "hand": end.hand, "by": end.by,
                "time": self.controller.wall(end.t).isoformat(timespec="milliseconds")})
        if out.hand_ended is not None:
            self._ended.append(out.hand_ended)


def action_request(action: ScenarioAction) -> dict[str, Any]:
    """A scenario's betting action (or ``time``, ``button``) as the console's ``action``
    request."""
    request: dict[str, Any] = {"cmd": "action", "seat": action.seat,
                               "kind": CONSOLE_KINDS.get(action.kind, action.kind)}
    if action.amount is not None:
        request["amount"] = action.amount
    return request


def seating_request(step: Seating) -> dict[str, Any]:
    """A scenario's seating record as the console's request (``sit`` with the stack,
    ``leave``, ``sit_out``, ``sit_in``)."""
    request: dict[str, Any] = {"cmd": step.kind, "seat": step.seat}
    if step.kind == "sit":
        request["stack"] = step.stack
    return request


def hand_end_json(end: HandEnd) -> dict[str, Any]:
    """A monitor ``HandEnd`` as the ``hand_end`` JSON object of ``sim --json``."""
    return {"type": "hand_end", "hand": end.number, "voided": end.voided, "cause": end.cause,
            "stacks": {str(s): v for s, v in sorted(end.stacks.items())}}


def seeded_burns(seed: int) -> BurnChooser:
    """The simulated table's pick of a four-card flop's burn card (TDA 2024 39-A, [002 #33]),
    drawn from a generator seeded by the deck's seed, so that a run plays the same way every
    time (a table's daemon picks with ``secrets``, which nobody can predict)."""
    rng = random.Random(f"burn:{seed}")

    def choose(cards: Sequence[Card]) -> Card:
        if not cards:
            raise MonitorError("no card to choose the burn card from")
        return cards[rng.randrange(len(cards))]

    return choose


def scenario_monitor(scenario: Scenario, *, stub_antenna: bool = True,
                     sensor_lag: float = 0.0) -> DealingMonitor:
    """The rules engine's table and the dealing monitor, configured from ``[table]`` and
    ``[players]``. With the reader (over the pty: ``stub_antenna``), the simulated table has an
    antenna under the shuffler tray, so the stub is checked at each green button
    (DECK_INCOMPLETE, [003])."""
    t = scenario.table
    config = GameConfig(structure=STRUCTURES[t.game], small_blind=t.small_blind,
                        big_blind=t.big_blind, ante=t.ante, ante_format=AnteFormat(t.ante_format))
    table = Table(config, seats=t.seats)
    for seat, stack in scenario.players.items():
        table.sit(seat, stack)
    table.set_button(t.button)
    rules: RulesProfile = "house" if t.rules == "house" else "tda"  # the loader checked it
    return DealingMonitor(table, config=MonitorConfig(
        rules=rules, sensors=frozenset(t.sensors),
        stub_visible=stub_antenna and "rfid" in t.sensors, sensor_lag=sensor_lag),
        burn_chooser=seeded_burns(scenario.deck_seed))


def build_runner(scenario: Scenario, *, listeners: Listeners | None = None,
                 journal: Journal | None = None, wall_start: datetime | None = None,
                 rfid_link: Literal["pty", "in_process"] = "pty") -> ScenarioRunner:
    """The simulated table ``scenario`` names, and the daemon's controller over it.

    ``journal``: the controller journals the run there (a run is started, named after the
    scenario), as a table does. ``wall_start``: the wall time of the run's start (default now);
    simulated time runs on from it. ``rfid_link``: ``pty`` (default) or ``in_process``."""
    t = scenario.table
    rfid = "rfid" in t.sensors
    table = SimTable(seed=scenario.deck_seed, sensors=t.sensors,
                     first_order=scenario.deck_order, missing=scenario.deck_missing,
                     extra=scenario.deck_extra, stub_antenna=rfid,
                     # the simulated camera's layout covers the shuffler tray: it sees the
                     # stub's top card
                     stub_view=True, rfid_link=rfid_link,
                     felt=scenario.felt, light=scenario.light)
    # the RFID link played in-process has no antenna under the shuffler tray; with both
    # sensors the monitor allows for their lag as a table's configuration derives it
    # (docs/monitor.md), the camera analysing a frame at every look (every scan period)
    lag = 0.0
    if frozenset(t.sensors) == {"rfid", "camera"}:
        from vision.tracker import CardTracker  # OpenCV: when the camera is simulated

        tracker = CardTracker()
        lag = sensor_lag(hold_time=wiring.HOLD_TIME, confirm_frames=tracker.confirm_frames,
                         drop_frames=tracker.drop_frames, frame_rate=1 / wiring.SCAN_PERIOD)
    monitor = scenario_monitor(scenario, stub_antenna=rfid_link == "pty", sensor_lag=lag)
    clock, origin = table.clock, table.clock()
    started = wall_start or datetime.now(UTC)

    def wall() -> datetime:
        return started + timedelta(seconds=clock() - origin)

    controller = Controller(monitor=monitor, sensors=table.sensors, journal=journal,
                            outputs=table.outputs(), clock=clock, wall_clock=wall,
                            phh_context=Context(seat_count=t.seats, table=scenario.name),
                            also_close=[table.model.close])
    if journal is not None:
        journal.start_run(t=origin, wall=started.isoformat(timespec="milliseconds"),
                          table_name=scenario.name, config=json.dumps({
                              "scenario": scenario.path, "seats": t.seats, "game": t.game,
                              "rules": t.rules, "sensors": sorted(t.sensors), "sim": True}))
    # Still long enough after each movement for a removal to outlast the reader's hold time
    # and for the monitor's settle time to pass after it, with a tick to spare.
    settle = wiring.HOLD_TIME + monitor.config.settle_time + 0.2
    timing = Timing(tick=wiring.SCAN_PERIOD, settle=settle, action_settle=0.3)
    return ScenarioRunner(scenario=scenario, table=table, controller=controller, timing=timing,
                          listeners=listeners or Listeners())
