"""The floor's dashboard and API over real HTTP (uvicorn on loopback), and in a real browser:
the public view masks hole cards, staff see them, an acknowledge goes back to the table, an
alert appears on the page as it arrives."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from table_controller.floor.auth import Auth
from table_controller.floor.hub import SILENT_AFTER, FloorHub
from table_controller.floor.store import FloorStore
from table_controller.floor.web import create_app
from table_controller.webserve import WebServer
from tests.browser import VIEWPORTS, screenshot

PASSWORD = "correct horse battery"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Floor:
    def __init__(self, tmp: Path) -> None:
        self.store = FloorStore.open(tmp / "floor.sqlite3")
        self.clock = Clock()
        self.hub = FloorHub(self.store, {"t1": "Table 1", "t2": "Table 2"}, self.clock)
        self.auth = Auth(self.store, time.time)
        self.auth.add_user("anna", PASSWORD)
        self.acks: list[tuple[str, int, str]] = []
        for table in ("t1", "t2"):
            self.hub.on_acknowledge(table, self._sender(table))
        self.server = WebServer(create_app(self.hub, self.auth), "127.0.0.1", 0).start()
        self.seq = {"t1": 0, "t2": 0}

    def _sender(self, table: str) -> Callable[[int, str], bool]:
        def send(alert_id: int, by: str) -> bool:
            self.acks.append((table, alert_id, by))
            return True
        return send

    def send(self, table: str, message: dict[str, Any]) -> None:
        self.seq[table] += 1
        self.hub.receive(table, "floor", {**message, "seq": self.seq[table]})

    def close(self) -> None:
        self.server.stop()
        self.store.close()


ALERT = {"type": "alert", "id": 7, "code": "EXPOSED_CARD_REPLACE", "severity": "fix", "hand": 1,
         "seat": 3, "cards": ["Kd"], "hidden": ["Kd"], "rule": "[000] [003]",
         "message": "Seat 3's card Kd was exposed", "remedy": "Replace Kd with the top card",
         "time": "2026-12-01T10:00:00.000+00:00"}


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[Floor]:
    f = Floor(tmp_path)
    try:
        yield f
    finally:
        f.close()


@contextmanager
def _signed_in(floor: Floor) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=floor.server.url) as client:
        r = client.post("/api/login", json={"username": "anna", "password": PASSWORD})
        assert r.status_code == 200, r.text
        yield client


def test_tables_and_alerts_public_and_staff_views(floor: Floor) -> None:
    floor.send("t1", {"type": "hand_start", "hand": 1, "button": 1,
                      "stacks": {"1": 200, "3": 200}, "time": "x"})
    floor.send("t1", ALERT)
    with httpx.Client(base_url=floor.server.url) as viewer:
        tables = viewer.get("/api/tables").json()
        t1 = next(t for t in tables if t["id"] == "t1")
        assert t1["online"] and t1["hand"] == 1 and t1["open_alerts"] == {"fix": 1}
        (alert,) = viewer.get("/api/alerts", params={"table": "t1"}).json()
        assert (alert["table"], alert["id"], alert["code"]) == ("t1", 7, "EXPOSED_CARD_REPLACE")
        assert alert["cards"] == ["??"] and "Kd" not in alert["message"] + alert["remedy"]
        assert "hidden" not in alert
        assert viewer.get("/api/alerts", params={"table": "t9"}).status_code == 404
    with _signed_in(floor) as staff:
        (alert,) = staff.get("/api/alerts", params={"table": "t1"}).json()
        assert alert["cards"] == ["Kd"] and "Kd" in alert["message"]


def test_acknowledge_needs_staff_and_goes_back_to_the_table(floor: Floor) -> None:
    floor.send("t1", ALERT)
    with httpx.Client(base_url=floor.server.url) as viewer:
        assert viewer.post("/api/alerts/t1/7/ack", json={}).status_code == 401
    assert floor.acks == []
    with _signed_in(floor) as staff:
        assert staff.post("/api/alerts/t1/8/ack", json={}).status_code == 404
        r = staff.post("/api/alerts/t1/7/ack", json={})
        assert r.status_code == 200 and r.json()["by"] == "anna"
    assert floor.acks == [("t1", 7, "anna")]
    assert floor.store.alerts("t1")[0].acked_by == "anna"


def test_login_refuses_bad_requests(floor: Floor) -> None:
    with httpx.Client(base_url=floor.server.url) as c:
        assert c.post("/api/login", json={"username": "anna", "password": "nope nope nope"}
                      ).status_code == 401
        assert c.post("/api/login", content=b"username=anna",
                      headers={"Content-Type": "application/x-www-form-urlencoded"}
                      ).status_code == 400
        assert c.post("/api/login", content=b"[" * 5000,
                      headers={"Content-Type": "application/json"}).status_code == 400
        assert c.get("/api/me").json() is None


def test_hand_search_review_and_phh(floor: Floor) -> None:
    floor.send("t1", {"type": "hand_start", "hand": 4, "button": 2,
                      "stacks": {"1": 200, "2": 200}, "time": "2026-12-01T10:00:00+00:00"})
    floor.send("t1", {"type": "card", "hand": 4, "zone": "seat1", "card": "As", "face": "down",
                      "event": "seen", "source": "rfid", "time": "t"})
    floor.send("t1", {"type": "hand_end", "hand": 4, "voided": False, "cause": None,
                      "stacks": {"1": 230, "2": 170}, "phh": "variant = 'NT'\n",
                      "time": "2026-12-01T10:02:00+00:00"})
    with httpx.Client(base_url=floor.server.url) as viewer:
        (found,) = viewer.get("/api/hands", params={"table": "t1", "min_pot": 30}).json()
        assert (found["hand"], found["pot"]) == (4, 30)
        assert viewer.get("/api/hands", params={"seat": "x"}).status_code == 400
        record = viewer.get("/api/hands/t1/4").json()
        assert [m["type"] for m in record["messages"]] == ["hand_start", "card", "hand_end"]
        assert record["messages"][1]["card"] == "??" and "phh" not in record["messages"][2]
        assert viewer.get("/api/hands/t1/4/phh").status_code == 401
    with _signed_in(floor) as staff:
        assert staff.get("/api/hands/t1/4").json()["messages"][1]["card"] == "As"
        r = staff.get("/api/hands/t1/4/phh")
        assert r.status_code == 200 and r.text == "variant = 'NT'\n"


def test_a_silent_table_is_shown_offline(floor: Floor) -> None:
    floor.send("t2", {"type": "sensor", "source": "rfid", "online": True})
    assert floor.hub.table_view("t2")["online"]
    floor.clock.now += SILENT_AFTER - 0.1
    assert floor.hub.check_silence() == []
    floor.clock.now += 0.1
    assert floor.hub.check_silence() == ["t2"]
    assert not floor.hub.table_view("t2")["online"]


def test_the_page_shows_an_alert_as_it_arrives_and_acknowledges_it(floor: Floor,
                                                                  browser: Any) -> None:
    floor.send("t1", {"type": "hand_start", "hand": 1, "button": 1,
                      "stacks": {"1": 200, "3": 200}, "time": "x"})
    page = browser.new_page(viewport=VIEWPORTS["laptop"])
    try:
        page.goto(floor.server.url + "/")
        page.wait_for_selector('[data-table="t1"][data-online="true"]', timeout=5000)
        sent = time.monotonic()
        floor.send("t1", ALERT)
        item = page.wait_for_selector('[data-table="t1"][data-alert-id="7"]'
                                      '[data-alert-code="EXPOSED_CARD_REPLACE"]', timeout=1000)
        assert time.monotonic() - sent < 1.0
        assert item is not None and "??" in (item.text_content() or "")
        screenshot(page, "floor-viewer-alert")
        page.fill("#login input[name=username]", "anna")
        page.fill("#login input[name=password]", PASSWORD)
        page.click("#login button[type=submit]")
        page.wait_for_selector("#logout:not([hidden])", timeout=5000)
        item = page.wait_for_selector('[data-alert-id="7"]', timeout=5000)
        assert item is not None and "Kd" in (item.text_content() or "")
        page.click('[data-alert-id="7"] [data-ack]')
        page.wait_for_selector('[data-alert-id="7"].acked', timeout=5000)
        assert floor.acks == [("t1", 7, "anna")]
        screenshot(page, "floor-staff-acknowledged")
    finally:
        page.close()


def test_the_table_state_follows_actions_and_board_cards(floor: Floor) -> None:
    floor.send("t1", {"type": "hand_start", "hand": 2, "button": 1,
                      "stacks": {"1": 200, "2": 200}, "time": "x"})
    floor.send("t1", {"type": "action", "cmd": "action", "seat": 1, "kind": "call", "hand": 2,
                      "pot": 4, "stacks": {"1": 198, "2": 198}, "time": "x"})
    for card, event in (("7d", "placed"), ("Js", "placed"), ("7d", "removed"),
                        ("4c", "placed")):
        floor.send("t1", {"type": "card", "hand": 2, "zone": "board", "card": card,
                          "face": "up", "event": event, "source": "camera", "time": "x"})
    floor.send("t1", {"type": "card", "hand": 2, "zone": "seat1", "card": "As",
                      "face": "down", "event": "placed", "source": "rfid", "time": "x"})
    view = floor.hub.table_view("t1")
    assert (view["pot"], view["board"], view["stacks"]) == (4, ["Js", "4c"],
                                                            {"1": 198, "2": 198})
    floor.hub.apply_snapshot("t1", {"hand": 2, "button": 1, "board": ["Js"],
                                    "board_seen": ["Js", "4c", None], "pot": 10,
                                    "stacks": {"1": 195, "2": 195}})
    view = floor.hub.table_view("t1")
    assert (view["pot"], view["board"]) == (10, ["Js", "4c"])
