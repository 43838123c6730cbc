"""Deck registry, deck files and the interactive enrolment state machine (issue 3)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from firmware_bridge.deck_enrolment import (
    ENROLMENT_ORDER,
    DeckFileError,
    Enrolment,
    Outcome,
    format_deck_file,
    parse_deck_text,
    parse_uid,
    read_deck_file,
)
from firmware_bridge.decks import DeckRegistry, DeckRegistryError, TagEntry
from firmware_bridge.tags import TagIdentity
from table_controller.vocabulary.cards import DECK, parse_card


def uid_for(deck: int, index: int) -> bytes:
    return bytes([0x04, deck, 0xA0, index, 0x11, 0x22, 0x33])


def full_deck(deck: int) -> list[TagEntry]:
    return [TagEntry(uid=uid_for(deck, c.index), card=c) for c in DECK]


@pytest.fixture
def registry(tmp_path: Path) -> DeckRegistry:
    reg = DeckRegistry.open(tmp_path / "decks.sqlite3")
    reg.enroll("red", full_deck(1))
    reg.enroll("blue", [*full_deck(2), TagEntry(uid=b"\x04\x02\xff\xff", card=None)])
    return reg


def test_identify_active_inactive_unknown_joker(registry: DeckRegistry) -> None:
    assert registry.active == "red"  # the first deck enrolled
    ace = parse_card("As")
    assert registry.identify(uid_for(1, ace.index)) == TagIdentity(ace, "red", active=True)
    other = registry.identify(uid_for(2, ace.index))
    assert other == TagIdentity(ace, "blue", active=False)
    assert other.foreign
    unknown = registry.identify(b"\x01\x02\x03\x04")
    assert unknown.card is None and unknown.deck is None and unknown.foreign
    joker = registry.identify(b"\x04\x02\xff\xff")
    assert joker.joker and joker.card is None and joker.deck == "blue" and not joker.foreign


def test_activate_and_alternate_switch_the_answers(registry: DeckRegistry) -> None:
    ace = parse_card("As")
    registry.activate("blue")
    assert registry.identify(uid_for(2, ace.index)).active
    assert not registry.identify(uid_for(1, ace.index)).active
    assert registry.alternate() == "red"
    assert registry.identify(uid_for(1, ace.index)).active
    with pytest.raises(DeckRegistryError, match="no deck named 'green'; enrolled decks: blue, red"):
        registry.activate("green")
    assert registry.active == "red"


def test_alternate_needs_two_decks(tmp_path: Path) -> None:
    reg = DeckRegistry.open(tmp_path / "d.sqlite3")
    reg.enroll("only", full_deck(1))
    with pytest.raises(DeckRegistryError, match="exactly two"):
        reg.alternate()


def test_state_survives_reopen_and_other_connections_are_seen(registry: DeckRegistry) -> None:
    other = DeckRegistry.open(registry.path)
    assert other.active == "red"
    other.activate("blue")
    assert registry.active == "red"            # the cache is not touched by the other process...
    assert registry.refresh_if_changed()        # ...until the daemon refreshes between hands
    assert registry.active == "blue"
    assert not registry.refresh_if_changed()
    ace = parse_card("As")
    assert registry.identify(uid_for(2, ace.index)).active
    other.close()


def test_enroll_refuses_clashes_and_keeps_state(registry: DeckRegistry) -> None:
    stolen = [*full_deck(3)[:-1], TagEntry(uid=uid_for(1, 0), card=DECK[-1], line=52)]
    with pytest.raises(DeckRegistryError, match="line 52: UID 0401A000112233 is already "
                                                "enrolled as 2s in deck 'red'"):
        registry.enroll("green", stolen)
    with pytest.raises(DeckRegistryError, match="1 cards missing: Ac"):
        registry.enroll("green", full_deck(3)[:-1])
    assert [d.name for d in registry.decks()] == ["blue", "red"]
    info = registry.enroll("green", full_deck(3)[:-1], allow_missing=True)
    assert info.missing == (parse_card("Ac"),) and not info.complete and not info.active


def test_reenrol_replaces_and_remove(registry: DeckRegistry) -> None:
    registry.enroll("red", full_deck(5))
    assert registry.identify(uid_for(1, 0)).card is None
    assert registry.identify(uid_for(5, 0)).card == DECK[0]
    registry.remove("red")
    assert registry.active is None
    assert registry.identify(uid_for(5, 0)) == TagIdentity(None, None, False)
    assert [t.card for t in registry.tags("blue")][:2] == [DECK[0], DECK[1]]
    assert registry.tags("blue")[-1].joker


def test_broken_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(DeckRegistryError, match=r"bad\.sqlite3 is not a usable deck registry"):
        DeckRegistry.open(bad)
    with pytest.raises(DeckRegistryError, match="no deck registry at"):
        DeckRegistry.open(tmp_path / "absent.sqlite3", create=False)
    newer = tmp_path / "newer.sqlite3"
    DeckRegistry.open(newer).close()
    with sqlite3.connect(newer) as db:
        db.execute("UPDATE deck_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(DeckRegistryError, match="schema version 99"):
        DeckRegistry.open(newer)


def test_corrupt_row_reads_as_unknown_not_a_guess(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite3"
    DeckRegistry.open(path).enroll("red", full_deck(1))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE deck_tag SET card = 'Zz' WHERE uid = ?", (uid_for(1, 0),))
    reg = DeckRegistry.open(path)
    assert reg.identify(uid_for(1, 0)).card is None
    assert reg.identify(uid_for(1, 1)).card == DECK[1]
    with pytest.raises(DeckRegistryError, match="tag 0401A000112233 has a broken card 'Zz'"):
        reg.deck("red")


def test_read_only_open_leaves_other_databases_alone(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE journal (t REAL)")
    with pytest.raises(DeckRegistryError, match="holds no deck registry"):
        DeckRegistry.open(path, create=False)
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    assert tables == {"journal"}
    reg = DeckRegistry.open(path)  # the registry shares the file with other tables
    reg.enroll("red", full_deck(1))
    assert DeckRegistry.open(path, create=False).active == "red"


def test_identify_accepts_any_bytes_like(registry: DeckRegistry) -> None:
    assert registry.identify(bytearray(uid_for(1, 3))).card == DECK[3]  # type: ignore[arg-type]
    assert registry.identify(memoryview(uid_for(1, 3))).card == DECK[3]  # type: ignore[arg-type]


def test_database_failures_are_registry_errors(registry: DeckRegistry) -> None:
    registry = DeckRegistry.open(registry.path, busy_timeout=0)
    locker = sqlite3.connect(registry.path, timeout=0)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(DeckRegistryError, match="database is locked"):
            registry.activate("blue")
    finally:
        locker.rollback()
        locker.close()
    assert registry.active == "red"
    registry.activate("blue")
    assert registry.active == "blue"


def test_identify_from_another_thread_while_switching(registry: DeckRegistry) -> None:
    seen: list[TagIdentity] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.append(registry.identify(uid_for(1, 0)))

    thread = threading.Thread(target=read)
    thread.start()
    for _ in range(20):
        registry.alternate()
    stop.set()
    thread.join(timeout=10)
    assert {s.deck for s in seen} == {"red"} and {s.card for s in seen} == {DECK[0]}


# -- deck files ----------------------------------------------------------------------------------


def deck_text(deck: int = 1) -> list[str]:
    return [f"{uid_for(deck, c.index).hex()},{c}" for c in DECK]


def test_deck_file_round_trip(tmp_path: Path) -> None:
    text = "# deck red\nuid,card\n" + "\n".join(deck_text()) + "\n04:AA:BB:CC  joker  # spare\n"
    entries = parse_deck_text(text)
    assert len(entries) == 53 and entries[-1].joker and entries[-1].uid == b"\x04\xaa\xbb\xcc"
    assert entries[0].line == 3
    path = tmp_path / "red.csv"
    path.write_text(format_deck_file(entries, title="red"))
    assert [(e.uid, e.card) for e in read_deck_file(path)] == [(e.uid, e.card) for e in entries]


def test_deck_file_problems_name_their_lines() -> None:
    lines = deck_text()
    lines[3] = lines[3].split(",")[0] + ",Xx"           # line 4: bad card
    lines[5] = "zz12,5s"                                # line 6: bad hex
    lines[7] = lines[0].split(",")[0] + ",9s"           # line 8: UID of line 1
    lines[9] = lines[9].split(",")[0] + ",2s"           # line 10: card of line 1
    lines[11] = "0102,4h"                               # line 12: too short
    lines[13] = "01020304 4h extra"                     # line 14: three fields
    with pytest.raises(DeckFileError) as info:
        parse_deck_text("\n".join(lines), source="red.csv")
    problems = info.value.problems
    assert problems[0].startswith("line 4: not a card: 'Xx'")
    assert problems[1] == "line 6: 'zz12' is not a hex UID"
    assert problems[2].startswith("line 12: UID '0102' has 2 bytes")
    assert problems[3].startswith("line 14: expected 'UID,CARD'")
    assert problems[4] == "line 8: UID 0401A000112233 given twice (first on line 1)"
    assert problems[5] == "line 10: 2s given twice (first on line 1)"
    assert str(info.value).startswith("red.csv: 6 problem(s):")


def test_deck_file_missing_cards() -> None:
    lines = deck_text()[:-2]
    with pytest.raises(DeckFileError, match=r"2 card\(s\) missing: Ad Ac"):
        parse_deck_text("\n".join(lines))
    assert len(parse_deck_text("\n".join(lines), allow_missing=True)) == 50


def test_unreadable_deck_file(tmp_path: Path) -> None:
    with pytest.raises(DeckFileError, match="cannot read"):
        read_deck_file(tmp_path / "nope.csv")
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(DeckFileError, match="cannot read"):
        read_deck_file(binary)


def test_parse_uid() -> None:
    assert parse_uid("04:a1:B2:c3") == b"\x04\xa1\xb2\xc3"
    with pytest.raises(ValueError, match="odd number"):
        parse_uid("04a1b")


# -- interactive enrolment -----------------------------------------------------------------------


def test_enrolment_walks_the_deck_with_skip_undo_and_refusals() -> None:
    owners = {b"\x09\x09\x09\x09": ("blue", parse_card("7h"))}
    session = Enrolment(deck="red", jokers=1, owner=owners.get)
    assert session.prompt == "Place As on the enrolment antenna"
    first = session.feed(uid_for(1, 0))
    assert first.outcome is Outcome.ENROLLED and first.message == "As = 0401A000112233 (1/53)"
    assert first.prompt == "Place 2s on the enrolment antenna"
    # the ace still lies on the antenna and is reported again: not an error, not a new card
    assert session.feed(uid_for(1, 0)).outcome is Outcome.IGNORED
    assert session.skip().prompt == "Place 3s on the enrolment antenna"
    undone = session.undo()
    assert undone.outcome is Outcome.UNDONE and undone.prompt == "Place 2s on the enrolment antenna"
    session.feed(uid_for(1, 1))
    again = session.feed(uid_for(1, 0))
    assert again.outcome is Outcome.REFUSED and "already enrolled as As" in again.message
    assert again.prompt == "Place 3s on the enrolment antenna"
    foreign = session.feed(b"\x09\x09\x09\x09")
    assert foreign.outcome is Outcome.REFUSED
    assert "belongs to deck 'blue' as 7h" in foreign.message
    assert session.word("nonsense").outcome is Outcome.REFUSED
    for n in range(2, 52):  # slots 10 and 20 skipped, the others enrolled
        if n in (10, 20):
            assert session.word("skip" if n == 10 else "s").outcome is Outcome.SKIPPED
        else:
            assert session.feed(uid_for(1, 100 + n)).outcome is Outcome.ENROLLED
    assert session.prompt == "Place joker 1 of 1 on the enrolment antenna"
    last = session.feed(b"\x04\x04\x04\x04\x04")
    assert session.finished and not session.abandoned and last.prompt is None
    skipped = [str(ENROLMENT_ORDER[10]), str(ENROLMENT_ORDER[20])]
    assert "missing: " in last.message
    assert sorted(str(c) for c in session.missing()) == sorted(skipped)
    entries = session.entries()
    assert len(entries) == 51 and entries[-1].joker


def test_enrolment_done_and_quit() -> None:
    session = Enrolment(deck="red")
    session.feed(uid_for(1, 0))
    reply = session.word("done")
    assert reply.outcome is Outcome.DONE and session.finished
    assert reply.message.startswith("deck 'red': 1 of 52 cards enrolled; missing: 2s 2h")
    assert session.feed(uid_for(1, 5)).outcome is Outcome.IGNORED
    quitter = Enrolment(deck="red")
    quitter.feed(uid_for(1, 0))
    assert quitter.word("q").outcome is Outcome.QUIT and quitter.abandoned
    assert Enrolment(deck="x").undo().outcome is Outcome.REFUSED


def test_enrolment_reenrols_own_deck_tags() -> None:
    owner = {uid_for(1, 0): ("red", DECK[0])}
    session = Enrolment(deck="red", owner=owner.get)
    assert session.feed(uid_for(1, 0)).outcome is Outcome.ENROLLED
