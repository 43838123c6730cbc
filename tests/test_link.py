"""The whole RFID chain over a real pseudo-terminal with real pyserial: VirtualRfidController ->
pty -> SerialLink -> RfidReader. Every wait is on a queue, a condition or an event, with a
timeout; nothing sleeps hoping the other side is done."""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
import serial

from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import (
    BuzzerPattern,
    DeviceErrorCode,
    DeviceHello,
    DeviceMessage,
    FramesLost,
    LampPattern,
    SetOutputs,
    TagSeen,
)
from firmware_bridge.reader import RfidReader
from firmware_bridge.rfid import RfidService
from firmware_bridge.rfid_config import DEFAULT_ANTENNA_ZONES, LinkConfig, ReaderConfig, RfidConfig
from firmware_bridge.tags import TagIdentity
from hw_sim.devices.rfid_controller import NO_FLICKER, FlickerModel, VirtualRfidController
from table_controller.vocabulary.cards import DECK, Card
from table_controller.vocabulary.observations import (
    CardEvent,
    CardObservation,
    Observation,
    SensorStatus,
)

WAIT = 5.0
FAST = LinkConfig(heartbeat_interval=0.1, rx_timeout=2.0, handshake_timeout=1.0,
                  backoff_initial=0.02, backoff_max=0.1)
"""Quick heartbeats and retries; the silence timeout stays generous so that a loaded test
machine does not drop the link where a test does not mean it to."""
UIDS = {card: bytes([0xE0, 0x04, 0x01, 0xA0, 0x5C, 0x00, card.index, card.index * 7 & 0xFF])
        for card in DECK}
CARDS = {uid: card for card, uid in UIDS.items()}
SENTINEL = bytes.fromhex("e00401ffffff")
ANTENNA = {zone: ant for ant, zone in DEFAULT_ANTENNA_ZONES.items()}


class Resolver:
    def identify(self, uid: bytes) -> TagIdentity:
        card = CARDS.get(uid)
        return TagIdentity(card=card, deck="red" if card else None, active=card is not None)


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@dataclass
class Rig:
    ctrl: VirtualRfidController
    reader: RfidReader
    link: SerialLink
    log: list[Observation]
    sentinels: int = 0

    def next(self, what: Callable[[Observation], bool], label: str) -> Observation:
        """The next observation matching ``what``; the ones skipped stay in :attr:`log`."""
        while True:
            try:
                obs = self.reader.observations.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no {label} within {WAIT} s; got {self.log!r}") from None
            self.log.append(obs)
            if what(obs):
                return obs

    def status(self, online: bool) -> SensorStatus:
        obs = self.next(lambda o: isinstance(o, SensorStatus) and o.online is online,
                        f"SensorStatus(online={online})")
        assert isinstance(obs, SensorStatus)
        return obs

    def card(self, event: CardEvent, uid: bytes, zone: str) -> None:
        self.next(lambda o: isinstance(o, CardObservation) and o.event is event
                  and o.key == uid.hex() and o.zone == zone, f"{event.value} {uid.hex()} {zone}")

    def barrier(self) -> None:
        """Everything the controller sent before now has been handled by the reader: a fresh
        sentinel tag is placed and its placement awaited (frames arrive in order)."""
        self.sentinels += 1
        uid = SENTINEL + bytes([self.sentinels, self.sentinels * 13 & 0xFF])
        self.ctrl.place(uid, ANTENNA["shuffler"])
        self.ctrl.scan(self.ctrl.flicker.max_burst_cycles + 1)  # read at least once
        self.card(CardEvent.PLACED, uid, "shuffler")
        self.ctrl.remove(uid)
        self.ctrl.scan_once()

    def deal(self, card: Card, zone: str) -> None:
        self.ctrl.place(UIDS[card], ANTENNA[zone])
        self.ctrl.scan_once()


def make_rig(*, flicker: FlickerModel = NO_FLICKER, hold: float = 0.3,
             clock: Callable[[], float] | None = None, link: LinkConfig = FAST,
             url: str | None = None, **ctrl_kw: object) -> Rig:
    ctrl = VirtualRfidController(flicker=flicker, seed=3, heartbeat_interval=0.1,
                                 **ctrl_kw)  # type: ignore[arg-type]
    ctrl.start()
    reader = RfidReader(resolver=Resolver(), config=ReaderConfig(hold_time=hold),
                        **({"clock": clock} if clock else {}))  # type: ignore[arg-type]
    serial_link = SerialLink(url=url or ctrl.path, listener=reader, config=link)
    reader.bind(serial_link.send)
    serial_link.start()
    return Rig(ctrl, reader, serial_link, [])


@pytest.fixture
def rig() -> Iterator[Rig]:
    r = make_rig()
    yield r
    r.link.stop()
    r.ctrl.stop()


def card_log(log: list[Observation]) -> list[tuple[str, str, str]]:
    return [(o.event.value, str(o.card), o.zone) for o in log
            if isinstance(o, CardObservation) and not o.key.startswith(SENTINEL.hex())]


def test_handshake_inventory_and_heartbeats(rig: Rig) -> None:
    status = rig.status(True)
    assert "connected" in status.detail and "firmware 1.0.0, 14 antennas" in status.detail
    assert rig.link.device is not None and rig.link.device.model == "hw_sim virtual"
    assert rig.ctrl.hellos >= 1 and rig.ctrl.inventories >= 1
    assert rig.ctrl.wait_until(lambda: rig.ctrl.host_heartbeats >= 2, WAIT)
    assert rig.reader.online


def test_tag_events_become_card_observations(rig: Rig) -> None:
    rig.status(True)
    ace, king = DECK[48], DECK[46]
    rig.deal(ace, "seat3")
    rig.card(CardEvent.PLACED, UIDS[ace], "seat3")
    rig.deal(king, "board")
    rig.card(CardEvent.PLACED, UIDS[king], "board")
    rig.ctrl.remove(UIDS[ace])
    rig.ctrl.scan_once()
    rig.card(CardEvent.REMOVED, UIDS[ace], "seat3")
    placed = [o for o in rig.log if isinstance(o, CardObservation)]
    assert placed[0].card == ace and not placed[0].foreign and placed[0].deck == "red"
    assert rig.reader.present() == {"board": {UIDS[king].hex()}}


def test_set_outputs_reach_the_controller(rig: Rig) -> None:
    rig.status(True)
    msg = SetOutputs(LampPattern.BLINK_FAST, BuzzerPattern.BEEP, 2000)
    assert rig.reader.set_outputs(msg)
    assert rig.ctrl.wait_until(lambda: rig.ctrl.outputs == msg, WAIT)


def test_device_error_is_counted(rig: Rig) -> None:
    rig.status(True)
    rig.ctrl.report_error(DeviceErrorCode.ANTENNA_FAULT, antenna=4, detail="no carrier")
    rig.barrier()
    assert rig.reader.stats.last_device_error == "ANTENNA_FAULT on antenna 4 (seat5): no carrier"


def test_garbage_on_the_line_loses_nothing(rig: Rig) -> None:
    rig.status(True)
    cards = list(DECK[:12])
    for i, card in enumerate(cards):
        rig.ctrl.inject_garbage(size=40 + i)
        rig.deal(card, f"seat{i % 10 + 1}")
    rig.ctrl.inject_garbage(b"\x00\x07\x83\x00\x00\x11\x22\x00" + b"\x55" * 600)
    rig.barrier()
    stats = rig.link.stats
    assert stats.frames.frames_bad > 0
    assert rig.reader.present().get("seat1") == {UIDS[cards[0]].hex(), UIDS[cards[10]].hex()}
    placed = [c for c in card_log(rig.log) if c[0] == "placed"]
    assert sorted(placed) == sorted(("placed", str(c), f"seat{i % 10 + 1}")
                                    for i, c in enumerate(cards))
    assert not [o for o in rig.log if isinstance(o, SensorStatus) and not o.online]


def test_unplug_and_replug_mid_deal_loses_and_doubles_nothing(rig: Rig) -> None:
    rig.status(True)
    hole = list(DECK[20:28])
    seats = ["seat1", "seat2", "seat3", "seat4"] * 2
    for card, seat in zip(hole[:4], seats[:4], strict=True):
        rig.deal(card, seat)
        rig.card(CardEvent.PLACED, UIDS[card], seat)
    rig.ctrl.unplug()
    offline = rig.status(False)
    assert "link down" in offline.detail
    # the deal goes on while the cable is out
    for card, seat in zip(hole[4:], seats[4:], strict=True):
        rig.deal(card, seat)
    rig.ctrl.place(UIDS[hole[1]], ANTENNA["muck"])   # seat2 folds out of turn into the muck
    rig.ctrl.remove(UIDS[hole[3]])                   # seat4's first card is picked up
    rig.ctrl.scan(3)
    rig.ctrl.plug()
    recovered = rig.status(True)
    assert "recovered" in recovered.detail
    rig.card(CardEvent.REMOVED, UIDS[hole[3]], "seat4")   # after the hold
    rig.barrier()
    log = card_log(rig.log)
    expected_placed = [("placed", str(c), s) for c, s in zip(hole, seats, strict=True)]
    expected_placed.append(("placed", str(hole[1]), "muck"))
    assert sorted(e for e in log if e[0] == "placed") == sorted(expected_placed)
    assert sorted(e for e in log if e[0] == "removed") == sorted(
        [("removed", str(hole[1]), "seat2"), ("removed", str(hole[3]), "seat4")])
    want: dict[str, set[str]] = {}
    for ant, uids in rig.ctrl.present().items():
        want.setdefault(DEFAULT_ANTENNA_ZONES[ant], set()).update(u.hex() for u in uids)
    got = rig.reader.present()
    got.pop("shuffler")  # the sentinel, whose removal is still in its hold
    assert got == want
    assert rig.link.connections >= 2 and rig.link.disconnects >= 1
    assert rig.ctrl.hellos >= 2


def test_silent_controller_is_detected_and_recovered() -> None:
    rig = make_rig(link=LinkConfig(heartbeat_interval=0.1, rx_timeout=0.5,
                                   backoff_initial=0.02, backoff_max=0.1))
    try:
        silent_controller(rig)
    finally:
        rig.link.stop()
        rig.ctrl.stop()


def silent_controller(rig: Rig) -> None:
    rig.status(True)
    ace = DECK[51]
    rig.ctrl.set_silent(True)
    rig.deal(ace, "seat7")      # lost: the controller is not sending
    offline = rig.status(False)
    assert "silent" in offline.detail
    rig.ctrl.set_silent(False)
    rig.card(CardEvent.PLACED, UIDS[ace], "seat7")   # found by the inventory after reconnecting
    rig.status(True)


def test_slow_link_delivers_frames_split_across_reads(rig: Rig) -> None:
    rig.status(True)
    rig.ctrl.set_slow_link(4000.0)
    for card, seat in ((DECK[0], "seat1"), (DECK[1], "seat2"), (DECK[2], "burn")):
        rig.deal(card, seat)
        rig.card(CardEvent.PLACED, UIDS[card], seat)
    assert rig.link.stats.frames.frames_bad == 0


def test_flicker_and_dropouts_on_a_driven_clock() -> None:
    """Seeded flicker (bursts of up to 3 cycles of 0.1 s) never removes a card with the 0.6 s
    hold; a tag that drops out for 1 s is removed and placed again; one of 0.3 s is not."""
    clock = FakeClock()
    rig = make_rig(flicker=FlickerModel(burst_probability=0.15, max_burst_cycles=3), hold=0.6,
                   clock=clock)
    try:
        rig.status(True)
        cards = list(DECK[30:40])
        for i, card in enumerate(cards):
            rig.ctrl.place(UIDS[card], i)

        def cycles(n: int) -> None:
            for _ in range(n):
                handled, sent = rig.reader.stats.tag_events, rig.ctrl.edges_sent
                rig.ctrl.scan_once()
                # the reader has handled every edge the scan sent: it is in step
                assert rig.reader.wait_tag_events(handled + rig.ctrl.edges_sent - sent, WAIT)
                clock.t += 0.1
                rig.reader.poll()

        cycles(100)
        rig.barrier()
        assert sorted(card_log(rig.log)) == sorted(
            ("placed", str(c), f"seat{i + 1}") for i, c in enumerate(cards))
        assert rig.reader.stats.flicker_absorbed > 20
        rig.log.clear()
        rig.ctrl.drop_out(UIDS[cards[0]], 3)
        rig.ctrl.drop_out(UIDS[cards[1]], 10)
        cycles(15)
        rig.barrier()
        got = card_log(rig.log)
        assert got == [("removed", str(cards[1]), "seat2"), ("placed", str(cards[1]), "seat2")]
    finally:
        rig.link.stop()
        rig.ctrl.stop()


def test_unopenable_port_reports_offline_and_keeps_retrying(tmp_path: object) -> None:
    reader = RfidReader(resolver=Resolver())
    link = SerialLink(url="/nonexistent/ttyRFID", listener=reader, config=FAST)
    link.start()
    try:
        obs = reader.observations.get(timeout=WAIT)
        assert isinstance(obs, SensorStatus) and not obs.online
        assert "cannot open /nonexistent/ttyRFID" in obs.detail
    finally:
        link.stop()
    assert link.connections == 0 and reader.observations.empty()


def test_pyserial_url_without_a_controller_fails_the_handshake() -> None:
    """``loop://`` echoes our own HELLO back: a host message, not an answer."""
    reader = RfidReader(resolver=Resolver())
    link = SerialLink(url="loop://", listener=reader, config=FAST)
    link.start()
    try:
        obs = reader.observations.get(timeout=WAIT)
        assert isinstance(obs, SensorStatus) and "no HELLO" in obs.detail
    finally:
        link.stop()
    assert link.stats.wrong_direction >= 1


def test_incompatible_protocol_version_is_refused() -> None:
    rig = make_rig(protocol_major=2)
    try:
        obs = rig.status(False)
        assert "protocol 2.1" in obs.detail   # the firmware speaks 1.1, here with major 2
    finally:
        rig.link.stop()
        rig.ctrl.stop()


def test_rfid_service_from_a_config_table() -> None:
    ctrl = VirtualRfidController(flicker=NO_FLICKER, heartbeat_interval=0.1)
    ctrl.start()
    got: queue.Queue[Observation] = queue.Queue()
    config = RfidConfig.from_dict({"port": ctrl.path, "hold_time": 0.2,
                                   "antennas": {"0": "board", "1": "muck"}})
    try:
        with RfidService(config=config, resolver=Resolver(), sink=got.put) as service:
            status = got.get(timeout=WAIT)
            assert isinstance(status, SensorStatus) and status.online
            ctrl.place(UIDS[DECK[0]], 1)
            ctrl.scan_once()
            obs = got.get(timeout=WAIT)
            assert isinstance(obs, CardObservation)
            assert (obs.zone, obs.card) == ("muck", DECK[0])
            assert service.reader.online
    finally:
        ctrl.stop()


def test_controller_reports_a_bad_frame_from_the_host(rig: Rig) -> None:
    rig.status(True)
    bogus = SetOutputs(lamp=9, buzzer=BuzzerPattern.OFF)  # type: ignore[arg-type]
    assert rig.link.send(bogus)
    assert rig.ctrl.wait_until(lambda: len(rig.ctrl.host_losses) == 1, WAIT)
    rig.barrier()
    assert rig.reader.stats.last_device_error.startswith("BAD_FRAME: 1 bad frame")
    assert rig.ctrl.outputs == SetOutputs()  # the invalid command changed nothing


def test_a_failing_listener_does_not_end_the_link() -> None:
    ctrl = VirtualRfidController(flicker=NO_FLICKER, heartbeat_interval=0.1)
    ctrl.start()
    reader = RfidReader(resolver=Resolver())

    class Flaky:
        """Raises on the first TAG_SEEN, passes everything else to the reader."""

        def __init__(self) -> None:
            self.failed = False

        def link_up(self, hello: DeviceHello) -> None:
            reader.link_up(hello)

        def link_down(self, reason: str) -> None:
            reader.link_down(reason)

        def frames_lost(self, lost: FramesLost) -> None:
            reader.frames_lost(lost)

        def tick(self) -> None:
            reader.tick()

        def received(self, msg: DeviceMessage) -> None:
            if isinstance(msg, TagSeen) and not self.failed:
                self.failed = True
                raise RuntimeError("listener bug")
            reader.received(msg)

    link = SerialLink(url=ctrl.path, listener=Flaky(), config=FAST)
    reader.bind(link.send)
    link.start()
    try:
        assert isinstance(reader.observations.get(timeout=WAIT), SensorStatus)
        ctrl.place(UIDS[DECK[5]], 0)
        ctrl.place(UIDS[DECK[6]], 1)
        ctrl.scan_once()
        obs = reader.observations.get(timeout=WAIT)
        assert isinstance(obs, CardObservation) and obs.card == DECK[6]
        assert link.listener_errors == 1 and link.connections == 1
    finally:
        link.stop()
        ctrl.stop()


def test_reconnection_backs_off_exponentially_up_to_the_maximum() -> None:
    attempts: list[float] = []
    five = threading.Event()

    def opener(url: str, **kw: object) -> serial.Serial:
        attempts.append(time.monotonic())
        if len(attempts) >= 5:
            five.set()
        raise serial.SerialException(f"could not open port {url}: [Errno 2] No such file")

    reader = RfidReader(resolver=Resolver())
    config = LinkConfig(backoff_initial=0.02, backoff_max=0.08)
    link = SerialLink(url="/dev/ttyACM9", listener=reader, config=config, open_port=opener)
    link.start()
    try:
        assert five.wait(WAIT)
    finally:
        link.stop()
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    for gap, least in zip(gaps, (0.02, 0.04, 0.08, 0.08), strict=False):
        assert gap >= least - 0.002, gaps
    statuses = []
    while not reader.observations.empty():
        statuses.append(reader.observations.get_nowait())
    assert len(statuses) == 1  # one SENSOR_OFFLINE however many attempts fail
    assert "/dev/ttyACM9" in link.last_error


def test_a_second_program_cannot_share_the_port(rig: Rig) -> None:
    rig.status(True)
    intruder = RfidReader(resolver=Resolver())
    second = SerialLink(url=rig.ctrl.path, listener=intruder, config=FAST)
    second.start()
    try:
        obs = intruder.observations.get(timeout=WAIT)
        assert isinstance(obs, SensorStatus) and not obs.online
        assert "exclusively lock" in obs.detail
    finally:
        second.stop()
    assert rig.reader.online and rig.link.disconnects == 0


def test_outputs_end_with_their_duration_and_when_the_host_goes_quiet(rig: Rig) -> None:
    rig.status(True)
    off = SetOutputs()
    beep = SetOutputs(LampPattern.ON, BuzzerPattern.BEEP, 50)
    assert rig.reader.set_outputs(beep)
    assert rig.ctrl.wait_until(lambda: rig.ctrl.outputs_history == [beep, off], WAIT)  # 50 ms
    blink = SetOutputs(LampPattern.BLINK_SLOW)                          # until changed...
    assert rig.reader.set_outputs(blink)
    assert rig.ctrl.wait_until(lambda: rig.ctrl.outputs == blink, WAIT)
    rig.link.stop()                                                     # ...or the host is gone
    assert rig.ctrl.wait_until(lambda: rig.ctrl.outputs_history[-2:] == [blink, off], WAIT)


def test_controller_reboot_on_a_live_link_doubles_nothing(rig: Rig) -> None:
    rig.status(True)
    cards = list(DECK[40:44])
    for i, card in enumerate(cards):
        rig.deal(card, f"seat{i + 1}")
        rig.card(CardEvent.PLACED, UIDS[card], f"seat{i + 1}")
    inventories = rig.ctrl.inventories
    rig.ctrl.reboot()
    assert rig.ctrl.wait_until(lambda: rig.ctrl.inventories > inventories, WAIT)
    rig.ctrl.place(UIDS[cards[0]], ANTENNA["muck"])   # meanwhile a card moved
    rig.ctrl.scan(2)                                  # the rebooted controller reports all again
    rig.card(CardEvent.PLACED, UIDS[cards[0]], "muck")
    rig.barrier()
    log = card_log(rig.log)
    assert sorted(log) == sorted(
        [("placed", str(c), f"seat{i + 1}") for i, c in enumerate(cards)]
        + [("removed", str(cards[0]), "seat1"), ("placed", str(cards[0]), "muck")])
    assert not [o for o in rig.log if isinstance(o, SensorStatus)][1:]
    assert rig.link.connections == 1
