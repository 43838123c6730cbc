"""The floor with its store on a real PostgreSQL server (tests/postgres.py): a
``table-controller floor`` process following a ``run --sim`` table stores its messages and
alerts there with no gap, and an acknowledge through the API reaches the table."""

from __future__ import annotations

from pathlib import Path

import httpx

from table_controller.floor.store import FloorStore
from tests.floor_rig import FloorProcess, SimTable, wait_for

PASSWORD = "correct horse battery"


def test_the_floor_on_postgresql(tmp_path: Path, postgresql_url: str) -> None:
    table = SimTable(tmp_path / "t1", "t1").start()
    floor = FloorProcess(tmp_path / "floor", [table], store=postgresql_url)
    try:
        floor.start()
        floor.adduser("anna", PASSWORD)
        wait_for(lambda: httpx.get(floor.url + "/api/tables").json()[0]["online"],
                 "the table never online")
        table.start_hand()
        alert = table.out_of_turn()
        with httpx.Client(base_url=floor.url) as staff:
            assert staff.post("/api/login", json={"username": "anna", "password": PASSWORD}
                              ).status_code == 200
            wait_for(lambda: staff.get("/api/alerts", params={"table": "t1"}).json(),
                     "the alert never reached the floor")
            assert staff.post(f"/api/alerts/t1/{alert['id']}/ack", json={}).status_code == 200
        table.wait(lambda s: s["unacknowledged"] == [], "never acknowledged at the table",
                   timeout=5)
        table.play_to_end()
        last = table.journal_last_seqs()
        wait_for(lambda: httpx.get(floor.url + "/api/tables").json()[0]["seq"].get("floor", 0)
                 >= last["floor"], "never caught up")
    finally:
        assert floor.stop() == 0
        table.stop()
    store = FloorStore.open(postgresql_url)
    try:
        assert store.where.startswith("postgresql://")
        (stored,) = store.alerts("t1")
        assert (stored.id, stored.acked_by, stored.resolved_by) == (alert["id"], "anna",
                                                                    "hand_end")
        assert store.missing("t1", "floor") == [] and store.missing("t1", "alerts") == []
        assert (store.last_seq("t1", "floor") or 0) >= last["floor"]
        (hand,) = store.hands(table="t1")
        assert hand.pot == 6 and hand.end_stacks is not None
    finally:
        store.close()
