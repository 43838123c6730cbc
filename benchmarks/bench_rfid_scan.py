"""The antenna controller's scan period, computed and measured in simulated time.

``python -m benchmarks rfid_scan`` (``--quick``: fewer cycles).

1. computed: the scan period for 13 antennas with two tags each, from the ISO/IEC 15693 air
   timings (firmware/iso15693.py), the driver's waits (firmware/pn5180.py) and the host and
   chip costs the simulator assumes (hw_sim/devices/pn5180_sim.py), summed by hand below.
2. measured: the firmware itself (core, PN5180 driver, inventory) scanning simulated chips
   with those tags; the cycle time is the firmware's own measurement on the simulated bus
   clock, so it shows what the code really does (its waits, its SPI frames), not a formula.
   Also: 13 empty antennas, and a table in play (four seats with two cards, a flop, a burn
   card and a full stub in the shuffler tray, inventoried rolling).
3. the simulator's cost: real CPU time per simulated cycle (what the suite pays per scan).
"""

from __future__ import annotations

import time
from typing import Any

from firmware import iso15693, pn5180
from hw_sim.devices import pn5180_sim as sim
from hw_sim.devices.rfid_controller import NO_FLICKER, VirtualRfidController


def uid(n: int) -> bytes:
    return bytes((0xE0, 0x04, 0x01, 0x00, 0x00, n >> 8, n & 0xFF, (n * 0x9D + 7) & 0xFF))


def frame_us(nbytes: int, processing: int) -> float:
    """One SPI frame as the simulator costs it: NSS and BUSY pin accesses, the transfer, the
    driver's wait for the chip to process it."""
    return (sim.SPI_CALL_US + nbytes * sim.SPI_BYTE_NS / 1000 + 4 * sim.PIN_US
            + max(pn5180.PROCESSING_US, processing))


def get_us(nbytes_out: int, nbytes_in: int, processing: int) -> float:
    return frame_us(nbytes_out, processing) + frame_us(nbytes_in, sim.ANSWER_FRAME_US)


def computed_antenna_us(tags: int) -> dict[str, float]:
    """One antenna that read ``tags`` (>= 2) tags last cycle: a 16-slot round, no collision."""
    p = sim.PROCESSING_US
    request = iso15693.request(0, 0, False)
    slot_wait = iso15693.T1_US + iso15693.TAG_SOF_US + iso15693.SLOT_MARGIN_US
    answer_wait = (iso15693.ANSWER_US - iso15693.TAG_SOF_US + iso15693.ANSWER_MARGIN_US
                   + iso15693.T2_US)
    parts = {
        "field on and settling": frame_us(2, p[pn5180.RF_ON]) + pn5180.FIELD_SETTLE_US
        + sim.PIN_US,
        "request (air)": iso15693.request_us(request),
        "request (SPI)": frame_us(25, p[pn5180.WRITE_REGISTER_MULTIPLE])
        + frame_us(2 + len(request), p[pn5180.SEND_DATA]),
        "15 EOFs (air)": 15 * iso15693.EOF_US,
        "15 EOFs (SPI)": 15 * frame_us(31, p[pn5180.WRITE_REGISTER_MULTIPLE]),
        "16 slot waits (t1 + SOF)": 16 * (slot_wait + sim.PIN_US),
        f"{tags} answers (air, t2)": tags * answer_wait,
        f"{tags} answers (SPI)": tags * (get_us(3, 8, p[pn5180.READ_REGISTER_MULTIPLE])
                                         + get_us(2, iso15693.ANSWER_BYTES, p[pn5180.READ_DATA])),
        "field off": frame_us(2, p[pn5180.RF_OFF]),
    }
    return parts


def measure(place: dict[int, int], cycles: int, *, tray: int = 0) -> dict[str, float]:
    """Mean simulated cycle (ms) and real CPU per cycle (ms) with ``place[antenna]`` tags on
    each antenna (and ``tray`` on antenna 13)."""
    ctrl = VirtualRfidController(flicker=NO_FLICKER, antenna_count=14 if tray else 13)
    n = 0
    try:
        for antenna, count in place.items():
            for _ in range(count):
                ctrl.place(uid(n), antenna)
                n += 1
        for _ in range(tray):
            ctrl.place(uid(n), 13)
            n += 1
        ctrl.scan(20)                 # learn the populations; the tray goes rolling
        sim_us = 0
        transfers = ctrl.bus.spi.transfers
        cpu = time.process_time()
        for _ in range(cycles):
            ctrl.scan_once()
            sim_us += ctrl.last_cycle_us
        cpu = time.process_time() - cpu
        return {"cycle_ms": sim_us / cycles / 1000, "cpu_ms": cpu / cycles * 1000,
                "spi_frames": (ctrl.bus.spi.transfers - transfers) / cycles}
    finally:
        ctrl.stop()


def main(quick: bool = False) -> dict[str, Any]:
    cycles = 20 if quick else 200
    parts = computed_antenna_us(2)
    per_antenna = sum(parts.values())
    print("computed, one antenna with two tags (µs):")
    for name, us in parts.items():
        print(f"  {name:<28} {us:8.0f}")
    print(f"  {'total':<28} {per_antenna:8.0f}   x 13 antennas = {13 * per_antenna / 1000:.1f} ms")
    two = measure({a: 2 for a in range(13)}, cycles)
    empty = measure({}, cycles)
    play = measure({0: 2, 1: 2, 2: 2, 3: 2, 10: 3, 11: 1}, cycles, tray=40)
    print("measured in the simulation (the firmware's own cycle time, simulated):")
    print(f"  {'table':<44} {'cycle ms':>9} {'SPI frames':>11} {'CPU ms/cycle':>13}")
    for name, r in (("13 antennas x 2 tags", two), ("13 empty antennas", empty),
                    ("in play: 4 seats x 2, flop, burn, stub of 40", play)):
        print(f"  {name:<44} {r['cycle_ms']:9.1f} {r['spi_frames']:11.0f} {r['cpu_ms']:13.2f}")
    return {"computed_antenna_us": round(per_antenna), "computed_13x2_ms":
            round(13 * per_antenna / 1000, 1), "measured_13x2": two, "measured_empty": empty,
            "measured_in_play": play}


if __name__ == "__main__":
    main()
