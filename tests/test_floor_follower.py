"""The follower (in this process, real sockets) against real tables (``run --sim``
processes): a floor that was away catches up from the table's journal with no gap and
acknowledges what it stored; a table off loopback is followed over CurveZMQ with the floor's
own key pair, and a floor whose key the table does not allow gets nothing; a table that never
answers is reported and does not hold up the others."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from table_controller.cli import main
from table_controller.daemon.curve import ClientKeys, load_client_keys
from table_controller.floor.follower import Follower, TableLink
from table_controller.floor.hub import FloorHub
from table_controller.floor.store import FloorStore
from tests.floor_rig import SimTable, free_port, wait_for


class Floor:
    def __init__(self, tmp: Path, tables: dict[str, str]) -> None:
        self.store = FloorStore.open(tmp / "floor.sqlite3")
        self.hub = FloorHub(self.store, tables, time.monotonic)
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.followers: list[Follower] = []

    def follow(self, link: TableLink) -> Follower:
        follower = Follower(link, self.hub, client="floor1", context=self.ctx).start()
        self.followers.append(follower)
        return follower

    def close(self) -> None:
        for follower in self.followers:
            follower.stop()
        self.ctx.destroy(linger=0)
        self.store.close()


def link(table: SimTable, keys: ClientKeys | None = None) -> TableLink:
    e = table.endpoints
    return TableLink(id=table.id, name=table.id, floor=e["floor"], alerts=e["alerts"],
                     console=e["console"], keys=keys)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[SimTable]:
    t = SimTable(tmp_path / "t1", "t1").start()
    try:
        yield t
    finally:
        assert t.stop() == 0


def test_a_floor_that_was_away_catches_up_from_the_journal(tmp_path: Path,
                                                           table: SimTable) -> None:
    floor = Floor(tmp_path, {"t1": "Table 1", "t9": "Nowhere"})
    try:
        first = floor.follow(link(table))
        # a table that is not there: reported offline, and it holds up nobody
        nowhere = SimTable(tmp_path / "t9", "t9")
        floor.follow(link(nowhere))
        wait_for(lambda: floor.hub.table_view("t1")["online"], "t1 never online")
        table.start_hand()
        table.out_of_turn()
        wait_for(lambda: floor.store.alerts("t1"), "the alert never arrived")
        first.stop()  # the floor goes away; the table plays on
        table.play_to_end()
        table.start_hand()
        missed = table.out_of_turn()
        assert missed["id"] in table.ask({"cmd": "status"})["unacknowledged"]
        last = table.journal_last_seqs()
        assert (floor.store.last_seq("t1", "floor") or 0) < last["floor"]

        again = floor.follow(link(table))  # the floor is back
        wait_for(lambda: again.last_seq("floor") >= last["floor"]
                 and again.last_seq("alerts") >= last["alerts"], "never caught up")
        assert again.stats.caught_up > 0 and again.stats.lost == 0
        for channel in ("floor", "alerts"):
            assert floor.store.missing("t1", channel) == []
        assert sorted(a.id for a in floor.store.alerts("t1")) == table.journal_alert_ids()
        played = {h.hand: h for h in floor.store.hands(table="t1")}
        assert played[1].pot == 6 and played[1].end_stacks is not None
        assert played[2].ended is None  # in progress
        # every alert stored was acknowledged as received: the table resends nothing
        wait_for(lambda: not table.journal_pending(), "alerts still pending")
        assert floor.hub.table_view("t9")["online"] is False
        assert floor.hub.tables["t1"].hand == 2  # the snapshot: the hand in progress
    finally:
        floor.close()


def test_a_follower_stopped_again_closes_nobody_elses_descriptors(tmp_path: Path) -> None:
    """The floor's close stops a follower that was stopped before (the floor went away, then
    came back): its wake-up pipe's numbers are by then another's (the new follower's pipe, a
    libzmq socket's, which made libzmq abort in poll with "Bad file descriptor"). Here a pipe
    is put on those numbers: the second stop, and an acknowledgement after it, leave it be."""
    floor = Floor(tmp_path, {"t1": "Table 1"})
    try:
        follower = floor.follow(link(SimTable(tmp_path / "t1", "t1")))  # nobody there
        numbers = (follower._wake_read, follower._wake_write)
        other_read, other_write = os.pipe()  # made now, so on other numbers
        follower.stop()
        for fd in numbers:
            with pytest.raises(OSError):
                os.fstat(fd)  # closed by the first stop
        os.dup2(other_read, numbers[0])
        os.dup2(other_write, numbers[1])
        for fd in (other_read, other_write):
            os.close(fd)
        try:
            follower.stop()
            follower.acknowledge(1, "anna")
            for fd in numbers:
                os.fstat(fd)  # still open
            os.set_blocking(numbers[0], False)
            with pytest.raises(BlockingIOError):
                os.read(numbers[0], 1)  # and nothing was written into it
        finally:
            for fd in numbers:
                os.close(fd)
    finally:
        floor.close()


def test_a_table_off_loopback_is_followed_over_curvezmq(tmp_path: Path) -> None:
    keys = tmp_path / "table-keys"
    assert main(["keys", "new", str(keys)]) == 0
    assert main(["keys", "client", str(keys), "floor1"]) == 0
    assert main(["keys", "new", str(tmp_path / "other")]) == 0
    assert main(["keys", "client", str(tmp_path / "other"), "stranger"]) == 0
    floor_keys = tmp_path / "floor-keys"
    floor_keys.mkdir()
    shutil.move(keys / "clients" / "floor1.key_secret", floor_keys / "floor1.key_secret")
    bus = {name: f"tcp://127.0.0.1:{free_port()}" for name in
           ("public", "floor", "console", "alerts")}
    bus["keys"] = str(keys)
    t = SimTable(tmp_path / "t1", "t1", bus=bus)
    good = load_client_keys(floor_keys / "floor1.key_secret", keys / "server.key")
    t.keys = good
    t.start()
    floor = Floor(tmp_path, {"t1": "Table 1"})
    stranger = Floor(tmp_path / "stranger", {"t1": "Table 1"})
    try:
        floor.follow(link(t, good))
        stranger.follow(link(t, load_client_keys(
            tmp_path / "other" / "clients" / "stranger.key_secret", keys / "server.key")))
        wait_for(lambda: floor.hub.table_view("t1")["online"], "never online over CurveZMQ")
        t.start_hand()
        alert = t.out_of_turn()
        wait_for(lambda: [a.id for a in floor.store.alerts("t1")] == [alert["id"]],
                 "the alert never arrived")
        assert floor.store.missing("t1", "floor") == []
        assert not stranger.hub.table_view("t1")["online"]  # refused by the table's ZAP
        assert stranger.store.count() == 0
    finally:
        floor.close()
        stranger.close()
        assert t.stop() == 0
