"""RFID serial link: decoder throughput, and latency from a frame written to the pty to the
observation delivered by the reader (goal: p99 under 2 ms).

``python -m benchmarks serial`` (``--quick``: 1,000 frames instead of 10,000).

1. decode: TAG_SEEN frames fed to :class:`MessageDecoder` in 4 KiB reads, frames per second.
2. latency: the virtual controller writes one TAG_SEEN at a time to the pty; the real SerialLink
   (pyserial) and RfidReader turn it into a CardObservation; the time from just before the
   device encodes and writes the frame to the moment the reader hands the observation to its
   sink. One frame in flight at a time. The tag moves between two seats, so every frame yields
   an observation and the reader's state stays the size of a real table's.
3. burst: 10,000 frames written back to back; time until the last observation arrives.
"""

from __future__ import annotations

import os
import queue
import statistics
import time
from typing import Any

from firmware_bridge.link import SerialLink
from firmware_bridge.protocol import (
    DEVICE_TYPES,
    DeviceHello,
    DeviceMessage,
    MessageDecoder,
    MessageEncoder,
    TagSeen,
)
from firmware_bridge.reader import RfidReader
from firmware_bridge.rfid_config import LinkConfig, ReaderConfig
from firmware_bridge.tags import TagIdentity
from hw_sim.devices.rfid_controller import NO_FLICKER, VirtualRfidController
from table_controller.vocabulary.observations import CardEvent, CardObservation, Observation


class _Unknown:
    def identify(self, uid: bytes) -> TagIdentity:
        return TagIdentity(card=None, deck=None, active=False)


def _percentile(sorted_values: list[float], p: float) -> float:
    k = min(len(sorted_values) - 1, max(0, round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def bench_decode(frames: int) -> dict[str, float]:
    enc = MessageEncoder()
    stream = enc.encode(DeviceHello(1, 0, (1, 0, 0), 14, 1, 100, "bench")) + b"".join(
        enc.encode(TagSeen(i % 14, (0x04A0_0000 + i).to_bytes(7, "big"), i, -50))
        for i in range(frames))
    dec = MessageDecoder(accept=DEVICE_TYPES)
    start = time.perf_counter()
    got = 0
    for i in range(0, len(stream), 4096):
        got += len(dec.feed(stream[i : i + 4096]))
    elapsed = time.perf_counter() - start
    assert got == frames + 1, (got, frames)
    return {"frames": frames, "seconds": elapsed, "frames_per_s": frames / elapsed,
            "MB_per_s": len(stream) / elapsed / 1e6}


class _TimedReader(RfidReader):
    """Stamps when the link hands a message over, to split the latency into the reader's own
    work and the rest (pty, thread wake-up, pyserial, decoding)."""

    t_in = 0.0

    def received(self, msg: DeviceMessage) -> None:
        self.t_in = time.perf_counter()
        super().received(msg)


def bench_latency(frames: int) -> dict[str, Any]:
    delivered: queue.Queue[tuple[float, float, Observation]] = queue.Queue()

    def sink(obs: Observation) -> None:
        delivered.put((time.perf_counter(), reader.t_in, obs))

    ctrl = VirtualRfidController(flicker=NO_FLICKER, heartbeat_interval=0.5)
    ctrl.start()
    reader = _TimedReader(resolver=_Unknown(), config=ReaderConfig(hold_time=0.6), sink=sink)
    link = SerialLink(url=ctrl.path, listener=reader, config=LinkConfig())
    reader.bind(link.send)
    link.start()
    try:
        delivered.get(timeout=10)  # the online status
        uid = b"\x04\xbe\x0c\x4a\x11\x22\x33"
        latencies: list[float] = []
        in_reader: list[float] = []
        for i in range(frames + 50):
            antenna = i % 2
            t0 = time.perf_counter()
            ctrl.send_raw([TagSeen(antenna, uid, i, -50)])
            while True:
                t1, t_in, obs = delivered.get(timeout=10)
                if isinstance(obs, CardObservation) and obs.event is CardEvent.PLACED:
                    break
            if i >= 50:  # warm-up excluded
                latencies.append(t1 - t0)
                in_reader.append(t1 - t_in)
        # burst: every frame written at once
        start = time.perf_counter()
        ctrl.send_raw([TagSeen(i % 2, uid, i, -50) for i in range(frames)])
        placed = 0
        while placed < frames:
            t_last, _, obs = delivered.get(timeout=30)
            if isinstance(obs, CardObservation) and obs.event is CardEvent.PLACED:
                placed += 1
        burst = t_last - start
        bad = link.stats.frames.frames_bad
    finally:
        link.stop()
        ctrl.stop()
    ms = sorted(v * 1000 for v in latencies)
    reader_ms = sorted(v * 1000 for v in in_reader)
    return {
        "frames": frames, "p50_ms": _percentile(ms, 50), "p90_ms": _percentile(ms, 90),
        "p99_ms": _percentile(ms, 99), "max_ms": ms[-1], "mean_ms": statistics.fmean(ms),
        "reader_p50_ms": _percentile(reader_ms, 50), "reader_p99_ms": _percentile(reader_ms, 99),
        "burst_frames_per_s": frames / burst, "bad_frames": bad,
    }


def main(quick: bool) -> dict[str, Any]:
    n = 1_000 if quick else 10_000
    load_before = os.getloadavg()[0]
    decode = bench_decode(n * 10)
    latency = bench_latency(n)
    load = {"loadavg_1min_before": load_before, "loadavg_1min_after": os.getloadavg()[0],
            "cpus": os.cpu_count() or 0}
    print(f"{'measure':<42}{'value':>14}")
    print(f"{'decode: frames/s (MessageDecoder)':<42}{decode['frames_per_s']:>14,.0f}")
    print(f"{'decode: MB/s':<42}{decode['MB_per_s']:>14.2f}")
    print(f"{'pty -> observation: p50 ms':<42}{latency['p50_ms']:>14.3f}")
    print(f"{'pty -> observation: p90 ms':<42}{latency['p90_ms']:>14.3f}")
    print(f"{'pty -> observation: p99 ms (goal < 2)':<42}{latency['p99_ms']:>14.3f}")
    print(f"{'pty -> observation: max ms':<42}{latency['max_ms']:>14.3f}")
    print(f"{'  of which in the reader: p50 ms':<42}{latency['reader_p50_ms']:>14.3f}")
    print(f"{'  of which in the reader: p99 ms':<42}{latency['reader_p99_ms']:>14.3f}")
    print(f"{'burst over pty: frames/s end to end':<42}{latency['burst_frames_per_s']:>14,.0f}")
    print(f"({latency['frames']} frames in the latency run; bad frames {latency['bad_frames']};"
          f" load average {load['loadavg_1min_before']:.1f} -> {load['loadavg_1min_after']:.1f}"
          f" on {load['cpus']} CPUs: a shared machine stretches the tail)")
    return {"decode": decode, "latency": latency, "machine_load": load}
