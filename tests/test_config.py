"""The table's configuration file: the documented example loads; every kind of mistake gives one
message naming the file, the key and the problem (exit 2 from the run command, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.config import TableConfigError, load_config
from table_controller.engine import AnteFormat, AnteOrder, Structure

EXAMPLE = Path(__file__).resolve().parent.parent / "table_controller" / "data" / \
    "table.example.toml"

MINIMAL = """
[table]
seats = 6
sensors = ["rfid"]
[players]
1 = 100
2 = 100
[rfid]
port = "loop://"
[decks]
db = "decks.sqlite"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def test_the_documented_example_loads() -> None:
    config = load_config(EXAMPLE)
    assert config.table.name == "T4" and config.table.seats == 9
    assert config.table.engine.structure is Structure.NO_LIMIT
    assert config.table.monitor.sensors == frozenset({"rfid", "camera"})
    assert config.players == {s: 200 for s in range(1, 7)}
    assert config.rfid is not None and config.rfid.reader.antenna_zones[10] == "board"
    assert config.gpio is not None and config.gpio.button == 17
    assert config.camera is not None and config.camera.deck == "casino-red"
    assert config.journal == EXAMPLE.parent / "journal.sqlite"  # relative to the file
    assert config.bus.floor is not None and config.bus.floor.startswith("ipc://")
    assert config.bus.public == "tcp://127.0.0.1:5556" and config.bus.keys is None
    assert config.bus.alerts is not None and config.bus.alerts.startswith("ipc://")


def test_minimal_file_takes_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MINIMAL))
    assert config.table.engine.big_blind == 2 and config.table.monitor.rules == "tda"
    assert config.decks_db == tmp_path / "decks.sqlite"
    assert config.journal == tmp_path / "journal.sqlite"
    assert config.gpio is None and config.camera is None


def test_sim_section(tmp_path: Path) -> None:
    text = MINIMAL + '[sim]\nseed = 9\ndeck_order = ["As", "Kd"]\nmove_interval = 0.5\n'
    sim = load_config(write(tmp_path, text)).sim
    assert sim.seed == 9 and [str(c) for c in sim.deck_order] == ["As", "Kd"]
    assert sim.move_interval == 0.5


def test_players_from_the_console(tmp_path: Path) -> None:
    text = 'players = "console"\n' + MINIMAL.replace("[players]\n1 = 100\n2 = 100\n", "")
    assert load_config(write(tmp_path, text)).players is None


def test_fixed_limit_with_bet_sizes(tmp_path: Path) -> None:
    text = MINIMAL.replace("seats = 6", 'seats = 6\ngame = "flhe"\nsmall_bet = 2\nbig_bet = 4')
    config = load_config(write(tmp_path, text))
    assert config.table.engine.structure is Structure.FIXED_LIMIT
    assert config.table.engine.big_bet == 4


def test_big_blind_ante(tmp_path: Path) -> None:
    """[table] ante_format / ante_order reach the engine (rules.md §2, TDA 2024 RP-11)."""
    text = MINIMAL.replace("seats = 6", 'seats = 6\nante = 2\nante_format = "big_blind"')
    engine = load_config(write(tmp_path, text)).table.engine
    assert engine.ante == 2 and engine.ante_format is AnteFormat.BIG_BLIND
    assert engine.ante_order is AnteOrder.BLIND_FIRST
    text = text.replace('"big_blind"', '"button"\nante_order = "ante_first"')
    engine = load_config(write(tmp_path, text)).table.engine
    assert engine.ante_format is AnteFormat.BUTTON and engine.ante_order is AnteOrder.ANTE_FIRST
    assert load_config(EXAMPLE).table.engine.ante_format is AnteFormat.EACH


@pytest.mark.parametrize(("change", "names"), [
    (("[table]", "[table\n"), ["not valid TOML"]),
    (("seats = 6", 'seats = 6\nante_format = "dealer"'), ["table.ante_format", "'dealer'",
                                                        "big_blind"]),
    (("seats = 6", 'seats = 6\nante_order = 1'), ["table.ante_order", "not a text"]),
    (("seats = 6", "seats = 6\ncolour = \"green\""), ["table.colour", "unknown key"]),
    (("seats = 6", 'seats = "six"'), ["table.seats", "'six'", "not a whole number"]),
    (("seats = 6", "seats = 12"), ["table.seats", "out of range"]),
    (("seats = 6", 'seats = 6\ngame = "stud"'), ["table.game", "'stud'", "nlhe"]),
    (("seats = 6", 'seats = 6\nrules = "casino"'), ["table.rules", "'casino'"]),
    (('sensors = ["rfid"]', 'sensors = ["rfid", "radar"]'), ["table.sensors", "'radar'"]),
    (('sensors = ["rfid"]', 'sensors = ["camera"]'), ["table.sensors", "[camera]"]),
    (("seats = 6", "seats = 6\nbutton = 7"), ["table.button", "out of range"]),
    (("seats = 6", "seats = 6\nsmall_blind = 5\nbig_blind = 2"),
     ["table: ", "not playable", "small_blind"]),
    (("1 = 100", "0 = 100"), ["players.0", "not a seat number"]),
    (("1 = 100", "1 = -5"), ["players.1", "out of range"]),
    (("2 = 100", "7 = 100"), ["players.7", "not a seat number 1..6"]),
    (('port = "loop://"', 'port = "loop://"\nbaud = 9600'), ["rfid", "unknown key", "baud"]),
    (('port = "loop://"', 'port = "loop://"\n[rfid.antennas]\n3 = "seat11"'),
     ["rfid.antennas.3", "seat11"]),
    (('port = "loop://"', 'port = "loop://"\nhold_time = "long"'), ["rfid"]),
    (('port = "loop://"', "port = 5"), ["rfid.port"]),
    (('[decks]\ndb = "decks.sqlite"', ""), ["decks.db", "required"]),
    (("[rfid]", '[gpio]\nbutton = 99\n[rfid]'), ["gpio.button", "99"]),
    (("[rfid]", '[gpio]\nbackend = "arduino"\n[rfid]'), ["gpio.backend", "arduino"]),
    (("[rfid]", "[bus]\npublic = \"localhost:5556\"\n[rfid]"), ["bus.public", "zmq endpoint"]),
    (("[rfid]", "[journal]\nfile = \"j.sqlite\"\n[rfid]"), ["journal.file", "unknown key"]),
    (("[rfid]", "[dashboard]\nport = 1\n[rfid]"), ["dashboard", "unknown section"]),
    (("[rfid]", '[sim]\ndeck_order = ["As", "Ax"]\n[rfid]'),
     ["sim.deck_order[1]", "'Ax'", "not a card"]),
    (("[rfid]", '[sim]\ndeck_order = ["As", "As"]\n[rfid]'), ["sim.deck_order[1]", "already"]),
    (("[rfid]", "[sim]\ndeck_order = [1]\n[rfid]"), ["sim.deck_order[0]", "not a card"]),
    (("[rfid]", "[sim]\nspeed = 2\n[rfid]"), ["sim.speed", "unknown key"]),
])
def test_mistakes_name_file_key_and_problem(tmp_path: Path, change: tuple[str, str],
                                            names: list[str]) -> None:
    old, new = change
    assert old in MINIMAL
    path = write(tmp_path, MINIMAL.replace(old, new, 1))
    with pytest.raises(TableConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(str(path)), message
    for name in names:
        assert name in message, message


@pytest.mark.parametrize(("section", "names"), [
    ('[camera]\nsource = "0"\nlens = "wide"', ["camera.lens", "unknown key"]),
    ('[camera]\nsource = "0"\n[camera.zones]\npool = [[0, 0], [10, 0], [10, 10]]',
     ["camera", "pool"]),
    ('[camera]\nsource = "0"\nwidth = "wide"', ["camera", "bad number"]),
])
def test_camera_mistakes(tmp_path: Path, section: str, names: list[str]) -> None:
    path = write(tmp_path, MINIMAL + section + "\n")
    with pytest.raises(TableConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    for name in names:
        assert name in message, message


def test_missing_file_and_non_utf8(tmp_path: Path) -> None:
    with pytest.raises(TableConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"[table]\nname = \"caf\xe9\"\n")
    with pytest.raises(TableConfigError, match="not UTF-8"):
        load_config(bad)


def test_run_command_reports_a_broken_file_with_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, MINIMAL.replace("seats = 6", "seats = 6\nseets = 6"))
    assert main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "table.seets" in err and str(path) in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("bus", "alerts"), [
    ("", "tcp://127.0.0.1:5559"),
    ('console = "tcp://127.0.0.1:6100"', "tcp://127.0.0.1:6101"),
    ('console = "ipc:///run/t1/console.sock"', "ipc:///run/t1/alerts.sock"),
    ('console = "ipc:///tmp/t2-console"', "ipc:///tmp/t2-alerts"),
    ('console = "ipc:///tmp/t3/c"', "ipc:///tmp/t3/c-alerts"),
    ('console = "ipc:///tmp/t4/console"\nalerts = "tcp://127.0.0.1:7000"',
     "tcp://127.0.0.1:7000"),
    ('console = "ipc:///tmp/t5/console"\nalerts = "none"', None)])
def test_the_alert_channel_defaults_to_beside_the_console(tmp_path: Path, bus: str,
                                                          alerts: str | None) -> None:
    config = load_config(write(tmp_path, MINIMAL + f"[bus]\n{bus}\n"))
    assert config.bus.alerts == alerts


def test_a_default_alert_channel_taken_by_another_names_the_key(tmp_path: Path) -> None:
    text = MINIMAL + '[bus]\nconsole = "tcp://127.0.0.1:6100"\npublic = "tcp://127.0.0.1:6101"\n'
    with pytest.raises(TableConfigError, match=r"bus\.alerts"):
        load_config(write(tmp_path, text))
