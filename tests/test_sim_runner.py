"""The runner's orchestration through the real RFID reader and the real button debouncer,
against a stand-in controller (the dealing monitor is tested on its own; the shared scenarios
run through the real one in test_sim_scenarios.py)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from hw_sim.devices.clock import SimClock
from hw_sim.devices.dealer import Dealer
from hw_sim.devices.table_model import TableModel
from hw_sim.devices.wiring import build_button, build_pty_rfid, build_rfid
from hw_sim.harness.expectations import differences
from hw_sim.harness.runner import ScenarioRunner, SimWorld, Timing
from hw_sim.harness.scenario import ScenarioAction, parse_scenario
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardEvent,
    CardObservation,
    Observation,
    SensorStatus,
)

SCENARIO = """
[table]
seats = 3
game = "nlhe"
blinds = [1, 2]
button = 1
[players]
1 = 100
2 = 100
3 = 100
[deck]
seed = 9
order = ["As", "Kd", "Qh", "Jc", "Td", "9s", "2c", "3c", "4c", "5c", "6c"]
[[step]]
green_button = true
[[step]]
deal = "hole"
[[step]]
fault = "tag_dropout"
[[step]]
actions = ["1 call", "2 call", "3 check"]
[[step]]
deal = "flop"
[[step]]
card = "next"
to = "board"
[[step]]
resolve = "FOUR_CARD_FLOP"
[[step]]
fault = "serial_unplug"
[[expect]]
alert = "FOUR_CARD_FLOP"
hand = 1
step = 6
[result]
hands = 1
"""


class StandIn:
    """Counts what the sensors deliver; raises FOUR_CARD_FLOP on a fourth board card (naming
    the third as the burn card) and ends the hand when it is resolved."""

    def __init__(self) -> None:
        self.hand = 0
        self.board: list[CardObservation] = []
        self.observed: list[Observation] = []
        self.actions: list[str] = []
        self.ends: list[dict[str, Any]] = []

    def observe(self, obs: Observation) -> list[Alert]:
        self.observed.append(obs)
        if isinstance(obs, ButtonPressed):
            self.hand += 1
        if isinstance(obs, CardObservation) and obs.zone == "board":
            if obs.event is CardEvent.PLACED:
                self.board.append(obs)
            if len(self.board) == 4 and obs.event is CardEvent.PLACED:
                burn = self.board[2].card
                return [Alert("FOUR_CARD_FLOP", self.hand, obs.t,
                              cards=tuple(o.card for o in self.board if o.card),
                              remedy=f"Turn all four face down; {burn} is the burn card")]
        return []

    def console(self, action: ScenarioAction, t: float) -> list[Alert]:
        self.actions.append(str(action))
        return []

    def resolve(self, code: str, t: float) -> list[Alert]:
        self.ends.append({"type": "hand_end", "hand": self.hand})
        return []

    def tick(self, now: float) -> list[Alert]:
        return []

    def deal_order(self) -> Sequence[int]:
        return (2, 3, 1) if self.hand else ()

    def showdown_order(self) -> Sequence[int]:
        return ()

    def showdown(self, t: float) -> list[Alert]:
        return []

    def take_hand_ends(self) -> list[dict[str, Any]]:
        out, self.ends = self.ends, []
        return out

    def stacks(self) -> dict[int, int]:
        return {1: 100, 2: 100, 3: 100}


@pytest.mark.parametrize("rfid", ["pty", "in_process"])
def test_runner_drives_real_reader_and_button_and_attributes_steps(rfid: str) -> None:
    sc = parse_scenario(SCENARIO, source="r.toml")
    clock = SimClock()
    model = TableModel()
    world = SimWorld(clock=clock, model=model, dealer=Dealer(model, rng=random.Random(1)),
                     deck_rng=random.Random(sc.deck_seed), first_order=sc.deck_order)
    controller = StandIn()
    button = build_button(clock, random.Random(2))
    chain = build_pty_rfid(model, clock) if rfid == "pty" else build_rfid(model, clock)
    runner = ScenarioRunner(scenario=sc, world=world, controller=controller,
                            chains=[chain, button], button=button,
                            timing=Timing(tick=0.1, settle=1.0))
    try:
        record = runner.run()
    finally:
        runner.close()
    assert record.errors == []
    assert sum(isinstance(o, SensorStatus) and not o.online for o in controller.observed) == 1
    assert differences(sc, record) == []
    presses = [o for o in controller.observed if isinstance(o, ButtonPressed)]
    assert len(presses) == 1  # the bounce burst is one press
    placed = [o for o in controller.observed
              if isinstance(o, CardObservation) and o.event is CardEvent.PLACED]
    # hole cards arrive one at a time, in the dealing order, identified by their tags
    assert [(o.zone, str(o.card)) for o in placed[:6]] == [
        ("seat2", "As"), ("seat3", "Kd"), ("seat1", "Qh"),
        ("seat2", "Jc"), ("seat3", "Td"), ("seat1", "9s")]
    assert controller.actions == ["1 call", "2 call", "3 check"]
    # the dealer moved the named burn card (the third flop card, 5c) to the burn pile
    moved = [o for o in controller.observed if isinstance(o, CardObservation)
             and o.zone == "burn" and o.event is CardEvent.PLACED]
    assert [str(o.card) for o in moved] == ["2c", "5c"]
    # a short tag dropout is absorbed by the reader's hold time: no hole card was removed
    assert not any(isinstance(o, CardObservation) and o.event is CardEvent.REMOVED
                   and o.zone.startswith("seat") and o.t < presses[0].t + 5 for o in
                   controller.observed[:20])
    assert record.hands == 1 and model.felt == []  # the hand ended: cards gathered
