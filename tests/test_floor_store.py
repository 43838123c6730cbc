"""The floor's store on SQLite and on a real PostgreSQL server: messages stored once per seq,
gaps found, alerts and hands derived, search, acknowledgements, staff sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_controller.floor.store import FloorStore, StoreError, pot_of


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FloorStore]:
    if request.param == "sqlite":
        url = str(tmp_path / "floor.sqlite3")
    else:
        url = request.getfixturevalue("postgresql_url")
    s = FloorStore.open(url)
    try:
        yield s
    finally:
        s.close()


def _hand(store: FloorStore, table: str, hand: int, first_seq: int, *, start: str,
          alert_code: str | None = None, stacks_end: dict[str, int] | None = None) -> int:
    """Store a hand's start, one alert (with an update and its resolution), and its end;
    returns the next seq."""
    seq = first_seq
    msgs: list[dict[str, Any]] = [
        {"type": "hand_start", "hand": hand, "button": 1, "stacks": {"1": 200, "2": 200, "4": 150},
         "time": start}]
    if alert_code is not None:
        base = {"type": "alert", "id": 100 + hand, "code": alert_code, "severity": "fix",
                "hand": hand, "seat": None, "cards": ["7h"], "time": start}
        msgs += [base, {**base, "update": True, "cards": ["7h", "8h"]},
                 {"type": "alert_resolved", "id": 100 + hand, "code": alert_code, "hand": hand,
                  "by": "verified", "time": start}]
    msgs.append({"type": "hand_end", "hand": hand, "voided": False, "cause": None,
                 "stacks": stacks_end or {"1": 230, "2": 170, "4": 150}, "time": start})
    for m in msgs:
        assert store.record(table, "floor", {**m, "seq": seq}, received=1.0)
        seq += 1
    return seq


def test_a_message_is_stored_once_per_seq(store: FloorStore) -> None:
    m = {"type": "sensor", "seq": 1, "online": True}
    assert store.record("t1", "floor", m, received=1.0)
    assert not store.record("t1", "floor", {**m, "online": False}, received=2.0)
    assert store.record("t2", "floor", m, received=1.0)  # another table's seq 1
    assert store.count("t1") == 1 and store.count() == 2
    assert store.last_seq("t1", "floor") == 1 and store.last_seq("t3", "floor") is None


def test_gaps_in_seq_are_found(store: FloorStore) -> None:
    for seq in (1, 2, 5, 6, 9):
        store.record("t1", "floor", {"type": "x", "seq": seq}, received=0.0)
    assert store.missing("t1", "floor") == [(3, 4), (7, 8)]
    for seq in (3, 4, 7, 8):
        store.record("t1", "floor", {"type": "x", "seq": seq}, received=0.0)
    assert store.missing("t1", "floor") == []


def test_a_message_without_seq_is_refused_naming_the_table(store: FloorStore) -> None:
    with pytest.raises(StoreError, match="table t1: a message without an integer seq"):
        store.record("t1", "floor", {"type": "alert", "seq": "7"}, received=0.0)
    assert store.count() == 0


def test_alert_lifecycle_and_acknowledgement(store: FloorStore) -> None:
    _hand(store, "t1", 3, 1, start="2026-12-01T10:00:00.000+00:00", alert_code="FOUR_CARD_FLOP")
    (alert,) = store.alerts("t1")
    assert (alert.id, alert.code, alert.hand, alert.updates) == (103, "FOUR_CARD_FLOP", 3, 1)
    assert alert.body["cards"] == ["7h", "8h"]  # the update replaced the first version
    assert alert.resolved_by == "verified" and not alert.open
    assert store.alerts(open_only=True) == []
    assert store.acknowledge("t1", 103, by="anna", time="2026-12-01T10:00:05+00:00")
    assert not store.acknowledge("t1", 999, by="anna", time="x")
    assert store.alerts("t1")[0].acked_by == "anna"


def test_hands_searched_by_table_time_seat_code_and_pot(store: FloorStore) -> None:
    seq = _hand(store, "t1", 1, 1, start="2026-12-01T10:00:00+00:00")
    seq = _hand(store, "t1", 2, seq, start="2026-12-01T11:00:00+00:00", alert_code="JOKER",
                stacks_end={"1": 100, "2": 300, "4": 150})
    _hand(store, "t2", 1, 1, start="2026-12-01T12:00:00+00:00")
    assert [(h.table, h.hand) for h in store.hands()] == [("t2", 1), ("t1", 2), ("t1", 1)]
    assert [h.hand for h in store.hands(table="t1")] == [2, 1]
    assert [h.table for h in store.hands(since="2026-12-01T11:30:00+00:00")] == ["t2"]
    assert [h.hand for h in store.hands(table="t1", code="JOKER")] == [2]
    assert store.hands(seat=3) == [] and len(store.hands(seat=4)) == 3
    big = store.hands(min_pot=50)
    assert [(h.table, h.hand, h.pot) for h in big] == [("t1", 2, 100)]
    assert store.hands(table="t1")[0].end_stacks == {"1": 100, "2": 300, "4": 150}


def test_hand_messages_in_order(store: FloorStore) -> None:
    _hand(store, "t1", 1, 1, start="s", alert_code="JOKER")
    kinds = [m["type"] for m in store.hand_messages("t1", 1)]
    assert kinds == ["hand_start", "alert", "alert", "alert_resolved", "hand_end"]


def test_staff_and_sessions_expire(store: FloorStore) -> None:
    store.put_staff("anna", "hash-1", "floor")
    store.put_staff("anna", "hash-2", "floor")
    assert store.staff("anna") == ("hash-2", "floor") and store.staff("bob") is None
    store.put_session("tok", "anna", expires=100.0)
    assert store.session("tok", now=99.0) == "anna"
    assert store.session("tok", now=100.0) is None
    store.drop_sessions(before=100.0)
    assert store.session("tok", now=0.0) is None


def test_pot_is_the_tables_figure_or_the_chips_lost() -> None:
    start, end = {"1": 200, "2": 200}, {"1": 250, "2": 150}
    assert pot_of(start, end, {}) == 50
    assert pot_of(start, end, {"pot": 100}) == 100


def test_a_bad_url_is_named_without_its_password() -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(StoreError) as info:
        FloorStore.open("postgresql://floor:secret@/nodb?host=/nonexistent-dir&port=1")
    assert "secret" not in str(info.value) and "floor@" in str(info.value)


def test_one_alert_from_two_channels_acknowledged_at_the_table(store: FloorStore) -> None:
    alert = {"type": "alert", "id": 5, "code": "JOKER", "severity": "fix", "hand": 2,
             "seat": None, "cards": ["Kd"], "hidden": [], "time": "t"}
    assert store.record("t1", "alerts", {**alert, "seq": 1}, received=1.0)
    assert store.record("t1", "floor", {**alert, "seq": 40}, received=1.0)
    (stored,) = store.alerts("t1")
    assert stored.updates == 0 and stored.body["seq"] == 1  # the same alert, not an update
    store.record("t1", "alerts", {"type": "acknowledged", "id": 5, "by": "bob",
                                  "client": "floor2", "time": "t2", "seq": 2}, received=2.0)
    assert store.alerts("t1")[0].acked_by == "bob"
    store.record("t1", "alerts", {"type": "acknowledged", "id": 5, "by": "eve",
                                  "client": "floor3", "time": "t3", "seq": 3}, received=3.0)
    assert store.alerts("t1")[0].acked_by == "bob"  # the first one stands
    assert store.hand_messages("t1", 2) == [{**alert, "seq": 40}]  # the floor channel's


def test_a_hand_end_ends_its_open_alerts(store: FloorStore) -> None:
    store.record("t1", "floor", {"type": "hand_start", "hand": 1, "button": 1,
                                 "stacks": {"1": 10, "2": 10}, "time": "a", "seq": 1},
                 received=0.0)
    for seq, alert_id in ((2, 1), (3, 2)):
        store.record("t1", "floor", {"type": "alert", "id": alert_id, "code": "JOKER",
                                     "severity": "fix", "hand": 1, "seat": None, "cards": [],
                                     "time": "b", "seq": seq}, received=0.0)
    store.record("t1", "floor", {"type": "alert_resolved", "id": 1, "code": "JOKER", "hand": 1,
                                 "by": "verified", "time": "c", "seq": 4}, received=0.0)
    store.record("t1", "floor", {"type": "hand_end", "hand": 1, "voided": False,
                                 "stacks": {"1": 12, "2": 8}, "pot": 4, "time": "d",
                                 "seq": 5}, received=0.0)
    assert [(a.id, a.resolved_by, a.resolved) for a in store.alerts("t1")] == [
        (1, "verified", "c"), (2, "hand_end", "d")]
    assert store.hands(table="t1")[0].pot == 4  # the table's figure
