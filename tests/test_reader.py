"""RfidReader on a clock the test drives: debouncing, moves, identities, outages, reconciliation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    DeviceError,
    DeviceHello,
    FramesLost,
    HostMessage,
    InventoryBegin,
    InventoryEnd,
    InventoryEntry,
    InventoryRequest,
    TagGone,
    TagSeen,
)
from firmware_bridge.reader import SCAN_BURST_GAP, RfidReader
from firmware_bridge.rfid_config import (
    DEFAULT_ANTENNA_ZONES,
    ReaderConfig,
    RfidConfig,
    RfidConfigError,
)
from firmware_bridge.tags import TagIdentity
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import (
    CardEvent,
    CardObservation,
    Observation,
    SensorStatus,
)

AS, KD = b"\x04\x00\x00\x01", b"\x04\x00\x00\x02"
FOREIGN, JOKER, BROKEN = b"\x05\x00\x00\x01", b"\x05\x00\x00\x02", b"\xee\xee"
HELLO = DeviceHello(1, 0, (1, 0, 0), 14, 1, 100, "test")


class MemoryResolver:
    """A tiny stand-in for the deck registry."""

    def __init__(self) -> None:
        self.table = {
            AS: TagIdentity(card=parse_card("As"), deck="red", active=True),
            KD: TagIdentity(card=parse_card("Kd"), deck="red", active=True),
            FOREIGN: TagIdentity(card=parse_card("As"), deck="blue", active=False),
            JOKER: TagIdentity(card=None, deck="red", active=False, joker=True),
        }

    def identify(self, uid: bytes) -> TagIdentity:
        if uid == BROKEN:
            raise RuntimeError("registry database locked")
        return self.table.get(uid, TagIdentity(card=None, deck=None, active=False))


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class Harness:
    """A reader wired to a fake controller that answers inventories from ``tags``."""

    def __init__(self, *, hold: float = 0.6, answer: bool = True) -> None:
        self.clock = Clock()
        self.out: list[Observation] = []
        self.sent: list[HostMessage] = []
        self.tags: dict[bytes, int] = {}
        self.answer = answer
        self.reader = RfidReader(resolver=MemoryResolver(), config=ReaderConfig(hold_time=hold),
                                 sink=self.out.append, clock=self.clock, send=self._send)

    def _send(self, msg: HostMessage) -> bool:
        self.sent.append(msg)
        if self.answer and isinstance(msg, InventoryRequest):
            self.answer_inventory(msg.request_id)
        return True

    def answer_inventory(self, rid: int, *, drop: int = 0) -> None:
        r = self.reader
        r.received(InventoryBegin(rid, 0))
        entries = sorted(self.tags.items())
        for uid, ant in entries[drop:]:
            r.received(InventoryEntry(rid, ant, uid))
        r.received(InventoryEnd(rid, len(entries)))

    def connect(self) -> None:
        self.reader.link_up(HELLO)

    def seen(self, uid: bytes, ant: int) -> None:
        self.tags[uid] = ant
        self.reader.received(TagSeen(ant, uid, 0))

    def gone(self, uid: bytes) -> None:
        ant = self.tags.pop(uid)
        self.reader.received(TagGone(ant, uid, 0))

    def at(self, t: float) -> None:
        self.clock.t = t
        self.reader.poll(t)

    def cards(self) -> list[tuple[str, str, float]]:
        """(event, zone, t) of the card observations so far, and clear them."""
        got = [(o.event.value, o.zone, o.t) for o in self.out if isinstance(o, CardObservation)]
        self.out.clear()
        return got


@pytest.fixture
def h() -> Harness:
    harness = Harness()
    harness.connect()
    status = harness.out.pop()
    assert isinstance(status, SensorStatus) and status.online and "connected" in status.detail
    return harness


def test_placement_is_reported_at_once_with_identity(h: Harness) -> None:
    h.seen(AS, 2)
    (obs,) = h.out
    assert isinstance(obs, CardObservation)
    assert (obs.event, obs.zone, obs.t, obs.card, obs.deck, obs.foreign, obs.key) == (
        CardEvent.PLACED, "seat3", 100.0, parse_card("As"), "red", False, AS.hex())


def test_foreign_joker_unknown_and_failing_resolver(h: Harness) -> None:
    for uid, ant in ((FOREIGN, 10), (JOKER, 10), (b"\x09\x09", 10), (BROKEN, 10)):
        h.seen(uid, ant)
    obs = [o for o in h.out if isinstance(o, CardObservation)]
    assert [(o.foreign, o.joker, o.deck) for o in obs] == [
        (True, False, "blue"), (False, True, "red"), (True, False, None), (True, False, None)]
    assert h.reader.stats.resolver_errors == 1


def test_flicker_shorter_than_hold_is_not_reported(h: Harness) -> None:
    h.seen(AS, 0)
    h.cards()
    for k in range(5):  # five dropouts of 0.5 s each, every one shorter than the 0.6 s hold
        h.at(100.0 + k)
        h.gone(AS)
        h.at(100.5 + k)
        h.seen(AS, 0)
    h.at(110.0)
    assert h.cards() == []
    assert h.reader.stats.flicker_absorbed == 5


def test_removal_is_reported_when_the_hold_runs_out(h: Harness) -> None:
    h.seen(AS, 0)
    h.at(101.0)
    h.gone(AS)
    h.at(101.59)
    assert h.cards() == [("placed", "seat1", 100.0)]
    h.at(105.0)  # polled late: the removal carries the time its hold ran out
    ((event, zone, t),) = h.cards()
    assert (event, zone) == ("removed", "seat1") and t == pytest.approx(101.6)
    assert h.reader.present() == {}


def test_times_never_go_back_when_an_event_comes_after_an_unpolled_expiry(h: Harness) -> None:
    h.seen(AS, 0)
    h.gone(AS)
    h.clock.t = 103.0  # no poll between: the next event flushes the expired hold first
    h.seen(KD, 1)
    got = h.cards()
    assert got == [("placed", "seat1", 100.0), ("removed", "seat1", pytest.approx(100.6)),
                   ("placed", "seat2", 103.0)]


def test_a_tag_read_on_another_antenna_moves_at_once(h: Harness) -> None:
    h.seen(AS, 0)
    h.at(101.0)
    h.gone(AS)          # picked up from seat1 ...
    h.at(101.2)
    h.seen(AS, 12)      # ... and laid in the muck
    h.at(105.0)
    assert h.cards() == [("placed", "seat1", 100.0), ("removed", "seat1", 101.2),
                         ("placed", "muck", 101.2)]
    assert h.reader.present() == {"muck": {AS.hex()}}


def test_seen_elsewhere_before_gone_here_is_one_move(h: Harness) -> None:
    h.seen(AS, 0)
    h.reader.received(TagSeen(10, AS, 0))
    h.reader.received(TagGone(0, AS, 0))  # stale: the tag already moved
    h.at(110.0)
    assert [e[:2] for e in h.cards()] == [("placed", "seat1"), ("removed", "seat1"),
                                          ("placed", "board")]
    assert h.reader.stats.stale_gone == 1


def test_unmapped_antenna_is_ignored_and_counted() -> None:
    h = Harness()
    h.reader = RfidReader(resolver=MemoryResolver(), sink=h.out.append, clock=h.clock,
                          config=ReaderConfig(antenna_zones={0: "board"}), send=h._send)
    h.connect()
    h.out.clear()
    h.seen(AS, 5)
    assert h.out == [] and h.reader.stats.unmapped_reads == 1


def test_unplug_and_reconcile_no_loss_no_double(h: Harness) -> None:
    h.seen(AS, 0)           # stays put through the outage
    h.seen(KD, 1)           # will be taken away while the link is down
    h.at(100.5)
    h.gone(AS)              # a flicker in progress when the link drops
    h.cards()
    h.at(101.0)
    h.reader.link_down("cable pulled")
    h.reader.link_down("cannot open /dev/ttyACM0")   # retries do not repeat the alert
    offline = [o for o in h.out if isinstance(o, SensorStatus)]
    assert [(s.online, s.t) for s in offline] == [(False, 101.0)]
    h.out.clear()
    # while down: nothing expires, whatever the time
    h.at(130.0)
    assert h.out == []
    # the table changed meanwhile
    h.tags = {AS: 0, FOREIGN: 4}
    h.connect()  # the fake controller answers the inventory at once
    h.at(131.0)
    got = [(o.event.value, o.zone) if isinstance(o, CardObservation) else ("status", o.online)
           for o in h.out if isinstance(o, CardObservation | SensorStatus)]
    assert got == [("placed", "seat5"), ("status", True), ("removed", "seat2")]
    assert "recovered" in next(o for o in h.out if isinstance(o, SensorStatus)).detail


def test_card_missing_from_one_inventory_but_read_again_is_not_reported(h: Harness) -> None:
    h.seen(AS, 0)
    h.cards()
    h.reader.link_down("unplugged")
    h.tags = {}                       # the inventory catches it in a flicker
    h.clock.t = 130.0
    h.connect()
    h.at(130.3)
    h.seen(AS, 0)                     # read again within the hold
    h.at(140.0)
    assert h.cards() == []


def test_lost_frames_trigger_an_inventory_and_reconcile(h: Harness) -> None:
    h.seen(AS, 0)
    h.tags[KD] = 3    # its TAG_SEEN was lost on the line
    del h.tags[AS]    # and so was AS's TAG_GONE
    h.reader.frames_lost(FramesLost(2, "sequence gap: expected 5, got 7"))
    h.at(101.0)
    assert [e[:2] for e in h.cards()] == [("placed", "seat1"), ("placed", "seat4"),
                                          ("removed", "seat1")]
    assert h.reader.stats.frames_lost == 2
    assert not [o for o in h.out if isinstance(o, SensorStatus)]


def test_incomplete_inventory_is_asked_again() -> None:
    h = Harness(answer=False)
    h.tags = {AS: 0, KD: 1}
    h.connect()
    (first,) = h.sent
    assert isinstance(first, InventoryRequest)
    h.answer_inventory(first.request_id, drop=1)   # an entry was lost: count mismatch
    assert not h.reader.online and len(h.sent) == 2
    second = h.sent[-1]
    assert isinstance(second, InventoryRequest)
    h.answer_inventory(first.request_id)           # a late answer to the old request: ignored
    assert not h.reader.online
    h.answer_inventory(second.request_id)
    assert h.reader.online
    assert [e[:2] for e in h.cards()] == [("placed", "seat1"), ("placed", "seat2")]


def test_unanswered_inventory_is_asked_again_after_the_timeout() -> None:
    h = Harness(answer=False)
    h.connect()
    h.at(100.5)
    assert len(h.sent) == 1
    h.at(101.0)
    assert len(h.sent) == 2 and h.reader.stats.inventories_discarded == 1


def test_device_errors_are_counted_and_named(h: Harness) -> None:
    h.reader.received(DeviceError(1, 10, "open circuit"))
    assert h.reader.stats.device_errors == 1
    assert h.reader.stats.last_device_error == "ANTENNA_FAULT on antenna 10 (board): open circuit"


def test_a_failing_sink_does_not_stop_the_reader() -> None:
    calls: list[Observation] = []

    def sink(obs: Observation) -> None:
        calls.append(obs)
        raise RuntimeError("consumer bug")

    reader = RfidReader(resolver=MemoryResolver(), sink=sink, clock=Clock(),
                        send=lambda m: True)
    reader.link_up(HELLO)
    reader.received(TagSeen(0, AS, 0))
    reader.received(TagSeen(1, KD, 0))
    assert len(calls) == 2


def test_config_from_toml_table_and_errors_name_the_key() -> None:
    cfg = RfidConfig.from_dict({"port": "/dev/ttyACM0", "hold_time": 0.4,
                                "antennas": {"0": "seat1", "1": "board"}, "rx_timeout": 3})
    assert cfg.reader.hold_time == 0.4 and dict(cfg.reader.antenna_zones) == {0: "seat1",
                                                                              1: "board"}
    assert cfg.link.rx_timeout == 3
    assert RfidConfig.from_dict({"port": "loop://"}).reader.antenna_zones == DEFAULT_ANTENNA_ZONES
    bad: list[tuple[dict[str, object], str]] = [
        ({}, "rfid.port"),
        ({"port": "x", "hold": 1}, "unknown key"),
        ({"port": "x", "antennas": {"0": "seat11"}}, "rfid.antennas.0"),
        ({"port": "x", "antennas": {"zero": "seat1"}}, "key 'zero'"),
        ({"port": "x", "hold_time": 0}, "rfid.hold_time"),
        ({"port": "x", "hold_time": "long"}, "rfid"),
        ({"port": "x", "baudrate": -5}, "rfid.baudrate"),
        ({"port": "x", "rx_timeout": 0.1}, "rx_timeout"),
    ]
    for table, needle in bad:
        with pytest.raises(RfidConfigError, match=needle):
            RfidConfig.from_dict(table)


def test_controller_restart_on_a_live_link_resyncs_without_a_status(h: Harness) -> None:
    h.seen(AS, 0)
    h.tags[KD] = 1            # placed while the controller rebooted
    h.connect()               # its new HELLO: the reader asks an inventory again
    assert [e[:2] for e in h.cards()] == [("placed", "seat1"), ("placed", "seat2")]
    assert not [o for o in h.out if isinstance(o, SensorStatus)]
    assert h.reader.online and h.reader.stats.inventories_completed == 2


# ---------------------------------------------------------------- model-based: random sessions

N_TAGS, N_ANTENNAS = 6, 4
TAG_UIDS = [bytes([0x04, 0x10, i]) for i in range(N_TAGS)]

op_strategy = st.one_of(
    st.tuples(st.just("place"), st.integers(0, N_TAGS - 1), st.integers(0, N_ANTENNAS - 1)),
    st.tuples(st.just("remove"), st.integers(0, N_TAGS - 1), st.just(0)),
    st.tuples(st.just("flicker"), st.integers(0, N_TAGS - 1), st.integers(1, 3)),
    st.tuples(st.just("link"), st.just(0), st.just(0)),
    st.tuples(st.just("lose"), st.just(0), st.just(0)),
    st.tuples(st.just("wait"), st.just(0), st.integers(1, 12)),
)


class Device:
    """A controller as docs/protocol.md §5.3 describes it: raw edges per cycle, inventories from
    the last cycle."""

    def __init__(self) -> None:
        self.model: dict[bytes, int] = {}
        self.reported: dict[bytes, int] = {}
        self.misses: dict[bytes, int] = {}

    def cycle(self) -> list[TagSeen | TagGone]:
        read = {}
        for uid, ant in self.model.items():
            if self.misses.get(uid, 0) > 0:
                self.misses[uid] -= 1
            else:
                read[uid] = ant
        edges: list[TagSeen | TagGone] = [
            TagGone(ant, uid, 0) for uid, ant in self.reported.items() if read.get(uid) != ant]
        edges += [TagSeen(ant, uid, 0) for uid, ant in read.items()
                  if self.reported.get(uid) != ant]
        self.reported = read
        return edges


@settings(max_examples=120, derandomize=True, deadline=None)
@given(ops=st.lists(op_strategy, min_size=1, max_size=40))
def test_random_sessions_lose_nothing_and_report_still_cards_once(
        ops: list[tuple[str, int, int]]) -> None:
    """Places, removals, moves, flicker shorter than the hold, link drops and lost frames in any
    order: once the table is still, the reader holds exactly what lies on the antennas, every
    tag's events alternate placed/removed, and a tag that never moved was placed exactly once."""
    clock = Clock()
    out: list[Observation] = []
    dev = Device()
    link_up = True

    def send(msg: HostMessage) -> bool:
        if not link_up:
            return False
        if isinstance(msg, InventoryRequest):
            reader.received(InventoryBegin(msg.request_id, 0))
            for uid, ant in dev.reported.items():
                reader.received(InventoryEntry(msg.request_id, ant, uid))
            reader.received(InventoryEnd(msg.request_id, len(dev.reported)))
        return True

    zones = {a: f"seat{a + 1}" for a in range(N_ANTENNAS)}
    reader = RfidReader(resolver=MemoryResolver(), sink=out.append, clock=clock, send=send,
                        config=ReaderConfig(antenna_zones=zones, hold_time=0.6))
    reader.link_up(HELLO)
    moved: set[bytes] = set()

    def step(lose: bool = False) -> None:
        clock.t += 0.1
        edges = dev.cycle()
        if link_up and not lose:
            for e in edges:
                reader.received(e)
        elif link_up and edges:
            reader.frames_lost(FramesLost(len(edges), "test: frames lost"))
        reader.poll(clock.t)

    for op, a, b in ops:
        uid = TAG_UIDS[a]
        if op == "place":
            if uid in dev.model and dev.model[uid] != b:
                moved.add(uid)
            dev.model[uid] = b
        elif op == "remove" and uid in dev.model:
            del dev.model[uid]
            moved.add(uid)
        elif op == "flicker" and uid in dev.reported and not dev.misses.get(uid):
            dev.misses[uid] = b   # at most 3 cycles (0.3 s), then at least one read
        elif op == "link":
            link_up = not link_up
            if link_up:
                reader.link_up(HELLO)
            else:
                reader.link_down("test: unplugged")
        for _ in range(b if op == "wait" else 1):
            step(lose=op == "lose")
    if not link_up:
        link_up = True
        reader.link_up(HELLO)
    dev.misses.clear()
    for _ in range(10):   # 1 s of a still table: every hold runs out
        step()

    want: dict[str, set[str]] = {}
    for uid, ant in dev.model.items():
        want.setdefault(zones[ant], set()).add(uid.hex())
    assert reader.present() == want
    events: dict[str, list[tuple[CardEvent, str]]] = {}
    for o in out:
        if isinstance(o, CardObservation):
            events.setdefault(o.key, []).append((o.event, o.zone))
    for key, evs in events.items():
        kinds = [e for e, _ in evs]
        assert kinds[::2] == [CardEvent.PLACED] * len(kinds[::2]), (key, evs)
        assert kinds[1::2] == [CardEvent.REMOVED] * len(kinds[1::2]), (key, evs)
        for (_, placed_in), (_, removed_from) in zip(evs[::2], evs[1::2], strict=False):
            assert placed_in == removed_from, (key, evs)
    for uid in dev.model:
        if uid not in moved:
            assert len(events[uid.hex()]) == 1, (uid.hex(), events[uid.hex()])
    times = [o.t for o in out]
    assert times == sorted(times)


def test_hold_restarts_after_an_outage(h: Harness) -> None:
    """A tag in its hold when the link drops, and caught in a flicker again by the inventory
    after the reconnect, gets a full hold from the inventory: the outage is not absence."""
    h.seen(AS, 0)
    h.at(100.1)
    h.gone(AS)
    h.at(100.2)
    h.reader.link_down("unplugged")
    h.clock.t = 130.0
    h.connect()              # the inventory misses it too
    h.at(130.4)
    h.seen(AS, 0)
    h.at(140.0)
    assert h.cards() == [("placed", "seat1", 100.0)]


def test_controller_tx_overflow_triggers_an_inventory(h: Harness) -> None:
    h.seen(AS, 0)
    h.tags[KD] = 5                     # its TAG_SEEN was dropped inside the controller
    h.reader.received(DeviceError(3, 0xFF, "tx queue full, 1 frame dropped"))
    assert [e[:2] for e in h.cards()] == [("placed", "seat1"), ("placed", "seat6")]


def test_the_edges_of_one_scan_cycle_carry_its_first_time(h: Harness) -> None:
    """A cycle's edges arrive together at its end, a frame every millisecond or two: they are
    one look (time of the first), and the reader says the burst may still be arriving until
    :data:`SCAN_BURST_GAP` passes with no edge."""
    h.at(100.0)
    h.seen(AS, 0)
    h.clock.t = 100.0015
    h.seen(KD, 6)
    assert h.cards() == [("placed", "seat1", 100.0), ("placed", "seat7", 100.0)]
    assert h.reader.burst_open(100.0015) == 100.0
    assert h.reader.burst_open(100.0015 + SCAN_BURST_GAP + 1e-6) is None
    h.clock.t = 100.17  # the next cycle
    h.gone(AS)
    h.clock.t = 100.1712
    h.seen(AS, 1)
    assert h.cards() == [("removed", "seat1", 100.17), ("placed", "seat2", 100.17)]
    assert h.reader.burst_open(100.18) == 100.17


def test_a_burst_never_goes_back_before_a_removal_reported(h: Harness) -> None:
    h.seen(AS, 0)
    h.gone(AS)
    h.at(100.0 + 0.6)  # the hold ran out: removed at 100.6
    h.clock.t = 100.61
    h.seen(KD, 2)
    h.clock.t = 100.611
    h.seen(AS, 3)
    times = [t for _e, _z, t in h.cards()]
    assert times == sorted(times) and times[-2:] == [100.61, 100.61]
