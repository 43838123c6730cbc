"""The dealer station's HTTP side on real sockets (uvicorn on loopback, port 0), the controller's
loop on its own thread: the page and its files, requests answered like the console's, the live
stream that catches up after a lost connection with no view twice and none missing, the token
of a networked station, the loopback guard, and what a bad request gets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from table_controller.config import TableConfigError, parse_config
from table_controller.daemon.bus import console_request
from table_controller.station.bridge import ViewHub
from tests.station_kit import Loop, StationRig, make_station_rig

TOKEN = "0123456789abcdef-station"
BASE: dict[str, Any] = {"rfid": {"port": "loop://"}, "decks": {"db": "decks.sqlite"}}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[StationRig]:
    yield from make_station_rig(tmp_path, serve=True)


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[StationRig]:
    yield from make_station_rig(tmp_path, serve=True, token=TOKEN)


def url(rig: StationRig) -> str:
    assert rig.station.url is not None
    return rig.station.url


class Events:
    """The server-sent events of a response, read as they come (pings skipped)."""

    def __init__(self, response: httpx.Response) -> None:
        self._lines = response.iter_lines()

    def next(self, count: int) -> list[dict[str, Any]]:
        return _read(self._lines, count)


def _read(lines: Iterator[str], count: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    block: dict[str, str] = {}
    for line in lines:
        if not line:
            if "data" in block:
                out.append({"event": block.get("event", "message"), "id": block.get("id"),
                            **json.loads(block["data"])})
                if len(out) == count:
                    return out
            block = {}
        elif not line.startswith(":"):
            key, _, value = line.partition(":")
            block[key] = value[1:] if value.startswith(" ") else value
    raise AssertionError(f"the stream ended after {len(out)} event(s)")


def console(rig: StationRig, request: dict[str, Any]) -> dict[str, Any]:
    assert rig.controller.console is not None
    answer = console_request(rig.controller.console.endpoint, request, timeout=10)
    assert answer["ok"], answer
    return answer


def test_the_page_is_served_whole_and_light(rig: StationRig) -> None:
    with httpx.Client(base_url=url(rig), timeout=10) as http:
        page = http.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        total = len(page.content)
        for name in ("station.js", "station.css", "cards.js"):
            assert f"/static/{name}" in page.text
            part = http.get(f"/static/{name}")
            assert part.status_code == 200 and part.headers["cache-control"] == "no-cache"
            total += len(part.content)
        assert total < 300_000  # issue 12: the page's weight (it draws its own cards)
        assert "http://" not in page.text and "https://" not in page.text  # no CDN


def test_requests_are_answered_like_the_console(rig: StationRig) -> None:
    with Loop(rig), httpx.Client(base_url=url(rig), timeout=10) as http:
        answer = http.post("/api/request", json={"cmd": "seat_player", "seat": 4, "stack": 50,
                                                 "name": "Ann"}).json()
        assert answer["ok"] and answer["stacks"]["4"] == 50
        view = http.get("/api/view").json()
        assert view["seq"] >= answer["seq"] and view["seats"][3]["name"] == "Ann"
        refused = http.post("/api/request", json={"cmd": "action", "seat": 1, "kind": "fold"})
        assert refused.status_code == 200
        assert refused.json()["ok"] is False
        assert refused.json()["error"] == "console fold by seat 1: no hand is running"
        unknown = http.post("/api/request", json={"cmd": "action", "seat": 1, "kind": "fold",
                                                  "amonut": 3}).json()
        assert not unknown["ok"] and "unknown field 'amonut'" in unknown["error"]
        assert http.post("/api/request", content=b'{"cmd": "status"}',
                         headers={"content-type": "text/plain"}).status_code == 415
        assert http.post("/api/request", content=b"{nope",
                         headers={"content-type": "application/json"}).status_code == 400
        assert http.post("/api/request", json=[1, 2]).status_code == 400
        big = http.post("/api/request", json={"cmd": "status", "pad": "x" * 5000})
        assert big.status_code == 413
    assert rig.table.stacks == {1: 100, 2: 100, 3: 100, 4: 50}


def test_a_lost_stream_catches_up_with_every_view_once(rig: StationRig) -> None:
    with Loop(rig), httpx.Client(base_url=url(rig), timeout=10) as http:
        with http.stream("GET", "/api/events") as response:
            stream = Events(response)
            (hello,) = stream.next(1)
            assert hello["event"] == "resync" and isinstance(hello["now"], int)
            boot, seq = hello["view"]["boot"], hello["view"]["seq"]
            assert hello["id"] == f"{boot}.{seq}"
            console(rig, {"cmd": "name_player", "seat": 1, "name": "Bob"})
            live = until_named(stream, seq, 0, "Bob")
            last = live[-1]["view"]["seq"]
        for name in ("Cy", "Di", "Ed"):  # changes while the page is away
            console(rig, {"cmd": "name_player", "seat": 2, "name": name})
        headers = {"Last-Event-ID": f"{boot}.{last}"}
        with http.stream("GET", "/api/events", headers=headers) as response:
            missed = until_named(Events(response), last, 1, "Ed")
        names = [e["view"]["seats"][1]["name"] for e in missed]
        changes = [n for i, n in enumerate(names) if i == 0 or n != names[i - 1]]
        # in order; requests served in the same step of the loop show in one view
        assert changes in (["Cy", "Di", "Ed"], ["Cy", "Ed"], ["Di", "Ed"], ["Ed"]), names
        latest = missed[-1]["view"]["seq"]
        with http.stream("GET", f"/api/events?since=another-boot.{seq}") as response:
            (fresh,) = Events(response).next(1)  # a restarted controller: start over
        assert fresh["event"] == "resync" and fresh["view"]["seq"] >= latest


def until_named(stream: Events, after: int, index: int, name: str) -> list[dict[str, Any]]:
    """Views from the stream until seat ``index + 1`` is called ``name``: each one the view
    after the one before (one seq more, never twice, none missing)."""
    out: list[dict[str, Any]] = []
    expected = after + 1
    while True:
        (event,) = stream.next(1)
        assert event["event"] == "view" and event["view"]["seq"] == expected, event["id"]
        assert event["id"] == f"{event['view']['boot']}.{expected}"
        out.append(event)
        expected += 1
        if event["view"]["seats"][index]["name"] == name:
            return out


def test_the_hub_resyncs_a_page_that_missed_more_than_it_keeps() -> None:
    hub = ViewHub("b", ring=3)
    for n in range(6):
        hub.publish({"n": n})
    assert hub.publish({"n": 5}) == 6  # no change, no new seq
    assert [s for s, _ in hub.after(4)[0]] == [5, 6] and hub.after(4)[1] is False
    views, resync = hub.after(1)
    assert resync and [s for s, _ in views] == [6]
    assert hub.after(6) == ([], False)


def test_a_station_with_a_token_wants_it(guarded: StationRig) -> None:
    with httpx.Client(base_url=url(guarded), timeout=10) as http:
        assert http.get("/api/view").status_code == 401
        assert http.get("/").status_code == 401
        assert http.post("/api/request", json={"cmd": "status"}).status_code == 401
        assert http.get("/?token=wrong").status_code == 401
        bearer = http.get("/api/view", headers={"Authorization": f"Bearer {TOKEN}"})
        assert bearer.status_code == 200 and bearer.json()["seq"] >= 1
        signed = http.get(f"/?token={TOKEN}", follow_redirects=False)
        assert signed.status_code == 303 and signed.headers["location"] == "/"
        cookie = signed.headers["set-cookie"]
        assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
        assert http.get("/").status_code == 200  # the cookie from now on
        assert http.get("/api/view").status_code == 200


def test_without_a_token_only_loopback_names_are_answered(rig: StationRig) -> None:
    with httpx.Client(base_url=url(rig), timeout=10) as http:
        rebound = http.get("/api/view", headers={"Host": "evil.example:8080"})
        assert rebound.status_code == 403 and "loopback" in rebound.json()["error"]
        assert http.get("/api/view", headers={"Host": "localhost:8080"}).status_code == 200


@pytest.mark.parametrize(("station", "problem"), [
    ({"listen": "0.0.0.0:8080"}, "station.token: required"),
    ({"listen": "0.0.0.0:8080", "token": "short"}, "at least 16"),
    ({"listen": "8080"}, "is not HOST:PORT"),
    ({"listen": "127.0.0.1:8080", "colour": "red"}, "station.colour: unknown key"),
    ({"clock_time": 0}, "station.clock_time: 0 is out of range"),
])
def test_station_configuration_errors(station: dict[str, Any], problem: str) -> None:
    with pytest.raises(TableConfigError, match=problem):
        parse_config({**BASE, "station": station}, path="t.toml")


def test_station_configuration() -> None:
    assert parse_config(BASE, path="t.toml").station.listen == "127.0.0.1:8080"
    assert parse_config({**BASE, "station": {"listen": "none"}},
                        path="t.toml").station.listen is None
    networked = parse_config({**BASE, "station": {"listen": "0.0.0.0:8080", "token": TOKEN,
                                                  "clock_time": 30}}, path="t.toml").station
    assert networked.token == TOKEN and networked.clock_time == 30.0
