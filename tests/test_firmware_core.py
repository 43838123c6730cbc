"""The firmware's core (firmware/controller.py) with simulated PN5180s: its frames decoded by
the Pi's own decoder, the session, the scan schedule, reports for 1.0 and 1.1 hosts, faults,
and the rolling inventory of a full shuffler tray. End to end through the pty and the real Pi
side: a reader that stops answering, and a tag heard by two antennas."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator

import pytest

from firmware import framing
from firmware.antenna import Antenna
from firmware.controller import AntennaController
from firmware_bridge.framing import FrameDecoder, encode_frame
from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import (
    DEVICE_TYPES,
    DeviceError,
    DeviceHeartbeat,
    DeviceHello,
    FramesLost,
    HostHello,
    InventoryBegin,
    InventoryEnd,
    InventoryEntry,
    InventoryRequest,
    Message,
    MessageDecoder,
    MessageEncoder,
    SetOutputs,
    TagGone,
    TagSeen,
)
from firmware_bridge.reader import RfidReader
from firmware_bridge.rfid_config import DEFAULT_ANTENNA_ZONES, LinkConfig, ReaderConfig
from firmware_bridge.tags import TagIdentity
from hw_sim.devices.pn5180_sim import SimBus
from hw_sim.devices.rfid_controller import NO_FLICKER, FlickerModel, VirtualRfidController
from table_controller.vocabulary.observations import CardEvent, CardObservation, Observation

WAIT = 5.0


def uid(n: int) -> bytes:
    return bytes((0xE0, 0x04, 0x01, 0x00, 0x00, n >> 8, n & 0xFF, (n * 0x9D + 7) & 0xFF))


class CoreClock:
    def __init__(self) -> None:
        self.ms = 1000

    def ticks_ms(self) -> int:
        return self.ms

    def ticks_us(self) -> int:
        return self.ms * 1000

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b


class Wire:
    """The Pi's end: every frame the core writes, decoded by firmware_bridge."""

    def __init__(self) -> None:
        self.decoder = MessageDecoder(accept=DEVICE_TYPES)
        self.messages: list[Message | FramesLost] = []
        self.fail = False

    def write(self, data: bytes, kind: int) -> bool:
        if self.fail:
            return False
        self.messages += self.decoder.feed(data)
        return True

    def take(self) -> list[Message | FramesLost]:
        out, self.messages = self.messages, []
        return out


class CoreRig:
    def __init__(self, antennas: int = 4) -> None:
        self.bus = SimBus(antennas)
        self.wire = Wire()
        self.clock = CoreClock()
        self.core = AntennaController([Antenna(self.bus.driver(i)) for i in range(antennas)],
                               self.wire, self.clock, self.bus.clock)
        self.host = MessageEncoder()

    def send(self, msg: Message) -> None:
        self.core.receive(self.host.encode(msg))

    def field(self, antenna: int, tags: dict[bytes, int]) -> None:
        self.bus.chips[antenna].field = tags


def test_frames_match_the_pi_s_framing_byte_for_byte() -> None:
    rng = random.Random(5)
    for _ in range(500):
        content = bytes(rng.choice((0, 0, 1, 0xFF, rng.randrange(256)))
                        for _ in range(rng.randrange(1, 254)))
        assert framing.encode_frame(content) == encode_frame(content)
    assert framing.crc16(b"123456789") == 0x29B1
    # the receiver rules, on the same damaged stream
    stream = b"".join(encode_frame(bytes(rng.randrange(256) for _ in range(20)))
                      for _ in range(50))
    damaged = bytearray(stream)
    for _ in range(40):
        damaged[rng.randrange(len(damaged))] = rng.randrange(256)
    damaged += b"\x55" * 600 + b"\x00"
    mine, pi = framing.FrameReceiver(), FrameDecoder()
    assert mine.feed(bytes(damaged)) == pi.feed(bytes(damaged))
    assert (mine.bad_cobs, mine.bad_crc, mine.too_short, mine.oversized) == (
        pi.stats.bad_cobs, pi.stats.bad_crc, pi.stats.too_short, pi.stats.oversized)


def test_hello_heartbeat_inventory_and_outputs() -> None:
    rig = CoreRig()
    rig.core.power_up()
    hello, heartbeat = rig.wire.take()[0], None
    assert isinstance(hello, DeviceHello) and hello.protocol_minor == 1
    assert hello.antenna_count == 4 and hello.firmware == (1, 0, 0)
    rig.send(HostHello(1, 1, 500))
    assert isinstance(rig.wire.take()[0], DeviceHello)
    rig.field(2, {uid(1): 12, uid(2): 12})
    edges = rig.core.scan_cycle()
    assert sorted(e[1:3] for e in edges) == [(2, uid(1)), (2, uid(2))]
    rig.clock.ms += 600
    rig.core.service()
    got = rig.wire.take()
    heartbeat = got[-1]
    assert isinstance(heartbeat, DeviceHeartbeat) and heartbeat.tags_present == 2
    assert heartbeat.cycle_ms is not None and heartbeat.cycle_ms > 0
    rig.send(InventoryRequest(9))
    answer = rig.wire.take()
    assert isinstance(answer[0], InventoryBegin) and isinstance(answer[-1], InventoryEnd)
    assert {(e.antenna, e.uid) for e in answer if isinstance(e, InventoryEntry)} == {
        (2, uid(1)), (2, uid(2))}
    assert answer[-1] == InventoryEnd(9, 2)
    rig.send(SetOutputs(duration_ms=0))
    rig.send(HostHello(1, 1, 100))
    rig.core.receive(rig.host.encode(SetOutputs()))
    assert rig.core.outputs == (0, 0, 0)


def test_a_bad_frame_and_a_bad_pattern_are_reported_not_obeyed() -> None:
    rig = CoreRig()
    rig.core.power_up()
    rig.send(HostHello(1, 1, 500))
    rig.wire.take()
    rig.core.receive(b"\x07\x83\x00\x00\x11\x22\x00")
    errors = [m for m in rig.wire.take() if isinstance(m, DeviceError)]
    assert errors and errors[0].code == 4 and "2 bad frame(s)" in errors[0].detail
    content = bytes((0x04, 0x00, 0x02, 9, 0, 0, 0))   # SET_OUTPUTS with lamp pattern 9
    rig.core.receive(encode_frame(content))
    assert rig.core.outputs == (0, 0, 0) and rig.core.bad_payload == 1


def test_a_1_0_host_hears_of_the_strongest_antenna_only_a_1_1_host_of_both() -> None:
    rig = CoreRig()
    rig.core.power_up()
    rig.send(HostHello(1, 0, 500))
    card = uid(7)
    rig.field(1, {card: 5})             # at the edge of seat 2's antenna
    rig.field(2, {card: 12})            # on seat 3's
    rig.core.scan_cycle()
    seen = [m for m in rig.wire.take() if isinstance(m, TagSeen)]
    assert [(m.antenna, m.rssi) for m in seen] == [(2, -100 + 6 * 12)]
    rig.send(HostHello(1, 1, 500))       # a 1.1 host: told every antenna, from its inventory
    rig.wire.take()
    rig.send(InventoryRequest(1))
    entries = [m for m in rig.wire.take() if isinstance(m, InventoryEntry)]
    assert sorted((m.antenna, m.rssi) for m in entries) == [(1, -70), (2, -28)]
    rig.field(1, {})                    # the edge antenna no longer hears it
    rig.core.scan_cycle()
    assert [(type(m), m.antenna) for m in rig.wire.take()
            if isinstance(m, TagSeen | TagGone)] == [(TagGone, 1)]


def test_a_reader_that_stops_answering_is_reported_and_the_others_keep_scanning() -> None:
    rig = CoreRig()
    rig.core.power_up()
    rig.send(HostHello(1, 1, 500))
    rig.field(0, {uid(1): 12})
    rig.field(3, {uid(3): 12})
    rig.core.scan_cycle()
    rig.wire.take()
    rig.bus.chips[3].fail()
    rig.field(0, {uid(1): 12, uid(2): 12})
    rig.core.scan_cycle()
    got = rig.wire.take()
    errors = [m for m in got if isinstance(m, DeviceError)]
    assert len(errors) == 1 and errors[0].code == 1 and errors[0].antenna == 3
    assert "antenna 3: BUSY stayed low" in errors[0].detail
    assert [(m.antenna, m.uid) for m in got if isinstance(m, TagSeen)] == [(0, uid(2))]
    assert not [m for m in got if isinstance(m, TagGone)]   # its tag is kept, not "gone"
    rig.core.scan_cycle()
    assert not [m for m in rig.wire.take() if isinstance(m, DeviceError)]  # said once
    rig.send(HostHello(1, 1, 500))       # a host that connects meanwhile is told again
    assert [m.antenna for m in rig.wire.take() if isinstance(m, DeviceError)] == [3]
    rig.bus.chips[3].revive()
    rig.field(3, {})
    rig.clock.ms += 1000                 # its retry is due
    rig.core.scan_cycle()
    assert [(type(m), m.antenna) for m in rig.wire.take()
            if isinstance(m, TagGone)] == [(TagGone, 3)]
    assert not rig.core.faulty(3)


def test_an_edge_that_could_not_be_sent_is_followed_by_tx_overflow() -> None:
    rig = CoreRig()
    rig.core.power_up()
    rig.send(HostHello(1, 1, 500))
    rig.wire.take()
    rig.wire.fail = True
    rig.field(0, {uid(1): 12})
    rig.core.scan_cycle()
    rig.wire.fail = False
    rig.field(0, {})
    rig.core.scan_cycle()
    got = rig.wire.take()
    assert isinstance(got[0], FramesLost)            # the Pi sees the gap...
    assert isinstance(got[1], DeviceError) and got[1].code == 3   # ...and TX_OVERFLOW


def test_a_full_tray_is_inventoried_rolling_and_a_flicker_removes_nothing() -> None:
    ctrl = VirtualRfidController(flicker=FlickerModel(burst_probability=0.02), seed=11)
    stub = [uid(100 + i) for i in range(52)]
    for u in stub:
        ctrl.place(u, 13)
    try:
        edges = ctrl.scan(40)
        assert {e.uid for e in edges if isinstance(e, TagSeen)} == set(stub)
        tray = ctrl.core.readers[13]
        assert tray.rolling
        edges = ctrl.scan(100)          # flickers: suspects asked for, none reported gone
        assert not [e for e in edges if isinstance(e, TagGone)]
        ctrl.place(stub[0], 3)           # dealt to seat 4: off the tray at once
        edges = ctrl.scan_once()
        assert (TagGone, 13, stub[0]) in [(type(e), e.antenna, e.uid) for e in edges]
        assert (TagSeen, 3, stub[0]) in [(type(e), e.antenna, e.uid) for e in edges]
        ctrl.remove(stub[1])             # taken away: gone within a rolling pass
        gone = [i for i in range(20)
                if any(isinstance(e, TagGone) and e.uid == stub[1] for e in ctrl.scan_once())]
        assert len(gone) == 1
    finally:
        ctrl.stop()


HOLD_SCANS = 6
"""The Pi's default hold time (0.6 s) in scan cycles of 0.1 s: a tag the reader is not told of
again within it is reported removed."""


def asked_last(tags: list[bytes], next_nibble: int) -> list[bytes]:
    """The tags of the sixteenth of the UID space a rolling antenna whose next scan asks
    ``next_nibble`` comes to last (15 scans later)."""
    last = (next_nibble - 1) & 0xF
    out = [u for u in tags if u[-1] & 0xF == last]
    assert out
    return out


def told_after(ctrl: VirtualRfidController, tags: list[bytes], scans: int) -> dict[bytes, int]:
    """Scan ``scans`` cycles; tag -> the cycle (1-based) the tray antenna was last told to
    report it seen, for the tags told of."""
    told: dict[bytes, int] = {}
    for cycle in range(1, scans + 1):
        for e in ctrl.scan_once():
            if e.uid in tags and e.antenna == 13:
                if isinstance(e, TagSeen):
                    told[e.uid] = cycle
                else:
                    told.pop(e.uid, None)
    return told


def test_a_stub_gathered_while_its_tags_flicker_is_read_whole_before_the_hold_runs_out() -> None:
    """The stub lands in the tray while some of its tags miss their reads (a flicker burst,
    3 cycles, the longest the simulator models). Going rolling after two agreeing full
    inventories left those tags unknown until their sixteenth came round (up to 16 cycles):
    the deck check at the green button counted the stub short (a false DECK_INCOMPLETE)."""
    ctrl = VirtualRfidController(flicker=NO_FLICKER, seed=12)
    stub = [uid(100 + i) for i in range(52)]
    flickering = asked_last(stub, 0)     # a fresh antenna's first rolling scan asks 0
    try:
        for u in stub:
            ctrl.place(u, 13)
        for u in flickering:
            ctrl.drop_out(u, 3)
        told = told_after(ctrl, stub, HOLD_SCANS)
        assert set(told) == set(stub)
    finally:
        ctrl.stop()


def test_a_tray_tag_flickering_as_full_inventories_resume_is_not_lost() -> None:
    """A newcomer sends the rolling tray back to full inventories; tags that flicker through
    the first two of them were reported gone and then left out of the rolling schedule, so
    the Pi's hold ran out (the card removed from the stub) before their sixteenth came round.
    Now every one is told again within the hold time and the tray goes rolling again."""
    ctrl = VirtualRfidController(flicker=NO_FLICKER, seed=13)
    stub = [uid(100 + i) for i in range(52)]
    newcomer = uid(300)
    try:
        for u in stub:
            ctrl.place(u, 13)
        ctrl.scan(20)
        tray = ctrl.core.readers[13]
        assert isinstance(tray, Antenna) and tray.rolling
        ctrl.place(newcomer, 13)         # a card gathered into the tray
        for _ in range(17):
            ctrl.scan_once()
            if not tray._rolling:
                break
        assert not tray._rolling
        flickering = asked_last(stub, tray._nibble)
        for u in flickering:
            ctrl.drop_out(u, 3)
        told: dict[bytes, int] = {u: 0 for u in stub}
        worst = 0
        for cycle in range(1, 40):
            for e in ctrl.scan_once():
                if e.antenna != 13 or e.uid not in told:
                    continue
                if isinstance(e, TagGone):
                    told[e.uid] = -cycle        # gone since this cycle
                elif told[e.uid] < 0:
                    worst = max(worst, cycle + told[e.uid])
                    told[e.uid] = cycle
        assert all(v >= 0 for v in told.values())   # every tag reported present at the end
        assert worst < HOLD_SCANS                   # and none missing longer than the hold
        assert tray.rolling
    finally:
        ctrl.stop()


def test_cards_gathered_into_a_rolling_tray_are_read_there_before_the_hold_runs_out() -> None:
    """At the end of a hand the cards on the felt are gathered into the tray, whose rolling
    inventory asks one sixteenth of the UID space per cycle. Cards of a sixteenth it had just
    asked were found 15 cycles later: the Pi's hold ran out, the cards were removed from the
    felt and not yet in the stub, and a green button then saw the deck short (a false
    DECK_INCOMPLETE). A tag read nowhere is now asked for by UID on the rolling tray."""
    ctrl = VirtualRfidController(flicker=NO_FLICKER, seed=14)
    stub = [uid(100 + i) for i in range(40)]
    nibble = 9
    felt = [u for u in (uid(400 + i) for i in range(200)) if u[-1] & 0xF == nibble][:4]
    try:
        for u in stub:
            ctrl.place(u, 13)
        for i, u in enumerate(felt):
            ctrl.place(u, i // 2)        # two seats, two cards each
        tray = ctrl.core.readers[13]
        assert isinstance(tray, Antenna)
        for _ in range(40):
            ctrl.scan_once()
            if tray.rolling and tray._nibble == (nibble + 1) & 0xF:
                break
        assert tray.rolling and tray._nibble == (nibble + 1) & 0xF   # the felt's asked last
        for u in felt:
            ctrl.place(u, 13)            # gathered
        on_tray: dict[bytes, int] = {}
        for cycle in range(1, HOLD_SCANS + 1):
            for e in ctrl.scan_once():
                if isinstance(e, TagSeen) and e.antenna == 13 and e.uid in felt:
                    on_tray.setdefault(e.uid, cycle)
        assert set(on_tray) == set(felt)
        assert max(on_tray.values()) <= 3
    finally:
        ctrl.stop()


# ---------------------------------------------------------------- through the pty


class CoreResolver:
    def identify(self, uid_: bytes) -> TagIdentity:
        return TagIdentity(card=None, deck=None, active=False)


@pytest.fixture
def link() -> Iterator[tuple[VirtualRfidController, RfidReader]]:
    ctrl = VirtualRfidController(flicker=NO_FLICKER, heartbeat_interval=0.1)
    ctrl.start()
    reader = RfidReader(resolver=CoreResolver(), config=ReaderConfig(hold_time=0.3))
    serial_link = SerialLink(url=ctrl.path, listener=reader,
                             config=LinkConfig(heartbeat_interval=0.1, rx_timeout=2.0))
    reader.bind(serial_link.send)
    serial_link.start()
    try:
        assert ctrl.wait_until(lambda: ctrl.inventories >= 1, WAIT)
        yield ctrl, reader
    finally:
        serial_link.stop()
        ctrl.stop()


def scan(ctrl: VirtualRfidController, reader: RfidReader) -> list[TagSeen | TagGone]:
    handled, sent = reader.stats.tag_events, ctrl.edges_sent
    edges = ctrl.scan_once()
    assert reader.wait_tag_events(handled + ctrl.edges_sent - sent, WAIT)
    return edges


def zone_of(reader: RfidReader, card: bytes) -> set[str]:
    return {zone for zone, keys in reader.present().items() if card.hex() in keys}


def test_a_tag_heard_by_two_antennas_is_placed_by_the_stronger(
        link: tuple[VirtualRfidController, RfidReader]) -> None:
    ctrl, reader = link
    seat3, seat4 = 2, 3
    card = uid(42)
    ctrl.place(card, seat3)
    ctrl.overhear(card, seat4, level=5)       # the neighbour's antenna hears its edge
    edges = scan(ctrl, reader)
    figures = {e.antenna: e.rssi for e in edges if isinstance(e, TagSeen)}
    assert figures[seat3] > figures[seat4] > -128   # reported on both, with its figure
    assert zone_of(reader, card) == {"seat3"}
    # slid over: now lying on seat 4, seat 3 hears its edge; measured again within 4 cycles
    ctrl.place(card, seat4)
    ctrl.overhear(card, seat3, level=5)
    for _ in range(4):
        scan(ctrl, reader)
    assert zone_of(reader, card) == {"seat4"}
    moves = [o for o in iter_observations(reader) if isinstance(o, CardObservation)]
    assert [(o.event, o.zone) for o in moves] == [
        (CardEvent.PLACED, "seat3"), (CardEvent.REMOVED, "seat3"), (CardEvent.PLACED, "seat4")]
    assert DEFAULT_ANTENNA_ZONES[seat4] == "seat4"


def test_a_dead_reader_is_named_to_the_pi_and_the_table_goes_on(
        link: tuple[VirtualRfidController, RfidReader]) -> None:
    ctrl, reader = link
    ctrl.place(uid(1), 4)
    scan(ctrl, reader)
    ctrl.chip(4).fail()
    ctrl.place(uid(2), 0)
    scan(ctrl, reader)
    assert until(lambda: reader.stats.device_errors >= 1)
    assert reader.stats.last_device_error.startswith(
        "ANTENNA_FAULT on antenna 4 (seat5): antenna 4: BUSY")
    assert zone_of(reader, uid(2)) == {"seat1"} and zone_of(reader, uid(1)) == {"seat5"}


def until(predicate: Callable[[], bool]) -> bool:
    """Wait (bounded) for the link's thread to have handled what was sent."""
    deadline = time.monotonic() + WAIT
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def iter_observations(reader: RfidReader) -> list[Observation]:
    out: list[Observation] = []
    while not reader.observations.empty():
        out.append(reader.observations.get_nowait())
    return out
