"""RfidReader: raw tag events from the controller -> debounced card observations per zone.

The controller reports raw edges (TAG_SEEN / TAG_GONE, docs/protocol.md §4); RFID reads flicker,
so the reader holds a tag present for ``hold_time`` seconds after it went missing and reports it
removed only if no read came back in that time (docs/protocol.md §6). A placement is reported at
once: the deal order is checked on placements (rules.md §2), so they must not wait.

One tag is in one zone. A tag read on another zone's antenna while its own antenna does not read
it has moved, and is reported removed from its old zone and placed in the new one at the same
instant. A tag that two antennas hear at once (a card lying between two seats: protocol 1.1
reports it on both, each with its signal figure) is placed by the stronger signal: it moves
only when the other antenna's figure is higher than its own antenna's; equal or unmeasured
figures keep it where it is. When its own antenna loses it and another still hears it, the
hold runs as for a flicker, and if it runs out the tag moves to the strongest antenna left.

Time is injected (``clock``, default ``time.monotonic``); :meth:`poll` processes the holds that
expired by a given time, so a simulator can run the reader on a clock it drives. Observations go
to ``sink`` in the order decided, with non-decreasing ``t``: a removal carries the time its hold
ran out, placements the time their event was handled. The edges of one scan cycle come in a
burst at the cycle's end (docs/firmware.md), a millisecond or two apart on the wire; each edge of
a burst (edges less than :data:`SCAN_BURST_GAP` apart) carries the time of its first, so the
controller knows them for one look and orders them as the dealing procedure expects
(:mod:`table_controller.monitor.arrivals`); :meth:`RfidReader.burst_open` says a burst may still
be arriving.

While the link is down nothing expires (the reader cannot know what happened); after a reconnect
a full inventory is reconciled with what was known: tags that appeared are placed, tags that are
missing start their hold (and are removed if they stay missing), tags that did not move produce
nothing. The same reconciliation runs after lost frames (a sequence gap), since a lost frame may
have been a tag event.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_bridge.protocol import (
    RSSI_UNKNOWN,
    DeviceError,
    DeviceErrorCode,
    DeviceHeartbeat,
    DeviceHello,
    DeviceMessage,
    FramesLost,
    HostMessage,
    InventoryBegin,
    InventoryEnd,
    InventoryEntry,
    InventoryRequest,
    SetOutputs,
    TagGone,
    TagSeen,
)
from firmware_bridge.rfid_config import ReaderConfig
from firmware_bridge.tags import TagIdentity, TagResolver
from table_controller.vocabulary.observations import (
    CardEvent,
    CardObservation,
    Face,
    Observation,
    SensorStatus,
    Source,
)

log = logging.getLogger(__name__)

UNKNOWN_IDENTITY = TagIdentity(card=None, deck=None, active=False)

SCAN_BURST_GAP = 0.02
"""Seconds: edges closer together than this are one scan cycle's report. A frame takes under 2 ms
at 115,200 baud; a scan cycle at least 45 ms (13 empty antennas, docs/firmware.md)."""

Sender = Callable[[HostMessage], bool]
"""Sends a message to the controller; False when the link is down (the message is dropped)."""


@dataclass(slots=True)
class ReaderStats:
    tag_events: int = 0
    placed: int = 0
    removed: int = 0
    moved: int = 0
    flicker_absorbed: int = 0
    unmapped_reads: int = 0
    stale_gone: int = 0
    resolver_errors: int = 0
    weaker_reads: int = 0
    """Reads of a placed tag on another zone's antenna with a weaker signal (not a move)."""
    inventories_requested: int = 0
    inventories_completed: int = 0
    inventories_discarded: int = 0
    frames_lost: int = 0
    device_errors: int = 0
    last_device_error: str = ""


@dataclass(slots=True)
class _Tag:
    antenna: int
    zone: str
    identity: TagIdentity
    gone_since: float | None = None
    reads: dict[int, int] = field(default_factory=dict)
    """Mapped antennas reading the tag now (raw edges), each with its signal figure."""


@dataclass(slots=True)
class _Inventory:
    request_id: int
    asked_at: float
    entries: dict[bytes, dict[int, int]] | None = None
    count: int = 0


def stronger(new: int, current: int) -> bool:
    """Whether a read of figure ``new`` wins against the tag's own antenna at ``current``: it
    does unless both are measured and ``current`` is at least as strong (so two unmeasured
    reads behave as protocol 1.0 did: a read elsewhere is a move)."""
    return new == RSSI_UNKNOWN or current == RSSI_UNKNOWN or new > current


def strongest(reads: dict[int, int]) -> int:
    """The antenna with the highest figure (unmeasured lowest; ties: the lowest number)."""
    return max(sorted(reads), key=lambda a: reads[a])


class RfidReader:
    """Implements :class:`firmware_bridge.link.LinkListener`; thread-safe (one lock).

    ``sink`` receives every observation, on the link's thread, with the reader's lock held: it
    must not block (the default puts them into :attr:`observations`, an unbounded queue)."""

    def __init__(
        self,
        *,
        resolver: TagResolver,
        config: ReaderConfig | None = None,
        sink: Callable[[Observation], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        send: Sender | None = None,
    ) -> None:
        self.config = config or ReaderConfig()
        self.observations: queue.Queue[Observation] = queue.Queue()
        self._sink = sink or self.observations.put
        self._resolver = resolver
        self._clock = clock
        self._send: Sender | None = send
        self._lock = threading.RLock()
        self._handled = threading.Condition(self._lock)
        self._tags: dict[bytes, _Tag] = {}
        self._pending: set[bytes] = set()  # tags in their hold (gone_since set)
        self._online = False
        self._ever_synced = False
        self._offline_reported = False
        self._syncing = False
        self._inventory: _Inventory | None = None
        self._next_request = 0
        self.device: DeviceHello | None = None
        self.stats = ReaderStats()
        self._last_edge: float | None = None  # when the last TAG_SEEN / TAG_GONE arrived
        self._burst_t = 0.0  # the time of the burst it belongs to
        self._emitted_t = 0.0  # the latest time an observation carried

    # ------------------------------------------------------------------ public
    def bind(self, send: Sender) -> None:
        """Where requests to the controller go (the link's ``send``)."""
        with self._lock:
            self._send = send

    @property
    def online(self) -> bool:
        """True once the link is up and the first inventory after it has been reconciled."""
        with self._lock:
            return self._online and not self._syncing

    def present(self) -> dict[str, set[str]]:
        """Zone -> keys (UID hex) of the tags the reader holds present now (pending holds
        included)."""
        with self._lock:
            out: dict[str, set[str]] = {}
            for uid, tag in self._tags.items():
                out.setdefault(tag.zone, set()).add(uid.hex())
            return out

    def wait_tag_events(self, count: int, timeout: float) -> bool:
        """Wait until ``stats.tag_events`` (TAG_SEEN/TAG_GONE handled since the reader was made)
        reaches ``count``. For a simulator that drives the clock: note ``stats.tag_events`` and
        the virtual controller's ``edges_sent``, scan, wait for the first plus the edges the scan
        sent, then advance the clock."""
        with self._handled:
            return self._handled.wait_for(lambda: self.stats.tag_events >= count, timeout)

    def poll(self, now: float | None = None) -> None:
        """Report the removals whose hold ran out by ``now`` (default: the clock); re-ask an
        inventory that got no answer in time."""
        with self._lock:
            t = self._clock() if now is None else now
            if self._online and not self._syncing:
                self._expire(t)
            inv = self._inventory
            if (self._online and inv is not None
                    and t - inv.asked_at >= self.config.inventory_timeout):
                self.stats.inventories_discarded += 1
                self._request_inventory(t)

    # ------------------------------------------------------------------ LinkListener
    def link_up(self, hello: DeviceHello) -> None:
        with self._lock:
            now = self._clock()
            self.device = hello
            self._online = True
            self._syncing = True
            top = max(self.config.antenna_zones, default=-1)
            if top >= hello.antenna_count:
                log.warning("antenna %d is mapped to a zone but the controller has %d antennas",
                            top, hello.antenna_count)
            self._request_inventory(now)

    def link_down(self, reason: str) -> None:
        with self._lock:
            now = self._clock()
            if self._online and not self._syncing:
                self._expire(now)
            self._online = False
            self._syncing = False
            self._inventory = None
            if not self._offline_reported:
                self._offline_reported = True
                self._emit(SensorStatus(Source.RFID, False, now, f"RFID link down: {reason}"))

    def frames_lost(self, lost: FramesLost) -> None:
        with self._lock:
            self.stats.frames_lost += lost.count or 1
            log.info("RFID frames lost (%s): resynchronising with an inventory", lost.reason)
            if self._online:
                self._request_inventory(self._clock())

    def burst_open(self, now: float | None = None) -> float | None:
        """The time of the scan cycle whose edges may still be arriving at ``now`` (default:
        the clock), None when the last burst is over."""
        with self._lock:
            t = self._clock() if now is None else now
            last = self._last_edge
            if last is None or t - last >= SCAN_BURST_GAP:
                return None
            return self._burst_t

    def _edge_time(self, now: float) -> float:
        last, self._last_edge = self._last_edge, now
        if last is None or now - last >= SCAN_BURST_GAP:
            self._burst_t = now
        return max(self._burst_t, self._emitted_t)

    def received(self, msg: DeviceMessage) -> None:
        with self._lock:
            now = self._clock()
            if isinstance(msg, TagSeen | TagGone):
                now = self._edge_time(now)
            if self._online and not self._syncing:
                self._expire(now)
            match msg:
                case TagSeen():
                    self._seen(msg.uid, msg.antenna, now, msg.rssi)
                    self._count_tag_event()
                case TagGone():
                    self._gone(msg.uid, msg.antenna, now)
                    self._count_tag_event()
                case InventoryBegin():
                    inv = self._inventory
                    if inv is not None and msg.request_id == inv.request_id:
                        inv.entries = {}
                        inv.count = 0
                case InventoryEntry():
                    inv = self._inventory
                    if (inv is not None and inv.entries is not None
                            and msg.request_id == inv.request_id):
                        inv.entries.setdefault(msg.uid, {})[msg.antenna] = msg.rssi
                        inv.count += 1
                case InventoryEnd():
                    self._inventory_end(msg, now)
                case DeviceError():
                    self._device_error(msg)
                case DeviceHeartbeat() | DeviceHello():
                    pass

    def tick(self) -> None:
        self.poll()

    def set_outputs(self, msg: SetOutputs) -> bool:
        """Set the controller's lamp and buzzer (docs/protocol.md §4); False if the link is down
        (the command is dropped, not queued: a stale alarm must not sound later)."""
        with self._lock:
            return self._send(msg) if self._send is not None else False

    # ------------------------------------------------------------------ internals
    def _count_tag_event(self) -> None:
        self.stats.tag_events += 1
        self._handled.notify_all()

    def _emit(self, obs: Observation) -> None:
        self._emitted_t = max(self._emitted_t, obs.t)
        try:
            self._sink(obs)
        except Exception:  # a consumer's bug must not stop the link thread or lose later events
            log.exception("observation sink failed on %r", obs)

    def _identify(self, uid: bytes) -> TagIdentity:
        try:
            return self._resolver.identify(uid)
        except Exception:
            self.stats.resolver_errors += 1
            log.exception("tag resolver failed on UID %s; reporting the tag as unknown", uid.hex())
            return UNKNOWN_IDENTITY

    def _card_obs(self, event: CardEvent, uid: bytes, tag: _Tag, t: float) -> CardObservation:
        ident = tag.identity
        return CardObservation(
            event=event, zone=tag.zone, t=t, source=Source.RFID, key=uid.hex(),
            card=ident.card, face=Face.UNKNOWN, deck=ident.deck, foreign=ident.foreign,
            joker=ident.joker)

    def _seen(self, uid: bytes, antenna: int, now: float, rssi: int = RSSI_UNKNOWN) -> None:
        zone = self.config.antenna_zones.get(antenna)
        if zone is None:
            self.stats.unmapped_reads += 1
            return
        tag = self._tags.get(uid)
        if tag is None:
            tag = _Tag(antenna=antenna, zone=zone, identity=self._identify(uid),
                       reads={antenna: rssi})
            self._tags[uid] = tag
            self.stats.placed += 1
            self._emit(self._card_obs(CardEvent.PLACED, uid, tag, now))
            return
        update = antenna in tag.reads   # a figure changed on an antenna already reading it
        tag.reads[antenna] = rssi
        if zone == tag.zone:
            if antenna != tag.antenna and tag.antenna in tag.reads:
                return                  # a second antenna of the same zone
            if tag.gone_since is not None:
                self.stats.flicker_absorbed += 1
            tag.gone_since = None
            self._pending.discard(uid)
            tag.antenna = antenna
            return
        current = tag.reads.get(tag.antenna)
        if current is None:
            if update:
                return                  # its own antenna is in its hold: the hold decides
        elif not stronger(rssi, current):
            self.stats.weaker_reads += 1
            return
        self._move(uid, tag, antenna, zone, now)

    def _move(self, uid: bytes, tag: _Tag, antenna: int, zone: str, t: float) -> None:
        self.stats.moved += 1
        self.stats.removed += 1
        self._emit(self._card_obs(CardEvent.REMOVED, uid, tag, t))
        tag.antenna, tag.zone, tag.gone_since = antenna, zone, None
        self._pending.discard(uid)
        tag.identity = self._identify(uid)
        self.stats.placed += 1
        self._emit(self._card_obs(CardEvent.PLACED, uid, tag, t))

    def _gone(self, uid: bytes, antenna: int, now: float) -> None:
        tag = self._tags.get(uid)
        if tag is not None:
            tag.reads.pop(antenna, None)
        if tag is None or tag.antenna != antenna:
            self.stats.stale_gone += 1  # already moved elsewhere, or never seen
            return
        zones = self.config.antenna_zones
        same = [a for a in tag.reads if zones.get(a) == tag.zone]
        if same:
            tag.antenna = same[0]       # another antenna of its zone still reads it
            return
        if tag.gone_since is None:
            tag.gone_since = now
            self._pending.add(uid)

    def _expire(self, now: float) -> None:
        hold = self.config.hold_time
        if not self._pending:
            return
        due: list[tuple[float, bytes]] = []
        for uid in self._pending:
            since = self._tags[uid].gone_since
            if since is not None and since + hold <= now:
                due.append((since + hold, uid))
        zones = self.config.antenna_zones
        for deadline, uid in sorted(due):
            self._pending.discard(uid)
            tag = self._tags[uid]
            if tag.reads:               # its antenna lost it, another still hears it: moved
                antenna = strongest(tag.reads)
                self._move(uid, tag, antenna, zones[antenna], deadline)
                continue
            del self._tags[uid]
            self.stats.removed += 1
            self._emit(self._card_obs(CardEvent.REMOVED, uid, tag, deadline))

    def _request_inventory(self, now: float) -> None:
        self._next_request = (self._next_request + 1) % 0x10000
        self._inventory = _Inventory(request_id=self._next_request, asked_at=now)
        self.stats.inventories_requested += 1
        if self._send is not None:
            self._send(InventoryRequest(self._next_request))

    def _inventory_end(self, msg: InventoryEnd, now: float) -> None:
        inv = self._inventory
        if inv is None or msg.request_id != inv.request_id:
            return  # an answer to a request we gave up on
        if inv.entries is None or inv.count != msg.entry_count:
            got = 0 if inv.entries is None else inv.count
            log.info("inventory %d incomplete (%d of %d entries): asking again",
                     msg.request_id, got, msg.entry_count)
            self.stats.inventories_discarded += 1
            self._request_inventory(now)
            return
        self._inventory = None
        self._reconcile(inv.entries, now)
        self.stats.inventories_completed += 1
        if self._syncing:
            self._syncing = False
            if self._offline_reported or not self._ever_synced:
                # (a HELLO on a live link, a controller restart, resyncs without a status)
                dev = self.device
                what = f"firmware {dev.firmware_text}, {dev.antenna_count} antennas" if dev else ""
                detail = (f"RFID link recovered: {what}" if self._ever_synced
                          else f"RFID connected: {what}")
                self._emit(SensorStatus(Source.RFID, True, now, detail))
            self._ever_synced = True
            self._offline_reported = False
            self._expire(now)

    def _reconcile(self, snapshot: dict[bytes, dict[int, int]], now: float) -> None:
        """Inventory vs. known state: new or moved tags are reported now; known tags missing from
        the snapshot start their hold (one inventory is one scan: it can catch a flicker)."""
        zones = self.config.antenna_zones
        present: dict[bytes, dict[int, int]] = {}
        for uid, reads in snapshot.items():
            mapped = {a: r for a, r in reads.items() if a in zones}
            self.stats.unmapped_reads += len(reads) - len(mapped)
            if mapped:
                present[uid] = mapped
        for uid, reads in present.items():
            best = strongest(reads)
            tag = self._tags.get(uid)
            here = [] if tag is None else [a for a in reads if zones[a] == tag.zone]
            if tag is not None:
                tag.reads = {}
            if tag is not None and here:    # still in its zone; moves only to a stronger one
                own = tag.antenna if tag.antenna in here else here[0]
                self._seen(uid, own, now, reads[own])
                if zones[best] != tag.zone:
                    self._seen(uid, best, now, reads[best])
            else:
                self._seen(uid, best, now, reads[best])
            placed = self._tags[uid]
            for antenna, rssi in reads.items():
                placed.reads.setdefault(antenna, rssi)
        for uid, tag in self._tags.items():
            if uid not in present:
                tag.reads = {}
                if tag.gone_since is None or self._syncing:
                    tag.gone_since = now  # after an outage the hold restarts: it is not absence
                    self._pending.add(uid)

    def _device_error(self, msg: DeviceError) -> None:
        self.stats.device_errors += 1
        try:
            name = DeviceErrorCode(msg.code).name
        except ValueError:
            name = f"code {msg.code}"
        where = "" if msg.antenna == 0xFF else f" on antenna {msg.antenna}"
        zone = self.config.antenna_zones.get(msg.antenna)
        if zone is not None:
            where += f" ({zone})"
        self.stats.last_device_error = f"{name}{where}: {msg.detail}"
        log.warning("RFID controller reports %s", self.stats.last_device_error)
        if msg.code == DeviceErrorCode.TX_OVERFLOW and self._online:
            # it dropped frames before numbering them: no sequence gap will show it
            self._request_inventory(self._clock())
