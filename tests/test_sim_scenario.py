"""Scenario parsing and validation (docs/scenario.md). The scenarios parsed whole are
files (tests/scenarios/fixtures/parser-*.toml); the error cases add one step, expectation or
changed line to the table of ``parser-table.toml`` and check the message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hw_sim.harness.scenario import (
    Actions,
    ButtonReport,
    Deal,
    MoveCard,
    PlaceCard,
    PressGreenButton,
    ScenarioError,
    Seating,
    load_scenario,
    parse_scenario,
)
from table_controller.vocabulary.cards import parse_card

PRESS = '[[step]]\ngreen_button = true\n'


@pytest.fixture
def head(scenario_file: Callable[[str], Path]) -> str:
    """The table, players and deck the error cases start from (4 seats, seats 1 and 2)."""
    return scenario_file("parser-table").read_text(encoding="utf-8")


def error(text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, source="x.toml")
    msg = str(info.value)
    assert msg.startswith("x.toml: ")
    return msg


def test_full_scenario_parses_with_defaults(scenario_file: Callable[[str], Path]) -> None:
    sc = load_scenario(scenario_file("parser-full"))
    assert sc.table.rules == "tda" and sc.table.sensors == ("rfid", "camera")
    assert sc.table.ante == 0 and sc.players == {1: 100, 2: 100}
    assert isinstance(sc.steps[0], PressGreenButton) and sc.steps[0].number == 1
    assert isinstance(sc.steps[1], Deal) and sc.steps[1].street == "hole"
    board = sc.steps[2]
    assert isinstance(board, PlaceCard) and board.is_next and board.face == "up"
    dup = sc.steps[3]
    assert isinstance(dup, PlaceCard) and dup.copy and dup.card == parse_card("As")
    assert dup.face == "down"
    mv = sc.steps[4]
    assert isinstance(mv, MoveCard) and mv.face is None and mv.to == "muck"
    acts = sc.steps[5]
    assert isinstance(acts, Actions)
    assert [(a.seat, a.kind, a.amount) for a in acts.actions] == [(1, "raise", 6),
                                                                 (2, "call", None)]
    assert sc.expectations[0].step == 4 and sc.result.strict
    assert sc.result.stacks == {1: 100, 2: 100}


@pytest.mark.parametrize(("steps", "needle"), [
    ('[[step]]\ndeal = "flop"\nto = "board"\n', "step 1: unknown key 'to'"),
    ('[[step]]\ndeal = "preflop"\n', "step 1 deal: 'preflop' is not one of"),
    ('[[step]]\ncard = "next"\n', "step 1: 'card' needs 'to'"),
    ('[[step]]\ncard = "Xx"\nto = "board"\n', "step 1 card: not a card: 'Xx'"),
    ('[[step]]\ncard = "next"\nto = "seat7"\n', "step 1 to: 'seat7': the table has seats 1 to 4"),
    ('[[step]]\ncard = "next"\nto = "table"\n', "step 1 to: 'table' is not a zone"),
    ('[[step]]\ncard = "next"\ncopy = true\nto = "board"\n', "copy = true needs a named card"),
    ('[[step]]\ncard = "As"\ncopy = true\nforeign = true\nto = "board"\n', "both copy"),
    ('[[step]]\ngreen_button = true\ndeal = "hole"\n', "needs exactly one of"),
    ('[[step]]\ngreen_button = false\n', "green_button must be true"),
    ('[[step]]\nactions = ["3 call"]\n', "seat 3 has no player"),
    ('[[step]]\nactions = ["1 raise"]\n', "raise needs the total amount"),
    ('[[step]]\nactions = ["1 call 4"]\n', "call takes no amount"),
    ('[[step]]\nactions = ["1 shove"]\n', "'shove' is not one of"),
    ('[[step]]\nresolve = "FOUR_CARDS"\n', "unknown alert code 'FOUR_CARDS'"),
    ('[[step]]\nfault = "power_cut"\n', "'power_cut' is not one of"),
    ('[[step]]\nflip = "As"\nface = "up"\n', "unknown key 'face'"),
    ('[[step]]\nactions = ["1 time 3"]\n', "time takes no amount"),
    ('[[step]]\nbutton = 5\n', "step 1 button: 5 is above 4"),
    ('[[step]]\nbutton = "3"\n', "step 1 button: must be an integer"),
    ('[[step]]\nbutton = 3\nto = "seat3"\n', "step 1: unknown key 'to'"),
    ('[[step]]\ncard = "As"\nto = "shuffler"\n', 'to = "shuffler" needs face = "up"'),
    ('[[step]]\ncard = "As"\nto = "shuffler"\nface = "down"\n', 'needs face = "up"'),
    ('[[step]]\nmove = "As"\nto = "shuffler"\n', "'shuffler' is not a zone"),
    ('[[step]]\nsit = 3\n', "step 1: 'sit' needs 'stack'"),
    ('[[step]]\nsit = 5\nstack = 10\n', "step 1 sit: 5 is above 4"),
    ('[[step]]\nsit = 3\nstack = 0\n', "step 1 stack: 0 is below 1"),
    ('[[step]]\nleave = 3\n', "step 1: leave = 3: seat 3 has no player"),
    ('[[step]]\nsit_out = 2\nstack = 5\n', "step 1: unknown key 'stack'"),
    ('[[step]]\nactions = ["3 fold"]\n[[step]]\nsit = 3\nstack = 50\n', "seat 3 has no player"),
])
def test_bad_step_names_file_step_and_problem(head: str, steps: str, needle: str) -> None:
    msg = error(head + PRESS + steps.replace("step 1", "step 2"))
    assert needle.replace("step 1", "step 2") in msg


@pytest.mark.parametrize(("old", "new", "needle"), [
    ("seats = 4", "seats = 11", "[table] seats: 11 is above 10"),
    ('"nlhe"', '"omaha"', "[table] game: 'omaha' is not one of"),
    ("[1, 2]", "[2, 1]", "small blind 2 is above big blind 1"),
    ("button = 1", "button = 3", "[table] button: seat 3 has no player"),
    ("seed = 3", 'seed = "x"', "[deck] seed: must be an integer"),
    ("seed = 3", 'seed = 3\norder = ["As", "As"]', "As is listed twice"),
    ("2 = 100", "5 = 100", "seat 5 is beyond the table's 4 seats"),
    ("2 = 100\n", "", "a hand needs at least 2"),
    ("[deck]\nseed = 3\n", "", "missing a [deck] section"),
    ("seed = 3", "seed = 3\ncolour = 1", "unknown key 'colour'"),
    ("button = 1", 'button = 1\nante_format = "dealer"',
     "[table] ante_format: 'dealer' is not one of 'each', 'big_blind', 'button'"),
    ("seed = 3", 'seed = 3\nmissing = ["7c", "7c"]', "[deck] missing: 7c is listed"),
    ("seed = 3", 'seed = 3\nmissing = "7c"', "[deck] missing: must be a list"),
    ("seed = 3", 'seed = 3\nextra = ["Zz"]', "[deck] extra item 1: not a card"),
    ("seed = 3", 'seed = 3\nmissing = ["7c"]\nextra = ["7c"]',
     "7c is both missing and extra"),
    ("seed = 3", 'seed = 3\nmissing = ["7c"]\norder = ["7c"]',
     "[deck] order: 7c is missing from the deck"),
    ("seed = 3", "seed = 3\nextra = " + str([f"{r}c" for r in "23456789T"]).replace("'", '"'),
     "[deck] extra: 9 cards: at most 8"),
])
def test_bad_table_names_the_section(head: str, old: str, new: str, needle: str) -> None:
    assert old in head
    assert needle in error(head.replace(old, new) + PRESS)


def test_extensions_parse_console_records_stub_and_short_deck(
        scenario_file: Callable[[str], Path]) -> None:
    """docs/simulator.md: keys beyond the core format."""
    sc = load_scenario(scenario_file("parser-extensions"))
    assert sc.deck_missing == (parse_card("7c"),) and sc.deck_extra == (parse_card("As"),)
    assert sc.steps[1] == ButtonReport(2, 2)
    step3 = sc.steps[2]
    assert isinstance(step3, Actions) and [str(a) for a in step3.actions] == ["1 call", "2 time"]
    assert sc.steps[3] == PlaceCard(4, None, False, "shuffler", "up")
    assert sc.steps[4] == PlaceCard(5, parse_card("Kd"), False, "shuffler", "up")


@pytest.mark.parametrize(("tail", "needle"), [
    ('[[expect]]\nalert = "NOPE"\n', "expect 1: unknown alert code 'NOPE'"),
    ('[[expect]]\nalert = "JOKER"\nstep = 9\n', "expect 1 step: 9 is above 1"),
    ('[[expect]]\nno_alert = "JOKER"\nhand = 1\n', "expect 1: unknown key 'hand'"),
    ('[result]\nstacks = {3 = 10}\n', "[result] stacks: seat '3' has no player"),
    ('[[step]]\nleave = 2\n[result]\nstacks = {4 = 10}\n', "[result] stacks: seat '4' has no"),
    ('[result]\nstrict = "yes"\n', "[result] strict: must be true or false"),
])
def test_bad_expectations(head: str, tail: str, needle: str) -> None:
    assert needle in error(head + PRESS + tail)


def test_seating_steps_and_ante_format(head: str,
                                      scenario_file: Callable[[str], Path]) -> None:
    """docs/simulator.md: a newcomer sits (actions and [result] may name him after that), a
    player sits out and back, one leaves; [table] ante_format (rules.md §2)."""
    sc = load_scenario(scenario_file("parser-seating"))
    assert sc.table.ante_format == "button" and sc.table.ante == 2
    assert sc.steps[0] == Seating(1, "sit", 3, 80)
    assert sc.steps[1] == Seating(2, "sit_out", 1)
    assert [str(s.action()) for s in sc.steps if isinstance(s, Seating)] == [
        "3 sit 80", "1 sit_out", "1 sit_in", "2 leave"]
    assert sc.result.stacks == {1: 100, 3: 80}
    assert parse_scenario(head + "[[step]]\ngreen_button = true\n",
                          source="x.toml").table.ante_format == "each"


def test_fault_needs_its_sensor(head: str) -> None:
    rfid_only = head.replace('button = 1', 'button = 1\nsensors = ["rfid"]')
    msg = error(rfid_only + '[[step]]\nfault = "camera_freeze"\n')
    assert "step 1: fault 'camera_freeze' needs the camera sensor" in msg
    camera_only = head.replace('button = 1', 'button = 1\nsensors = ["camera"]')
    assert "needs the rfid sensor" in error(camera_only + '[[step]]\nfault = "serial_unplug"\n')


def test_no_steps_and_bad_toml(head: str) -> None:
    assert "[[step]] entries" in error(head)
    assert "not valid TOML" in error(head + "[[step]\n")


def test_load_scenario_names_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "nope.toml")


PROJECT = Path(__file__).resolve().parents[1] / "table_controller/data/scenarios"
OWN = Path(__file__).resolve().parent / "scenarios"


def scenario_files() -> list[Path]:
    """Every runnable scenario file: built-in, the project's own and the monitor's."""
    return (sorted(PROJECT.glob("*.toml")) + sorted(OWN.glob("*.toml"))
            + sorted((OWN / "monitor").glob("*.toml")))


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: p.name)
def test_every_scenario_file_is_valid(path: Path) -> None:
    assert load_scenario(path).steps
