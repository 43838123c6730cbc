"""The floor's configuration and its command: a good file reads as written; each problem is
one message naming the file and the key (exit 2); ``floor adduser`` takes the password from
standard input; a port in use is exit 1 with the address."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.config import TableConfigError
from table_controller.floor.config import load_floor_config
from table_controller.floor.store import FloorStore

TABLE = """
[[table]]
id = "t1"
name = "Table 1"
floor = "ipc:///run/t1/floor"
alerts = "ipc:///run/t1/alerts"
console = "tcp://127.0.0.1:5558"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "floor.toml"
    path.write_text(text)
    return path


def test_a_good_configuration(tmp_path: Path) -> None:
    config = load_floor_config(write(tmp_path, '[floor]\nstore = "data/f.sqlite3"\n' + TABLE
                                     + TABLE.replace('"t1"', '"t2"')))
    assert (config.host, config.port) == ("127.0.0.1", 8080)
    assert config.store == str(tmp_path / "data" / "f.sqlite3") and config.name == "floor"
    assert [t.id for t in config.tables] == ["t1", "t2"] and not config.tls
    t1 = config.tables[0]
    assert (t1.name, t1.floor, t1.console, t1.keys) == (
        "Table 1", "ipc:///run/t1/floor", "tcp://127.0.0.1:5558", None)
    pg = load_floor_config(write(tmp_path, '[floor]\nstore = "postgresql://floor@db/floor"\n'
                                 + TABLE))
    assert pg.store == "postgresql://floor@db/floor"


def test_the_example_configuration_reads(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[1] / "table_controller/data/floor.example.toml"
    text = example.read_text()
    # its CurveZMQ table needs key files: make them where the example says they are
    keys = tmp_path / "keys"
    assert main(["keys", "new", str(tmp_path / "t3keys")]) == 0
    assert main(["keys", "client", str(tmp_path / "t3keys"), "floor1"]) == 0
    keys.mkdir()
    (tmp_path / "t3keys/clients/floor1.key_secret").rename(keys / "floor1.key_secret")
    (tmp_path / "t3keys/server.key").rename(keys / "t3-server.key")
    config = load_floor_config(write(tmp_path, text))
    assert [t.id for t in config.tables] == ["t1", "t2", "t3"]
    assert config.tables[2].keys is not None and config.tables[0].keys is None


@pytest.mark.parametrize(("text", "error"), [
    ("[floor]\n", "floor.toml: table: at least one [[table]]"),
    ("[floor]\nlisten = 8080\n" + TABLE, "floor.toml: floor.listen: 8080 is not a text"),
    ('[floor]\nlisten = "8080"\n' + TABLE, "floor.toml: floor.listen: '8080' is not HOST:PORT"),
    ('[floor]\nlisten = "0.0.0.0:8080"\n' + TABLE,
     "floor.toml: floor.listen: 0.0.0.0:8080 is not a loopback address: serve it over TLS"),
    ('[floor]\ntls_cert = "c.pem"\n' + TABLE, "floor.toml: floor.tls_key: tls_cert and tls_key"),
    ('[floor]\ntls_cert = "c.pem"\ntls_key = "k.pem"\n' + TABLE, "floor.tls_cert: "),
    ('[floor]\nport = 1\n' + TABLE, "floor.toml: floor.port: unknown key"),
    ('[floor]\nname = "floor 1"\n' + TABLE, "floor.toml: floor.name: 'floor 1'"),
    ("[floors]\n" + TABLE, "floor.toml: floors: unknown section"),
    (TABLE + TABLE, "floor.toml: table[1].id: 't1' is already a table's id"),
    (TABLE.replace('id = "t1"', 'id = "t 1"'), "floor.toml: table[0].id: 't 1'"),
    (TABLE.replace('id = "t1"\n', ""), "floor.toml: table[0].id: required"),
    (TABLE.replace("ipc:///run/t1/floor", "127.0.0.1:5557"),
     "floor.toml: table[0].floor: '127.0.0.1:5557' is not a zmq endpoint"),
    (TABLE + 'colour = "red"\n', "floor.toml: table[0].colour: unknown key"),
    (TABLE.replace("tcp://127.0.0.1:5558", "tcp://10.0.0.7:5558"),
     "floor.toml: table[0].server_key: tcp://10.0.0.7:5558 (console) is not on this machine"),
    (TABLE + 'server_key = "t1.key"\n', "floor.toml: floor.keys: required for table[0]"),
    ('[floor]\nkeys = "keys"\n' + TABLE + 'server_key = "t1.key"\n',
     "floor.toml: table[0].server_key: "),
    ("[floor\n", "floor.toml: not valid TOML"),
])
def test_each_problem_names_the_file_and_the_key(tmp_path: Path, text: str, error: str) -> None:
    with pytest.raises(TableConfigError) as info:
        load_floor_config(write(tmp_path, text))
    assert error in str(info.value)
    assert main(["floor", "--config", str(tmp_path / "floor.toml")]) == 2


def test_the_command_without_a_configuration(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["floor"]) == 2
    assert "give --config FILE" in capsys.readouterr().err
    assert main(["floor", "--config", str(tmp_path / "none.toml")]) == 2
    assert "none.toml: cannot read the configuration" in capsys.readouterr().err


def test_adduser_takes_the_password_from_stdin(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    config = write(tmp_path, '[floor]\nstore = "f.sqlite3"\n' + TABLE)
    monkeypatch.setattr("sys.stdin", io.StringIO("correct horse battery\n"))
    assert main(["floor", "adduser", "anna", "--role", "viewer", "--config", str(config)]) == 0
    assert "user anna: viewer" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["floor", "--config", str(config), "adduser", "bob"]) == 2
    assert "at least 10 characters" in capsys.readouterr().err
    store = FloorStore.open(tmp_path / "f.sqlite3")
    try:
        entry = store.staff("anna")
        assert entry is not None and entry[1] == "viewer"
        assert entry[0].startswith("$argon2id$") and "correct" not in entry[0]
        assert store.staff("bob") is None
    finally:
        store.close()


def test_a_port_in_use_is_exit_1_naming_it(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        config = write(tmp_path, f'[floor]\nlisten = "127.0.0.1:{port}"\nstore = "f.sqlite3"\n'
                       + TABLE)
        assert main(["floor", "--config", str(config)]) == 1
    assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err
