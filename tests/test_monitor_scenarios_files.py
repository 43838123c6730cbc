"""The dealing monitor's own scenario files (tests/scenarios/monitor/, issue 5) through the real
``table-controller sim --check`` command, and the catalogue coverage they give together.

Every file runs in-process through :func:`table_controller.cli.main` (the simulated RFID link on a
pty, the rendered camera frames, the green button on simulated GPIO, the monitor and the engine)
and must exit 0. The coverage tests read the files' ``[[expect]] alert`` names and ``[table]``
settings: every catalogue code must be expected in every sensor mode that can see it
(``REQUIRED_MODES``), in both rule profiles (``tda``, ``house``).

Every catalogue code can be raised from a scenario file: the console records (``button = SEAT``
steps, ``"SEAT time"`` actions) and the shuffler's stub (the tray antenna, the camera's view of
the tray, ``to = "shuffler"``, ``[deck] missing`` / ``extra``) are documented extensions of the
format (docs/simulator.md). ``NOT_IN_SCENARIOS`` lists any code a file cannot raise, with the
reason: the two of a restart of the controller. The API tests at the end cover the same four
codes through the monitor directly.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.monitor import ConsoleAction
from table_controller.vocabulary.alerts import CATALOGUE
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face, Source
from table_controller.vocabulary.zones import SHUFFLER
from tests.monitor_kit import MODE_IDS, MODES, codes, monitor

FOLDER = Path(__file__).parent / "scenarios" / "monitor"
FILES = sorted(FOLDER.glob("*.toml"))

RFID, CAMERA, BOTH = "rfid", "camera", "both"
ALL_MODES = frozenset({RFID, CAMERA, BOTH})
WITH_READER = frozenset({RFID, BOTH})
WITH_CAMERA = frozenset({CAMERA, BOTH})

# Files that fail because of a simulator gap, not the monitor: run, and expected to fail (strict,
# so a fixed simulator turns them into a failure that asks for the mark to be removed).
SIM_GAPS: dict[str, str] = {}

# Codes the scenario format cannot raise (scenario.md steps plus the extensions in
# docs/simulator.md), each with the reason, each then needing an API test. None at present.
NOT_IN_SCENARIOS: dict[str, str] = {
    # raised by the controller at a restart during a hand (docs/running.md "Restart after a
    # crash"): a scenario runs in one process, which is never killed and started again;
    # tests/test_run_resume.py raises both through a killed ``run --sim``
    "HAND_NOT_RESUMED": "a restart of the controller, not a scenario's step",
    "CARDS_MOVED_WHILE_DOWN": "a restart of the controller, not a scenario's step",
}

# Sensor modes in which a code must be expected by some file (rules.md; docs/monitor.md "What the
# sensors cannot see"). Narrower than ALL_MODES only where a sensor cannot see the error:
# faces need the camera; tags (foreign deck, link faults) need the reader; a conflict needs both.
# Simulator limits: a third card on a seat lies on the seat's second card (the camera sees two),
# so EXTRA_CARD_BURN and the late third card of MISDEAL_AFTER_ACTION need the reader.
# Console and button errors do not depend on the sensors: all three modes.
# The stub: the reader's tray antenna counts it (DECK_INCOMPLETE); only the camera sees a face
# on it (FACE_UP_IN_DECK), and the camera sees only its top card.
REQUIRED_MODES: dict[str, frozenset[str]] = {
    "MISDEAL_EXPOSED_FIRST_CARDS": WITH_CAMERA,
    "MISDEAL_MULTIPLE_EXPOSED": WITH_CAMERA,
    "MISDEAL_WRONG_FIRST_SEAT": ALL_MODES,
    "MISDEAL_EMPTY_SEAT": ALL_MODES,
    "MISDEAL_OUT_OF_ORDER": ALL_MODES,
    "MISDEAL_WRONG_CARD_COUNT": ALL_MODES,
    "MISDEAL_BUTTON_POSITION": ALL_MODES,
    "MISDEAL_AFTER_ACTION": WITH_READER,
    "EXPOSED_CARD_REPLACE": WITH_CAMERA,
    "EXTRA_CARD_BURN": WITH_READER,
    "FOUR_CARD_FLOP": ALL_MODES,
    "EXTRA_BOARD_CARD": ALL_MODES,
    "PREMATURE_BOARD_CARD": ALL_MODES,
    "MISSING_BURN": ALL_MODES,
    "DUPLICATE_CARD": ALL_MODES,
    "FOREIGN_CARD": WITH_READER,
    "JOKER": ALL_MODES,  # the camera sees a face-up joker
    "FACE_UP_IN_DECK": WITH_CAMERA,
    "CARD_EXPOSED_BY_PLAYER": WITH_CAMERA,
    "DECK_INCOMPLETE": WITH_READER,
    "ACTION_OUT_OF_TURN": ALL_MODES,
    "GREEN_BUTTON_DURING_HAND": ALL_MODES,
    "CARD_WITHOUT_HAND": ALL_MODES,
    "TIME_EXPIRED": ALL_MODES,
    "SENSOR_OFFLINE": WITH_READER,
    "SENSOR_RECOVERED": WITH_READER,
    "SENSOR_CONFLICT": frozenset({BOTH}),
}
# Every code in both rule profiles (rules.md: "tda" and "house"), in each mode that can see it.
# The profiles differ in the four-card flop (§5) and the odd chip (§4); the house files
# (house-*.toml, several hands each) show that everything else reads the same under "house".
BY_PROFILE = REQUIRED_MODES


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def _mode(data: dict[str, Any]) -> str:
    sensors = set(data["table"].get("sensors", ["rfid", "camera"]))
    return BOTH if sensors == {"rfid", "camera"} else sensors.pop()


def _expected(data: dict[str, Any]) -> set[str]:
    return {e["alert"] for e in data.get("expect", []) if "alert" in e}


def _run(path: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["sim", str(path), "--check"])
    return rc, err.getvalue() + out.getvalue()


def _params() -> list[Any]:
    params = []
    for path in FILES:
        marks = []
        if path.name in SIM_GAPS:
            marks.append(pytest.mark.xfail(reason=f"simulator gap: {SIM_GAPS[path.name]}",
                                           strict=True))
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


# --- every file through the real command --------------------------------------------------


@pytest.mark.parametrize("path", _params())
def test_scenario_passes_sim_check(path: Path) -> None:
    rc, output = _run(path)
    assert rc == 0, f"{path.name}: table-controller sim --check exited {rc}\n{output}"


def test_at_least_thirty_files_each_named_and_citing_its_rule() -> None:
    assert len(FILES) >= 30
    for path in FILES:
        data = _load(path)
        assert data.get("name"), f"{path.name} has no name"
        comments = [ln for ln in path.read_text(encoding="utf-8").splitlines()
                    if ln.lstrip().startswith("#")]
        assert any("rules.md" in ln or "TDA" in ln or "[00" in ln for ln in comments), \
            f"{path.name}: no comment citing the rule (rules.md section, seed or TDA number)"
        assert "rules" in data["table"] and "sensors" in data["table"], path.name


def test_check_is_not_vacuous(tmp_path: Path) -> None:
    """A file whose expected stacks are wrong, or whose expected alert never comes, fails."""
    source = FOLDER / "misdeal-wrong-first-seat-rfid.toml"
    wrong = tmp_path / "wrong-stacks.toml"
    wrong.write_text(source.read_text(encoding="utf-8").replace(
        "stacks = {1 = 100, 2 = 99, 3 = 101}", "stacks = {1 = 100, 2 = 101, 3 = 99}"),
        encoding="utf-8")
    rc, output = _run(wrong)
    assert rc == 1 and "seat 2: expected stack 101, got 99" in output
    silent = tmp_path / "no-alert.toml"
    shutil.copy(FOLDER / "clean-hand-rfid-link-faults.toml", silent)
    with silent.open("a", encoding="utf-8") as f:
        f.write('\n[[expect]]\nalert = "FOUR_CARD_FLOP"\n')
    rc, output = _run(silent)
    assert rc == 1 and "expected alert FOUR_CARD_FLOP; it was never raised" in output


# --- what the files cover together ----------------------------------------------------------


def _coverage(*, skip_gaps: bool = True) -> dict[str, dict[str, set[str]]]:
    """code -> mode -> rule profiles in which some file expects it."""
    cover: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in FILES:
        if skip_gaps and path.name in SIM_GAPS:
            continue
        data = _load(path)
        for code in _expected(data):
            cover[code][_mode(data)].add(data["table"].get("rules", "tda"))
    return cover


def test_expected_names_are_catalogue_codes() -> None:
    for path in FILES:
        unknown = _expected(_load(path)) - set(CATALOGUE)
        assert not unknown, f"{path.name}: not catalogue codes: {sorted(unknown)}"


def test_files_together_expect_every_catalogue_code() -> None:
    assert set(REQUIRED_MODES) | set(NOT_IN_SCENARIOS) == set(CATALOGUE)
    assert not set(REQUIRED_MODES) & set(NOT_IN_SCENARIOS)
    cover = _coverage()
    missing = sorted(set(CATALOGUE) - set(NOT_IN_SCENARIOS) - set(cover))
    assert not missing, f"no scenario file expects {missing}"
    # the exceptions really are exceptions: no file claims them
    assert not set(NOT_IN_SCENARIOS) & set(_coverage(skip_gaps=False))


@pytest.mark.parametrize("code", sorted(REQUIRED_MODES))
def test_code_is_expected_in_each_mode_that_can_see_it(code: str) -> None:
    seen = set(_coverage()[code])
    assert REQUIRED_MODES[code] <= seen, \
        f"{code}: no file in mode(s) {sorted(REQUIRED_MODES[code] - seen)}"


@pytest.mark.parametrize("code", sorted(BY_PROFILE))
def test_code_is_expected_in_both_rule_profiles(code: str) -> None:
    cover = _coverage()[code]
    for mode in BY_PROFILE[code]:
        assert cover[mode] >= {"tda", "house"}, f"{code} in {mode}: profiles {cover[mode]}"


def test_correct_deals_raise_nothing_in_every_mode() -> None:
    """Files with no game alert expected, strict, one per sensor mode, with faults or flicker."""
    clean: set[str] = set()
    for path in FILES:
        data = _load(path)
        game = {c for c in _expected(data)
                if CATALOGUE[c].severity.value not in ("fault", "info")}
        faults = [s for s in data["step"] if "fault" in s]
        if not game and faults and data.get("result", {}).get("strict", True):
            clean.add(_mode(data))
    assert clean == ALL_MODES


# --- the console and stub codes through the monitor's API as well ------------------------

THREE = {1: 100, 2: 100, 3: 100}


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_button_position_misdeal_keeps_the_button(sensors: tuple[str, ...]) -> None:
    """[000] [003]: the console reports the button on seat 3, the rotation puts it on seat 1:
    misdeal, every chip back; the redeal has the button on seat 1 (seat 3 the big blind)."""
    felt = monitor(THREE, sensors=sensors, seats=4, seed=301)
    felt.button()
    felt.deal_hole()
    out = list(felt.mon.console(ConsoleAction(3, "button", None, felt.t)).alerts)
    assert codes(out) == ["MISDEAL_BUTTON_POSITION"]
    felt.collect()
    assert codes(felt.resolve("MISDEAL_BUTTON_POSITION")) == []
    assert felt.mon.table.stacks == THREE and felt.mon.events[-1].voided
    felt.new_deck(seed=302)
    assert codes(felt.button()) == []
    hand = felt.mon.hand
    assert hand is not None and hand.button == 1
    assert codes(felt.deal_hole() + felt.act("1 fold", "2 fold")) == []
    assert felt.mon.table.stacks == {1: 100, 2: 99, 3: 101}


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_time_expired_kills_the_hand_in_every_mode(sensors: tuple[str, ...]) -> None:
    """[002 #24]: the clock called on seat 1 runs out: his hand is dead, play goes on."""
    felt = monitor(THREE, sensors=sensors, seats=4, seed=303)
    felt.button()
    felt.deal_hole()
    felt.act("1 call")
    out = list(felt.mon.console(ConsoleAction(2, "time_expired", None, felt.t)).alerts)
    assert [a.code for a in out] == ["TIME_EXPIRED"] and out[0].seat == 2
    assert codes(felt.act("3 check")) == []
    assert codes(felt.deal_street(3) + felt.act("3 bet 2", "1 fold")) == []
    assert felt.mon.table.stacks == {1: 98, 2: 99, 3: 103}


@pytest.mark.parametrize("sensors", [("rfid",), ("rfid", "camera")], ids=["rfid", "both"])
def test_deck_check_finds_an_extra_card(sensors: tuple[str, ...]) -> None:
    """[003]: the reader sees the stub (stub_visible); a duplicate tag in it is reported at the
    green button, and the hand goes on (a warning). The camera sees only the stub's top card."""
    felt = monitor(THREE, sensors=sensors, seats=4, stub_visible=True)
    for p in felt.stub:
        felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=SHUFFLER, t=felt.t,
                                         source=Source.RFID, key=p.uid, card=p.card))
    extra = felt._piece(felt.stub[5].card)
    felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=SHUFFLER, t=felt.t,
                                     source=Source.RFID, key=extra.uid, card=extra.card))
    out = felt.button()
    assert codes(out) == ["DECK_INCOMPLETE"] and extra.card in out[0].cards
    assert felt.mon.hand is not None and felt.mon.halted is None


@pytest.mark.parametrize("sensors", [("camera",), ("rfid", "camera")], ids=["camera", "both"])
def test_face_up_card_in_the_stub_is_replaced(sensors: tuple[str, ...]) -> None:
    """[003]: the camera sees a face-up card in the shuffler during the hand; once it is gone
    the remedy is accepted and the hand plays on."""
    felt = monitor(THREE, sensors=sensors, seats=4, seed=304)
    felt.button()
    felt.deal_hole()
    seen = CardObservation(event=CardEvent.PLACED, zone=SHUFFLER, t=felt.t, source=Source.CAMERA,
                           key="stubtop", card=felt.stub[0].card, face=Face.UP)
    out = list(felt.mon.observe(seen).alerts) + felt.settle()
    assert codes(out) == ["FACE_UP_IN_DECK"]
    felt.mon.observe(CardObservation(event=CardEvent.REMOVED, zone=SHUFFLER, t=felt.t,
                                     source=Source.CAMERA, key="stubtop"))
    felt.settle()
    assert codes(felt.resolve("FACE_UP_IN_DECK")) == []
    assert codes(felt.act("1 fold", "2 fold")) == []
    assert felt.mon.table.stacks == {1: 100, 2: 99, 3: 101}
