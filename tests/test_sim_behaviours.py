"""The simulated table behaves like a real one (docs/scenario.md "Behaviours", docs/simulator.md):
the behaviour steps parse and are refused with a clear message when wrong; a peek off the
antenna and back raises nothing (and really leaves the antenna); continuous play (``demo``) and
``run --sim`` make their players and dealer peek, square, protect, slide, reach and muck at
seeded rates without a false game alert."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zmq

from hw_sim.harness.autoplay import AutoTable
from hw_sim.harness.behaviours import OFF, Behaviours
from hw_sim.harness.scenario import (
    Behaviour,
    MoveCard,
    PlaceCard,
    ScenarioError,
    load_scenario,
    parse_scenario,
)
from table_controller.cli import main
from table_controller.daemon.journal import Journal
from tests.test_daemon_run import start, stop
from tests.test_run_sim_alone import sim_config

PRESS = '[[step]]\ngreen_button = true\n'


# --- the scenario steps ------------------------------------------------------------------


def test_behaviour_steps_parse(scenario_file: Callable[[str], Path]) -> None:
    sc = load_scenario(scenario_file("parser-behaviours"))
    assert (sc.felt, sc.light) == ("printed", "cool")
    slid = sc.steps[1]
    assert isinstance(slid, PlaceCard) and slid.under_hand and slid.to == "seat2"
    kinds = [(s.kind, s.zone, s.by, s.seconds) for s in sc.steps if isinstance(s, Behaviour)]
    assert kinds == [("peek", "seat2", None, 1.5), ("peek", "seat1", None, 2.5),
                     ("square", "seat2", None, 0.0), ("cover", "seat1", "protector", 0.0),
                     ("uncover", "seat1", None, 0.0), ("reach", "board", "hand", 0.8),
                     ("muck", "seat2", None, 0.0)]
    moved = sc.steps[-1]
    assert isinstance(moved, MoveCard) and moved.under_hand


@pytest.fixture
def head(scenario_file: Callable[[str], Path]) -> str:
    return scenario_file("parser-table").read_text(encoding="utf-8")


@pytest.mark.parametrize(("steps", "needle"), [
    ('[[step]]\npeek = 5\n', "step 2 peek: 5 is above 4"),
    ('[[step]]\npeek = 2\nseconds = 30\n', "step 2 seconds: 30 is not 0.1 to 10.0 seconds"),
    ('[[step]]\npeek = 2\nseconds = "long"\n', "step 2 seconds: must be a number of seconds"),
    ('[[step]]\nsquare = 2\nseconds = 1\n', "step 2: unknown key 'seconds'"),
    ('[[step]]\ncover = "seat2"\n', "step 2: 'cover' needs 'by'"),
    ('[[step]]\ncover = "seat2"\nby = "towel"\n', "step 2 by: 'towel' is not one of"),
    ('[[step]]\ncover = "table"\nby = "chip"\n', "step 2 cover: 'table' is not a zone"),
    ('[[step]]\nreach = "board"\nby = "hand"\n', "step 2: unknown key 'by'"),
    ('[[step]]\nmuck = "seat2"\n', "step 2 muck: must be an integer"),
    ('[[step]]\ncard = "next"\nto = "seat2"\nunder_hand = "yes"\n',
     "step 2 under_hand: must be true or false"),
])
def test_bad_behaviour_steps_name_the_step_and_problem(head: str, steps: str,
                                                       needle: str) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(head + PRESS + steps, source="x.toml")
    assert str(info.value).startswith("x.toml: ") and needle in str(info.value)


@pytest.mark.parametrize(("section", "needle"), [
    ('[camera]\nfelt = "purple"\n', "[camera] felt: 'purple' is not one of"),
    ('[camera]\nlight = "disco"\n', "[camera] light: 'disco' is not one of"),
    ('[camera]\nlens = "wide"\n', "[camera]: unknown key 'lens'"),
])
def test_bad_camera_section(head: str, section: str, needle: str) -> None:
    with pytest.raises(ScenarioError, match=None) as info:
        parse_scenario(head + section + PRESS, source="x.toml")
    assert needle in str(info.value)


def test_camera_section_needs_the_camera(head: str) -> None:
    text = head.replace("button = 1", 'button = 1\nsensors = ["rfid"]') + '[camera]\n' + PRESS
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, source="x.toml")
    assert "[camera]: needs the camera sensor" in str(info.value)


def test_a_step_on_an_empty_seat_stops_the_run_naming_it(
        scenario_file: Callable[[str], Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    text = scenario_file("peek-off-antenna").read_text(encoding="utf-8")
    path = tmp_path / "early.toml"
    path.write_text(text.replace('deal = "hole"', "peek = 3", 1).replace(
        'sensors = ["rfid", "camera"]', 'sensors = ["rfid"]'))
    assert main(["sim", str(path)]) == 1
    assert "step 2: peek = 3: the seat has no cards" in capsys.readouterr().err


# --- a peek off the antenna and back --------------------------------------------------------


@pytest.mark.parametrize("sensors", [["rfid"], ["rfid", "camera"], ["camera"]],
                         ids=["rfid", "both", "camera"])
def test_a_peek_off_the_antenna_and_back_raises_nothing(
        sensors: list[str], scenario_file: Callable[[str], Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    text = scenario_file("peek-off-antenna").read_text(encoding="utf-8")
    path = tmp_path / "peek.toml"
    path.write_text(text.replace('sensors = ["rfid", "camera"]', f"sensors = {sensors!r}"
                                 .replace("'", '"')))
    journal = tmp_path / "peek.sqlite"
    rc = main(["sim", str(path), "--json", "--check", "--journal", str(journal)])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rc == 0
    assert [o for o in out if o["type"] == "alert"] == []  # no alert of any severity
    assert out[-1]["hands"] == 1 and out[-1]["passed"] is True
    j = Journal.open(journal, readonly=True)
    try:
        seat2 = [o.fields for o in j.observations() if o.kind == "card"
                 and o.fields.get("zone") == "seat2"]
    finally:
        j.close()
    events = [(f["source"], f["event"]) for f in seat2]
    if "rfid" in sensors:
        # the peek really took the tags off the antenna, and they came back
        rfid = [e for src, e in events if src == "rfid"]
        assert rfid[:6] == ["placed", "placed", "removed", "removed", "placed", "placed"]
    if "camera" in sensors:
        # the camera, whose view the hand blocked, kept both cards as they were
        shown = events.index(("camera", "flipped"))  # the showdown
        assert ("camera", "removed") not in events[:shown]


# --- continuous play -------------------------------------------------------------------------


def test_rates_parse_and_refuse() -> None:
    b = Behaviours().with_rates("peek=1, muck=0")
    assert b.peek == 1.0 and b.muck == 0.0 and b.square == Behaviours().square
    assert not OFF.any and Behaviours().any
    for bad, needle in (("peek", "is not NAME=RATE"), ("blink=0.5", "is not NAME=RATE"),
                        ("peek=lots", "'lots' is not a number"),
                        ("peek=2", "behaviour peek: 2.0 is not a rate from 0 to 1")):
        with pytest.raises(ValueError, match=needle):
            Behaviours().with_rates(bad)
    with pytest.raises(ValueError, match="felt 'red' is not one of"):
        Behaviours(felt="red")


def test_demo_refuses_bad_behaviours(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--hands", "1", "--behaviours", "peek=9", "--plain"]) == 2
    assert "behaviour peek: 9.0 is not a rate" in capsys.readouterr().err
    assert main(["demo", "--hands", "1", "--light", "disco", "--plain"]) == 2
    assert "light 'disco' is not one of" in capsys.readouterr().err


def test_continuous_play_behaves_and_raises_no_false_alert() -> None:
    rates = Behaviours(peek=0.8, square=0.5, protect=0.5, slide=0.3, reach=0.5, muck=1.0)
    table = AutoTable(seed=5, error_rate=0.3, fault_rate=0.1, sensors=("rfid",),
                      behaviours=rates, rfid_link="in_process")
    try:
        reports = [table.play_hand() for _ in range(25)]
    finally:
        table.close()
    made = {kind for r in reports for _, kind, _ in r.behaviours}
    assert made == {"peek", "square", "cover", "reach", "muck"}
    assert any(r.injected for r in reports)
    assert all(r.detected for r in reports if r.injected)
    assert [a.alert.code for r in reports for a in r.false_alerts] == []
    assert sum(table.stacks().values()) == 6 * 200


def test_behaviours_leave_the_game_of_a_seed_as_it_was() -> None:
    """The behaviours draw from their own generator: the cards, the players' choices and the
    dealer's errors of a seed are the same with peeks, squared and protected cards and the
    dealer's hand over the board (the stacks come out the same), which only add steps. (A
    fold pushed into the muck can change which dealer error a hand can carry.)"""
    def play(behaviours: Behaviours) -> tuple[int, dict[int, int]]:
        table = AutoTable(seed=9, error_rate=0.2, sensors=("rfid",), behaviours=behaviours,
                          rfid_link="in_process")
        try:
            for _ in range(6):
                table.play_hand()
            return table.steps, table.stacks()
        finally:
            table.close()

    steps_off, stacks_off = play(OFF)
    steps_on, stacks_on = play(Behaviours(peek=1.0, muck=0.0, square=1.0, protect=1.0,
                                          slide=0.0, reach=1.0))
    assert stacks_on == stacks_off and stacks_off != {s: 200 for s in range(1, 7)}
    assert steps_on > steps_off


# --- run --sim ----------------------------------------------------------------------------


def test_run_sim_players_behave(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(sim_config(tmp_path))
    sub: zmq.Socket[Any] = zmq.Context.instance().socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"hand_end")
    sub.connect(f"ipc://{tmp_path}/public")
    proc, _ready = start(["run", "--sim", "--config", str(cfg), "--error-rate", "0",
                          "--behaviours", "peek=1,muck=1,square=1,protect=1,reach=1"],
                         tmp_path)
    ends: list[dict[str, Any]] = []
    try:
        deadline = time.monotonic() + 240
        while len(ends) < 2:
            assert time.monotonic() < deadline, f"only {len(ends)} hand(s) ended: {ends}"
            if sub.poll(1000):
                _topic, body = sub.recv_multipart()
                ends.append(json.loads(body))
    finally:
        code, _out, err = stop(proc, signal.SIGTERM)
        sub.close(0)
    assert code == 0, err
    journal = Journal.open(tmp_path / "journal.sqlite", readonly=True)
    try:
        game = [a for a in journal.alerts() if a.get("severity") in ("stop", "fix", "warn")]
        assert game == []
        seats = [o.fields for o in journal.observations() if o.kind == "card"
                 and o.fields.get("source") == "rfid"
                 and str(o.fields.get("zone", "")).startswith("seat")]
        # players peeked: a tag left its seat's antenna and came back to the same seat
        back = {(f["key"], f["zone"]) for f in seats if f["event"] == "placed"}
        gone_then_back = [f for i, f in enumerate(seats) if f["event"] == "removed"
                          and any(g["key"] == f["key"] and g["zone"] == f["zone"]
                                  and g["event"] == "placed" for g in seats[i + 1:])]
        assert back and gone_then_back
        # every fold was pushed into the muck (muck=1)
        folds = [r for r in (json.loads(c["request"]) for c in journal.console_requests())
                 if r.get("cmd") == "action" and r.get("kind") == "fold"]
        muck = [o.fields for o in journal.observations() if o.kind == "card"
                and o.fields.get("zone") == "muck" and o.fields.get("event") == "placed"]
        # (a fold that leaves one player ends the hand first: at most one a hand)
        assert len(muck) >= 2 * (len(folds) - len(journal.hands()))
    finally:
        journal.close()
