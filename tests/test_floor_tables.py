"""The floor against three real tables, in a real browser: three ``table-controller run --sim``
processes (own sockets, own journals, driven through their consoles) and one ``table-controller
floor`` process; Debian's Chromium on its dashboard.

- an alert raised at a table is on the floor's page within one second, and an acknowledge on
  the page clears it at the table;
- a table killed with SIGKILL is shown offline, then, started again, caught up: every alert of
  its journal is on the floor and no ``seq`` of any channel is missing;
- a hand is reviewed step by step to its end, with the journal's stacks; its PHH downloads.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from table_controller.floor.store import FloorStore
from tests.browser import VIEWPORTS, screenshot
from tests.floor_rig import FloorProcess, SimTable, wait_for

PASSWORD = "correct horse battery"


class Room:
    def __init__(self, tmp: Path) -> None:
        self.tables = {tid: SimTable(tmp / tid, tid, seed=n)
                       for n, tid in enumerate(("t1", "t2", "t3"), start=1)}
        self.floor = FloorProcess(tmp / "floor", list(self.tables.values()))

    def api(self, path: str, **params: Any) -> Any:
        return httpx.get(self.floor.url + path, params=params, timeout=10).json()

    def table_view(self, tid: str) -> dict[str, Any]:
        view: dict[str, Any] = next(t for t in self.api("/api/tables") if t["id"] == tid)
        return view

    def stored(self) -> FloorStore:
        """The floor's store, opened beside the running floor (SQLite, WAL)."""
        return FloorStore.open(self.floor.store)


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    r = Room(tmp_path_factory.mktemp("room"))
    try:
        for table in r.tables.values():
            table.start()
        r.floor.start()
        r.floor.adduser("anna", PASSWORD)
        wait_for(lambda: all(t["online"] for t in r.api("/api/tables")), "a table never online")
        yield r
    finally:
        code = r.floor.stop()
        for table in r.tables.values():
            table.stop()
        assert code == 0 and "Traceback" not in r.floor.log(), r.floor.log()[-3000:]


def sign_in(page: Any) -> None:
    page.fill("#login input[name=username]", "anna")
    page.fill("#login input[name=password]", PASSWORD)
    page.click("#login button[type=submit]")
    page.wait_for_selector("#logout:not([hidden])", timeout=5000)


def test_an_alert_reaches_the_floor_within_a_second_and_is_acknowledged_back(
        room: Room, browser: Any) -> None:
    t1 = room.tables["t1"]
    page = browser.new_page(viewport=VIEWPORTS["laptop"])
    try:
        page.goto(room.floor.url + "/")
        sign_in(page)
        for tid in room.tables:
            page.wait_for_selector(f'[data-table="{tid}"][data-online="true"]', timeout=5000)
        t1.start_hand()
        page.wait_for_selector('[data-table="t1"][data-hand="1"]', timeout=5000)
        sent = time.monotonic()
        alert = t1.out_of_turn()
        raised = time.monotonic()
        item = page.wait_for_selector(
            f'#alerts [data-table="t1"][data-alert-id="{alert["id"]}"]'
            f'[data-alert-code="{alert["code"]}"]', timeout=1000)
        seen = time.monotonic()
        assert item is not None and seen - raised < 1.0, (raised - sent, seen - raised)
        screenshot(page, "floor-three-tables-alert")
        assert t1.ask({"cmd": "status"})["unacknowledged"] == [alert["id"]]

        page.click(f'[data-table="t1"][data-alert-id="{alert["id"]}"] [data-ack]')
        page.wait_for_selector(f'[data-alert-id="{alert["id"]}"].acked', timeout=5000)
        t1.wait(lambda s: s["unacknowledged"] == [], "the acknowledge never reached the table",
                timeout=5)
        stored = [a for a in room.api("/api/alerts", table="t1") if a["id"] == alert["id"]]
        assert stored[0]["acked_by"] == "anna"
        screenshot(page, "floor-three-tables-acknowledged")
        t1.play_to_end()
        page.wait_for_selector('[data-table="t1"][data-hand=""]', timeout=5000)
    finally:
        page.close()


def test_a_killed_table_is_offline_then_caught_up_with_nothing_missing(
        room: Room, browser: Any) -> None:
    t2 = room.tables["t2"]
    t2.start_hand()
    first = t2.out_of_turn()
    t2.play_to_end()
    page = browser.new_page(viewport=VIEWPORTS["laptop"])
    try:
        page.goto(room.floor.url + "/")
        page.wait_for_selector('[data-table="t2"][data-online="true"]', timeout=5000)
        killed = time.monotonic()
        t2.stop(kill=True)  # SIGKILL: nothing closed, nothing said
        page.wait_for_selector('[data-table="t2"][data-online="false"]', timeout=5000)
        offline_after = time.monotonic() - killed
        # silent for 4 s (the hub), heard at most a heartbeat (0.5 s) before the kill, looked
        # at every 0.25 s; the page is told by server-sent events
        assert 3.0 < offline_after < 5.0, offline_after
        screenshot(page, "floor-table-offline")

        t2.start()  # the same journal: numbering goes on; raise alerts at once
        t2.start_hand()
        second = t2.out_of_turn()
        t2.play_to_end()
        page.wait_for_selector('[data-table="t2"][data-online="true"]', timeout=10000)
        expected = t2.journal_alert_ids()
        assert first["id"] in expected and second["id"] in expected
        assert second["id"] > first["id"]
        last = t2.journal_last_seqs()

        def caught_up() -> bool:
            view = room.table_view("t2")
            return all(view["seq"].get(c, 0) >= last[c] for c in ("floor", "alerts"))

        wait_for(caught_up, f"t2 never caught up to {last}")
        store = room.stored()
        try:
            assert sorted(a.id for a in store.alerts("t2")) == expected
            for channel in ("floor", "alerts"):
                assert store.missing("t2", channel) == [], channel
                assert (store.last_seq("t2", channel) or 0) >= last[channel]
                assert store.count("t2") >= last["floor"] + last["alerts"]
        finally:
            store.close()
        screenshot(page, "floor-table-caught-up")
    finally:
        page.close()


def test_a_hand_is_reviewed_step_by_step_with_the_journals_stacks(room: Room,
                                                                  browser: Any) -> None:
    t3 = room.tables["t3"]
    t3.start_hand()
    t3.out_of_turn()
    end = t3.play_to_end()
    journal = t3.journal()
    try:
        (hand,) = journal.hands()
    finally:
        journal.close()
    assert hand.stacks_after is not None and hand.phh
    final = {str(k): v for k, v in hand.stacks_after.items()}
    assert end["stacks"] == final
    wait_for(lambda: room.api("/api/hands", table="t3"), "the hand never reached the floor")

    page = browser.new_page(viewport=VIEWPORTS["laptop"])
    try:
        page.goto(room.floor.url + "/")
        sign_in(page)
        page.click('nav button[data-tab="search"]')
        page.fill('#hand-search input[name="table"]', "t3")
        page.click('#hand-search button[type="submit"]')
        page.click('#hands tr[data-table="t3"][data-hand="1"] [data-review]')
        page.wait_for_selector('#review:not([hidden])[data-hand="1"]', timeout=5000)
        steps = page.locator("#review-steps li")
        count = steps.count()
        kinds = [steps.nth(i).get_attribute("data-type") for i in range(count)]
        assert kinds[0] == "hand_start" and kinds[-1] == "hand_end"
        assert kinds.count("card") >= 6 + 8 and "alert" in kinds
        cards = [steps.nth(i).text_content() or "" for i in range(count) if kinds[i] == "card"]
        assert all("seen by rfid" in c for c in cards) and "??" not in "".join(cards)
        alert_text = steps.nth(kinds.index("alert")).text_content() or ""
        assert "ACTION_OUT_OF_TURN" in alert_text and "Remedy:" in alert_text
        review = page.locator("#review")
        seen_pots = []
        for step in range(count - 1):  # step by step, as a person would
            assert review.get_attribute("data-step") == str(step)
            seen_pots.append(int(review.get_attribute("data-pot") or 0))
            page.click("#step-next")
        assert review.get_attribute("data-end") == "true"
        assert json.loads(review.get_attribute("data-stacks") or "{}") == final
        assert max(seen_pots) == 6 and len((review.get_attribute("data-board") or "").split()) == 5
        screenshot(page, "floor-hand-review-end")
        page.click("#step-back")
        assert review.get_attribute("data-end") == "false"
        with page.expect_download() as download:
            page.click("#phh-link")
        assert Path(download.value.path()).read_text() == hand.phh
    finally:
        page.close()
