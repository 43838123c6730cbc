"""``table-controller deck``: import, list, show, activate, alternate, remove, enroll."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest

from firmware_bridge.deck_enrolment import ENROLMENT_ORDER
from firmware_bridge.decks import DeckRegistry
from table_controller.cli import main
from table_controller.vocabulary.cards import DECK


def uid(deck: int, index: int) -> bytes:
    return bytes([0xE0, 0x04, 0x01, deck, 0xB0, 0x55, index, index * 5 & 0xFF])


def write_deck(path: Path, deck: int, *, drop: int = 0, extra: str = "") -> Path:
    lines = ["uid,card"] + [f"{uid(deck, c.index).hex()},{c}" for c in DECK[drop:]]
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def test_import_list_show_activate_alternate(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.sqlite3")
    assert main(["deck", "import", str(write_deck(tmp_path / "red.csv", 1)), "--deck", "red",
                 "--db", db]) == 0
    assert "deck 'red' enrolled" in capsys.readouterr().out
    blue = write_deck(tmp_path / "blue.csv", 2, drop=1, extra="04B2FFFF,joker\n")
    assert main(["deck", "import", str(blue), "--deck", "blue", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "1 card(s) missing: 2s" in err and "--allow-missing" in err
    assert main(["deck", "import", str(blue), "--deck", "blue", "--db", db,
                 "--allow-missing"]) == 0
    capsys.readouterr()
    assert main(["deck", "list", "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("  blue") and "51/52 cards, 1 joker, 1 missing" in out[0]
    assert out[1].startswith("* red") and "52/52 cards, complete, in play" in out[1]
    assert main(["deck", "show", "blue", "--db", db, "--tags"]) == 0
    shown = capsys.readouterr().out
    assert "missing: 2s" in shown and "04B2FFFF,joker" in shown and "uid,card" in shown
    assert main(["deck", "activate", "blue", "--db", db]) == 0
    assert DeckRegistry.open(db).active == "blue"
    assert main(["deck", "alternate", "--db", db]) == 0
    assert "deck 'red' is in play" in capsys.readouterr().out
    assert main(["deck", "activate", "green", "--db", db]) == 2
    assert "no deck named 'green'; enrolled decks: blue, red" in capsys.readouterr().err
    assert main(["deck", "remove", "blue", "--db", db]) == 0
    assert [d.name for d in DeckRegistry.open(db).decks()] == ["red"]


def test_db_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "env.sqlite3"
    monkeypatch.setenv("TABLE_CONTROLLER_DB", str(db))
    assert main(["deck", "import", str(write_deck(tmp_path / "r.csv", 1)), "--deck", "r"]) == 0
    assert db.exists()
    monkeypatch.delenv("TABLE_CONTROLLER_DB")
    monkeypatch.chdir(tmp_path)
    assert main(["deck", "list"]) == 2  # ./table-controller.sqlite3 does not exist
    assert "no deck registry at" in capsys.readouterr().err


def test_broken_inputs_exit_2_with_a_message(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad_db = tmp_path / "bad.sqlite3"
    bad_db.write_bytes(b"\x00garbage" * 500)
    assert main(["deck", "list", "--db", str(bad_db)]) == 2
    assert "is not a usable deck registry" in capsys.readouterr().err
    db = str(tmp_path / "ok.sqlite3")
    bad = tmp_path / "bad.csv"
    bad.write_text("uid,card\n0411223344,As\nnothex,Kd\n0411223345,Qx\n0411223344,Ks\n")
    assert main(["deck", "import", str(bad), "--deck", "red", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "line 3: 'nothex' is not a hex UID" in err
    assert "line 4: not a card: 'Qx'" in err
    assert "line 5: UID 0411223344 given twice (first on line 2)" in err
    assert main(["deck", "import", str(tmp_path / "absent.csv"), "--deck", "r", "--db", db]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert DeckRegistry.open(db).decks() == []


def script(path: Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_enroll_from_a_uid_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.sqlite3")
    lines = [uid(1, c.index).hex() for c in ENROLMENT_ORDER]
    lines.insert(1, lines[0])              # the ace read again while it lies there: ignored
    lines.insert(3, lines[0])              # the ace again later: refused
    lines[10] = "skip"                     # one card skipped
    lines.insert(11, "undo")
    lines.insert(12, "s")
    lines.append("0499887766")             # the joker
    path = script(tmp_path / "uids.txt", ["# enrolment of deck red", *lines])
    assert main(["deck", "enroll", "--deck", "red", "--uids-from", path, "--jokers", "1",
                 "--db", db]) == 0
    out = capsys.readouterr().out
    assert "> Place As on the enrolment antenna" in out
    ace = uid(1, ENROLMENT_ORDER[0].index).hex().upper()
    assert f"! tag {ace} is already enrolled as As in this session: take it off" in out
    assert "> Place joker 1 of 1 on the enrolment antenna" in out
    skipped = ENROLMENT_ORDER[8]
    assert f"missing: {skipped}" in out
    info = DeckRegistry.open(db).deck("red")
    assert info.cards == 51 and info.jokers == 1 and info.missing == (skipped,)


def test_enroll_quit_keeps_the_old_deck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.sqlite3")
    main(["deck", "import", str(write_deck(tmp_path / "red.csv", 1)), "--deck", "red",
          "--db", db])
    path = script(tmp_path / "uids.txt", [uid(7, 0).hex(), "quit"])
    assert main(["deck", "enroll", "--deck", "red", "--uids-from", path, "--db", db]) == 1
    assert "nothing saved; deck 'red' is as it was" in capsys.readouterr().out
    short = script(tmp_path / "short.txt", [uid(7, 0).hex()])  # input ends: nothing saved
    assert main(["deck", "enroll", "--deck", "red", "--uids-from", short, "--db", db]) == 1
    assert "input ended before the deck was finished" in capsys.readouterr().out
    assert DeckRegistry.open(db).deck("red").complete
    done = script(tmp_path / "done.txt", [uid(1, 0).hex(), "done"])  # own tags may be re-used
    assert main(["deck", "enroll", "--deck", "red", "--uids-from", done, "--db", db]) == 0
    assert DeckRegistry.open(db).deck("red").cards == 1


def test_enroll_refuses_other_decks_tags_and_bad_scripts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.sqlite3")
    main(["deck", "import", str(write_deck(tmp_path / "red.csv", 1)), "--deck", "red",
          "--db", db])
    path = script(tmp_path / "uids.txt", [uid(1, 5).hex(), "quit"])
    assert main(["deck", "enroll", "--deck", "blue", "--uids-from", path, "--db", db]) == 1
    assert "belongs to deck 'red' as 3h" in capsys.readouterr().out
    assert main(["deck", "enroll", "--deck", " blue", "--uids-from", path, "--db", db]) == 2
    assert "bad deck name ' blue'" in capsys.readouterr().err  # said before any card, not after
    bad = script(tmp_path / "bad.txt", ["0411", "hello"])
    assert main(["deck", "enroll", "--deck", "blue", "--uids-from", bad, "--db", db]) == 2
    err = capsys.readouterr().err
    assert "line 1: UID '0411' has 2 bytes" in err and "line 2: 'hello' is not a hex UID" in err


@pytest.mark.parametrize("flicker", [0.0, 0.3])
def test_enroll_over_the_serial_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str], flicker: float) -> None:
    """The real SerialLink against the virtual RFID controller on a pty; a flickering tag
    (seeded dropouts of up to 3 scan cycles) is still one arrival."""
    from hw_sim.devices.rfid_controller import FlickerModel, VirtualRfidController

    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # no keyboard
    db = str(tmp_path / "t.sqlite3")
    codes: list[int] = []
    model = FlickerModel(burst_probability=flicker, max_burst_cycles=3)
    with VirtualRfidController(flicker=model, antenna_count=4, seed=3) as ctrl:
        command = threading.Thread(target=lambda: codes.append(main(
            ["deck", "enroll", "--deck", "red", "--port", ctrl.path, "--antenna", "2",
             "--db", db])), daemon=True)
        command.start()
        # the link is up once the host sends heartbeats (after its handshake)
        assert ctrl.wait_until(lambda: ctrl.host_heartbeats >= 1, timeout=10)
        # another antenna: not the enrolment antenna
        ctrl.place(bytes.fromhex("e009090909090909"), 1)
        ctrl.scan_once()
        previous: bytes | None = None
        for card in ENROLMENT_ORDER:
            # the dealer lays each card on the antenna and takes the one before off only then:
            # both lie there for a while, and both may flicker
            ctrl.place(uid(1, card.index), 2)
            ctrl.scan(6)
            if previous is not None:
                ctrl.remove(previous)
            previous = uid(1, card.index)
        command.join(timeout=30)
        assert not command.is_alive()
    assert codes == [0]
    out = capsys.readouterr().out
    assert "RFID controller connected" in out and "deck 'red' saved: 52/52 cards" in out
    assert "already enrolled" not in out  # a flicker is not a second placement
    registry = DeckRegistry.open(db)
    assert registry.identify(uid(1, 0)).card == DECK[0]
    assert registry.identify(bytes.fromhex("e009090909090909")).card is None


def test_link_status_is_said_once_per_reason() -> None:
    from table_controller.commands.deck import EnrolmentEvents, _LinkTags

    events = EnrolmentEvents()
    tags = _LinkTags(events, antenna=None, hold=0.6, clock=lambda: 0.0)
    for _ in range(3):
        tags.link_down("cannot open /dev/nothing")
    tags.link_up(None)
    tags.link_down("cannot open /dev/nothing")
    said = []
    while (event := events.next(timeout=0.01)) is not None:
        said.append(getattr(event, "text", event))
    assert said == ["RFID controller not answering (cannot open /dev/nothing); retrying",
                    "RFID controller connected",
                    "RFID controller not answering (cannot open /dev/nothing); retrying"]
