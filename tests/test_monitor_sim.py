"""End to end: more dealer errors through the simulator (hw_sim) and the real sensor chains
(RFID over a pty, the camera and its tracker, the shuffler button) into the monitor.

The shared scenarios cover eight situations; these cover the remaining remedies the simulated
dealer carries out: the house four-card flop, a missing burn corrected, a joker, foreign cards,
an extra card, a premature turn with an action out of turn, and a second exposed card.
Skipped when the simulator is not importable.
"""

from __future__ import annotations

import pytest

hw_scenario = pytest.importorskip("hw_sim.harness.scenario")
hw_runner = pytest.importorskip("hw_sim.harness.runner")
hw_expect = pytest.importorskip("hw_sim.harness.expectations")

SCENARIOS = {
    "house_four_card_flop": """\
[table]
seats = 3
game = "nlhe"
blinds = [1, 2]
button = 1
rules = "house"
[players]
1 = 100
2 = 100
3 = 100
[deck]
seed = 41

[[step]]
green_button = true
[[step]]
deal = "hole"
[[step]]
actions = ["1 call", "2 call", "3 check"]

[[step]]
card = "next"
to = "burn"
[[step]]
card = "next"
to = "board"
[[step]]
card = "next"
to = "board"
[[step]]
card = "next"
to = "board"
[[step]]
card = "next"
to = "board"
[[step]]
resolve = "FOUR_CARD_FLOP"
[[step]]
actions = ["2 check", "3 check", "1 check"]
[[step]]
deal = "turn"
[[step]]
actions = ["2 check", "3 check", "1 check"]
[[step]]
deal = "river"
[[step]]
actions = ["2 check", "3 check", "1 check"]
[[step]]
showdown = true
[[expect]]
alert = "FOUR_CARD_FLOP"
step = 8
[result]
hands = 1
""",
    "missing_burn_corrected": """\
[table]
seats = 3
game = "nlhe"
blinds = [1, 2]
button = 1
rules = "tda"
[players]
1 = 100
2 = 100
3 = 100
[deck]
seed = 41

[[step]]
green_button = true
[[step]]
deal = "hole"
[[step]]
actions = ["1 call", "2 call", "3 check"]

[[step]]
card = "next"
to = "board"
[[step]]
card = "next"
to = "board"
[[step]]
card = "next"
to = "board"
[[step]]
resolve = "MISSING_BURN"
[[step]]
actions = ["2 check", "3 check", "1 check"]
[[step]]
deal = "turn"
[[step]]
actions = ["2 bet 2", "3 fold", "1 fold"]
[[expect]]
alert = "MISSING_BURN"
[result]
hands = 1
stacks = {1 = 98, 2 = 104, 3 = 98}
""",
    "joker_in_the_deal": """\
[table]
seats = 3
game = "nlhe"
blinds = [1, 2]
button = 1
rules = "tda"
[players]
1 = 100
2 = 100
3 = 100
[deck]
seed = 41

[[step]]
green_button = true
[[step]]
card = "next"
to = "seat2"
[[step]]
card = "joker"
to = "seat3"
[[step]]
resolve = "JOKER"
[[step]]
card = "next"
to = "seat1"
[[step]]
card = "next"
to = "seat2"
[[step]]
card = "next"
to = "seat3"
[[step]]
card = "next"
to = "seat1"
[[step]]
actions = ["1 fold", "2 fold"]
[[expect]]
alert = "JOKER"
step = 3
[result]
hands = 1
stacks = {1 = 100, 2 = 99, 3 = 101}
""",
    "foreign_cards": """\
[table]
seats = 3
game = "nlhe"
blinds = [1, 2]
button = 1
rules = "tda"
[players]
1 = 100
2 = 100
3 = 100
[deck]
seed = 41

[[step]]
green_button = true
[[step]]
deal = "hole"
[[step]]
card = "Kc"
foreign = true
to = "muck"
[[step]]
resolve = "FOREIGN_CARD"
[[step]]
actions = ["1 raise 6", "2 call", "3 call"]
[[step]]
card = "Qc"
foreign = true
to = "seat3"
[[step]]
resolve = "FOREIGN_CARD"
[[expect]]
alert = "FOREIGN_CARD"
step = 3
[[expect]]
alert = "FOREIGN_CARD"
step = 6
seat = 3
[result]
hands = 1
stacks = {1 = 100, 2 = 100, 3 = 100}
""",
    "extra_card_burned": """\
[table]
seats = 3
game = "nlhe"
blinds = [1, 2]
button = 1
rules = "tda"
[players]
1 = 100
2 = 100
3 = 100
[deck]
seed = 41

[[step]]
green_button = true
[[step]]
deal = "hole"
[[step]]
card = "next"
to = "seat2"
[[step]]
resolve = "EXTRA_CARD_BURN"
[[step]]
actions = ["1 call", "2 call", "3 check"]
[[step]]
card = "next"
to = "board"
[[step]]
card = "next"
to = "board"
[[step]]
card = "next"
to = "board"
[[step]]
actions = ["2 bet 2", "3 fold", "1 fold"]
[[expect]]
alert = "EXTRA_CARD_BURN"
seat = 2
step = 3
[result]
hands = 1
stacks = {1 = 98, 2 = 104, 3 = 98}
""",
    "premature_turn_and_out_of_turn": """\
[table]
seats = 3
game = "nlhe"
blinds = [1, 2]
button = 1
rules = "tda"
[players]
1 = 100
2 = 100
3 = 100
[deck]
seed = 41

[[step]]
green_button = true
[[step]]
deal = "hole"
[[step]]
actions = ["1 call", "2 call", "3 check"]

[[step]]
deal = "flop"
[[step]]
actions = ["2 check"]
[[step]]
deal = "turn"
[[step]]
resolve = "PREMATURE_BOARD_CARD"
[[step]]
actions = ["1 check", "3 check"]
[[step]]
card = "next"
to = "board"
[[step]]
actions = ["2 bet 2", "3 fold", "1 fold"]
[[expect]]
alert = "PREMATURE_BOARD_CARD"
step = 6
[[expect]]
alert = "ACTION_OUT_OF_TURN"
step = 8
seat = 1
[result]
hands = 1
stacks = {1 = 98, 2 = 104, 3 = 98}
""",
    "second_exposed_card_misdeal": """\
[table]
seats = 3
game = "nlhe"
blinds = [1, 2]
button = 1
rules = "tda"
[players]
1 = 100
2 = 100
3 = 100
[deck]
seed = 41

[[step]]
green_button = true
[[step]]
card = "next"
to = "seat2"
[[step]]
card = "next"
to = "seat3"
[[step]]
card = "next"
to = "seat1"
face = "up"
[[step]]
card = "next"
to = "seat2"
face = "up"
[[step]]
resolve = "MISDEAL_MULTIPLE_EXPOSED"
[[step]]
green_button = true
[[step]]
deal = "hole"
[[step]]
actions = ["1 fold", "2 fold"]
[[expect]]
alert = "EXPOSED_CARD_REPLACE"
step = 4
[[expect]]
alert = "MISDEAL_MULTIPLE_EXPOSED"
step = 5
[result]
hands = 2
stacks = {1 = 100, 2 = 99, 3 = 101}
""",
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_through_the_simulator(name: str) -> None:
    scenario = hw_scenario.parse_scenario(SCENARIOS[name], source=f"{name}.toml")
    record = hw_runner.build_runner(scenario).run()
    assert hw_expect.differences(scenario, record) == []
