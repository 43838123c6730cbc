"""Run a scenario: the simulated table on one side, the real controller on the other.

::

    scenario steps -> Dealer -> TableModel (every physical card, its zone, face and tag)
                                   |                          |                      |
             VirtualRfidController on a pty          sim GPIO pin (bounce)    VirtualCamera frames
                                   |                          |                      |
              REAL SerialLink + RfidReader        REAL ShufflerButton        REAL vision tracker
                                   \\___________ observations ___________/
                                                     |
                                  DealingMonitor + rules engine -> alerts, hand_end

The runner owns the :class:`~hw_sim.devices.clock.SimClock`. After every single card movement (and
every button press, console action, fault) it *settles*: it lets each sensor chain see the
table, advances the clock in ticks until the debouncers' hold times and the monitor's settle
time have passed, and feeds every observation to the monitor in time order. Alerts are
attributed to the scenario step during which they were raised.

The sensor chains and the controller are reached through two small protocols
(:class:`SensorChain`, :class:`Controller`); :mod:`hw_sim.devices.wiring` builds the real ones.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from hw_sim.devices.clock import SimClock
from hw_sim.devices.dealer import Dealer, DealerError
from hw_sim.devices.table_model import ModelError, PhysicalCard, TableModel, shuffled_deck
from hw_sim.harness.expectations import RaisedAlert, RunRecord
from hw_sim.harness.scenario import (
    Actions,
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
from table_controller.engine import EngineError
from table_controller.monitor.records import MonitorError
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.observations import Face, Observation
from table_controller.vocabulary.zones import SHUFFLER


@dataclass(frozen=True, slots=True)
class Timing:
    """Simulated seconds. ``tick``: how far the clock moves between two looks at the sensors;
    ``settle``: how long the table stays still after each movement (longer than every hold
    time and the monitor's settle time, so each movement is seen before the next)."""

    tick: float = 0.05
    settle: float = 0.4
    action_settle: float = 0.2  # after a console action: nothing moved on the felt


class SensorChain(Protocol):
    """One sensor path from the simulated table to observations (RFID, camera, button)."""

    name: str

    def poll(self, now: float) -> list[Observation]:
        """Let the sensor see the table as it is now; return the observations it delivered."""

    def fault(self, kind: str, now: float) -> bool:
        """Inject a fault this chain can carry (scenario.md ``fault``); False if not its own."""

    def next_due(self, now: float) -> float | None:
        """The next time after ``now`` at which something is scheduled to happen on this
        sensor (a bounce edge), so the clock can stop there; None if nothing is."""

    def close(self) -> None: ...


class Button(Protocol):
    def press(self, now: float) -> None:
        """Press and release the shuffler's green button (with contact bounce)."""


class Controller(Protocol):
    """The controller under test: the dealing monitor with the rules engine inside."""

    def observe(self, obs: Observation) -> list[Alert]: ...

    def console(self, action: ScenarioAction, t: float) -> list[Alert]: ...

    def resolve(self, code: str, t: float) -> list[Alert]: ...

    def tick(self, now: float) -> list[Alert]: ...

    def deal_order(self) -> Sequence[int]:
        """Seats dealt in for the current hand, in dealing order."""

    def showdown_order(self) -> Sequence[int]: ...

    def showdown(self, t: float) -> list[Alert]: ...

    def take_hand_ends(self) -> list[dict[str, Any]]:
        """``hand_end`` records (JSON-ready dicts) produced since the last call."""

    def stacks(self) -> dict[int, int]: ...


class StepError(Exception):
    """A scenario step that cannot be carried out on the table as it is."""


@dataclass(slots=True)
class Listeners:
    on_alert: Callable[[RaisedAlert], None] = lambda _a: None
    on_hand_end: Callable[[dict[str, Any]], None] = lambda _h: None
    on_step: Callable[[Step], None] = lambda _s: None


@dataclass(slots=True)
class SimWorld:
    """The simulated side: clock, physical table, dealer and the shuffler's decks."""

    clock: SimClock
    model: TableModel
    dealer: Dealer
    deck_rng: random.Random
    first_order: tuple[Any, ...] = ()
    decks_dealt: int = 0
    deck_fresh: bool = False  # the shuffler's deck has not been dealt from yet

    def next_deck(self) -> list[Any]:
        """Each hand gets a freshly shuffled deck; only hand 1's starts with ``[deck] order``."""
        top = self.first_order if self.decks_dealt == 0 else ()
        self.decks_dealt += 1
        self.deck_fresh = True
        return shuffled_deck(self.deck_rng, top, self.model.deck_faces())


@dataclass(slots=True)
class ScenarioRunner:
    """Runs ``scenario`` step by step against ``controller`` through ``chains``."""

    scenario: Scenario
    world: SimWorld
    controller: Controller
    chains: Sequence[SensorChain]
    button: Button
    timing: Timing = field(default_factory=Timing)
    listeners: Listeners = field(default_factory=Listeners)
    record: RunRecord = field(default_factory=RunRecord)
    step_number: int = 0
    open_alerts: list[Alert] = field(default_factory=list)

    def run(self) -> RunRecord:
        self.start()
        for step in self.scenario.steps:
            if not self.do(step):
                break
        return self.finish()

    def start(self) -> None:
        """The shuffler prepares the first deck; the sensors take a first look."""
        self.world.dealer.after_move = self.settle
        self.world.dealer.new_hand(self.world.next_deck())
        self.settle()

    def do(self, step: Step) -> bool:
        """Perform one step and let the table settle; False (and the error recorded) if the
        step could not be carried out."""
        self.step_number = step.number
        self.listeners.on_step(step)
        try:
            self.perform(step)
        except (StepError, DealerError, ModelError, MonitorError, EngineError) as exc:
            # the table or the controller refused the step: name it, keep the state
            self.record.errors.append(f"step {step.number}: {exc}")
            return False
        console = isinstance(step, Actions | ButtonReport | Seating)
        self.settle(self.timing.action_settle if console else None)
        return True

    def finish(self) -> RunRecord:
        self.record.stacks = dict(self.controller.stacks())
        return self.record

    def close(self) -> None:
        for chain in self.chains:
            chain.close()
        self.world.model.close()

    # --- steps --------------------------------------------------------------------------

    def perform(self, step: Step) -> None:
        dealer, model = self.world.dealer, self.world.model
        if isinstance(step, PressGreenButton):
            # each press starts a hand from a freshly shuffled deck (the shuffler prepared the
            # first one before the run; later ones once the felt is clear)
            if not model.felt and not self.world.deck_fresh:
                dealer.new_hand(self.world.next_deck())
            self.world.deck_fresh = False
            self.button.press(self.world.clock())
        elif isinstance(step, Deal):
            if step.street == "hole":
                order = list(self.controller.deal_order())
                if not order:
                    raise StepError("deal = \"hole\": the controller has no hand to deal")
                dealer.deal_hole(order)
            else:
                dealer.deal_street(step.street)
        elif isinstance(step, PlaceCard) and step.to == SHUFFLER:
            dealer.face_up_on_stub(self._stub_card_for(step))
        elif isinstance(step, PlaceCard):
            dealer.put(self._card_for(step), step.to, Face(step.face))
        elif isinstance(step, MoveCard):
            dealer.move(model.find_on_felt(step.card), step.to,
                        None if step.face is None else Face(step.face))
        elif isinstance(step, FlipCard):
            dealer.flip(model.find_on_felt(step.card))
        elif isinstance(step, Actions):
            for action in step.actions:
                self.emit(self.controller.console(action, self.world.clock()))
                self.settle(self.timing.action_settle)
        elif isinstance(step, Seating):
            self.emit(self.controller.console(step.action(), self.world.clock()))
        elif isinstance(step, ButtonReport):
            self.emit(self.controller.console(ScenarioAction(step.seat, "button"),
                                              self.world.clock()))
        elif isinstance(step, Resolve):
            self.resolve(step.code)
        elif isinstance(step, Showdown):
            for seat in list(self.controller.showdown_order()):
                dealer.show(seat)
            self.emit(self.controller.showdown(self.world.clock()))
        elif isinstance(step, Fault):
            now = self.world.clock()
            if not any(chain.fault(step.kind, now) for chain in self.chains):
                raise StepError(f"fault {step.kind!r}: no sensor in this run carries it")

    def _card_for(self, step: PlaceCard) -> PhysicalCard:
        model = self.world.model
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
        model = self.world.model
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
        self.world.dealer.carry_out(alert, rules=self.scenario.table.rules)
        self.open_alerts = [a for a in self.open_alerts if a.code != code]
        self.emit(self.controller.resolve(code, self.world.clock()))

    # --- time -------------------------------------------------------------------------

    def settle(self, seconds: float | None = None) -> None:
        """Let the sensors and the monitor see the table until it has been still for
        ``seconds`` (default ``timing.settle``) simulated seconds."""
        clock, timing = self.world.clock, self.timing
        end = clock() + (timing.settle if seconds is None else seconds)
        while True:
            now = clock()
            observations: list[Observation] = []
            for chain in self.chains:
                observations.extend(chain.poll(now))
            observations.sort(key=lambda o: o.t)
            for obs in observations:
                self.emit(self.controller.observe(obs))
            self.emit(self.controller.tick(now))
            self.hand_ends()
            if now >= end:
                return
            target = min(now + timing.tick, end)
            for chain in self.chains:
                due = chain.next_due(now)
                if due is not None and now < due < target:
                    target = due
            clock.advance_to(target)

    def hand_ends(self) -> None:
        for record in self.controller.take_hand_ends():
            self.record.hands += 1
            self.open_alerts.clear()
            self.listeners.on_hand_end(record)
            # scenario.md: when a hand ends the dealer gathers every card back into the shuffler
            self.world.dealer.collect()

    def emit(self, alerts: Sequence[Alert]) -> None:
        for alert in alerts:
            raised = RaisedAlert(alert, self.step_number)
            self.record.alerts.append(raised)
            self.open_alerts.append(alert)
            self.listeners.on_alert(raised)


def build_runner(scenario: Scenario, *, listeners: Listeners | None = None) -> ScenarioRunner:
    """Wire ``scenario`` to the real controller and the simulated sensors it names."""
    from hw_sim.devices import wiring  # the real parts are imported only when a run is built

    clock = SimClock()
    model = TableModel(missing=scenario.deck_missing, extra=scenario.deck_extra)
    dealer = Dealer(model, rng=random.Random(f"dealer:{scenario.deck_seed}"))
    world = SimWorld(clock=clock, model=model, dealer=dealer,
                     deck_rng=random.Random(scenario.deck_seed),
                     first_order=tuple(scenario.deck_order))
    controller = wiring.build_controller(scenario)
    chains: list[SensorChain] = []
    if "rfid" in scenario.table.sensors:
        chains.append(wiring.build_pty_rfid(model, clock, seed=scenario.deck_seed,
                                            stub_antenna=wiring.stub_antenna(scenario)))
    if "camera" in scenario.table.sensors:
        from hw_sim.devices.camera_chain import (
            build_camera,  # OpenCV: only when a camera is simulated
        )

        # the simulated camera's layout covers the shuffler tray: it sees the stub's top card
        chains.append(build_camera(model, seed=scenario.deck_seed, stub_view=True))
    button = wiring.build_button(clock, random.Random(f"button:{scenario.deck_seed}"))
    chains.append(button)
    # Still long enough after each movement for a removal to outlast the reader's hold time
    # and for the monitor's settle time to pass after it, with a tick to spare.
    settle = wiring.HOLD_TIME + controller.settle_time() + 0.2
    timing = Timing(tick=wiring.SCAN_PERIOD, settle=settle, action_settle=0.3)
    return ScenarioRunner(scenario=scenario, world=world, controller=controller, chains=chains,
                          button=button, timing=timing,
                          listeners=listeners or Listeners())
