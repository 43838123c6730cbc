"""The dealer station (issue 12): from a card on the felt to its alert drawn in the page, the
memory the station adds to the controller, and the page's weight.

``python -m benchmarks station`` (``--quick``: 30 alerts instead of 200).

1. latency: ``table-controller run --sim`` as a process (two players, the RFID chain over a
   pty), Debian's Chromium showing its station. Each round: the green button, then the dealer
   puts the first card of the deal on the wrong seat (``sim_put``); the time runs from just
   before that console request is sent (the card lands at the controller's next look at its
   sensors, within one loop period, so this counts a little more than card to alert) to the
   moment the page has drawn the alert (a frame after the element went into the page, the
   page's own clock; both clocks are this machine's wall clock). Then the floor resolves the
   misdeal (the hand is void). p50, p99, max over the rounds (goals: p99 < 250 ms, and every
   alert within a second of its card, issue 12: the tests only check that it is pushed).
2. memory: resident memory (VmRSS) of the controller process with the station and of the same
   controller with ``[station] listen = "none"``, each after the same rounds (the station's
   with its page connected); the difference is the station's (goal < 40 MB). Also the
   controller's CPU while the table is idle for 5 s, with and without the station.
3. weight: bytes of the page, its script and style sheets as served (goal < 300 KB; the cards
   are drawn by the script, there are no pictures).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tests.station_daemon import Daemon, config_text, start_daemon

GOAL_P99_MS = 250.0
GOAL_MAX_MS = 1000.0  # issue 12: every alert drawn within a second of its card
GOAL_MEMORY_MB = 40.0
GOAL_WEIGHT_KB = 300.0
PRESS_GAP_S = 0.3  # a press is held 0.12 s, then the release settles (firmware_bridge.button)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _idle_cpu_percent(d: Daemon, seconds: float = 5.0) -> float:
    before = _cpu_seconds(d.proc.pid)
    time.sleep(seconds)
    return round(100 * (_cpu_seconds(d.proc.pid) - before) / seconds, 1)


def _clear_felt(d: Daemon, page: Any | None) -> None:
    d.ask({"cmd": "sim_collect"})
    d.idle()
    if page is None:  # no station to ask: give the reader time to see every card go
        time.sleep(3.0)
        return
    page.wait_for_function("() => window.station.view.table.felt === 0", timeout=30_000)


def _rounds(d: Daemon, count: int, page: Any | None, wrong: int | None = None
            ) -> tuple[list[float], int]:
    """``count`` misdeals: the first card of each deal on the wrong seat (the second one of
    the deal order, found by the page, else ``wrong``); with ``page``, the latency of each to
    its alert drawn (ms)."""
    latencies: list[float] = []
    on_felt = 0
    for n in range(count):
        if on_felt >= 40:  # the shuffler runs low: gather everything once in a while
            _clear_felt(d, page)
            on_felt = 0
        d.ask({"cmd": "sim_press"})
        pressed = time.monotonic()
        d.until("a hand", lambda s: s["hand"] is not None)
        seen_before = 0
        if page is not None:
            page.wait_for_function("() => window.station.view.hand !== null")
            wrong = page.evaluate("() => window.station.view.hand.deal_order[1]")
            seen_before = page.evaluate("() => Object.keys(window.station.alertSeen).length")
        sent = time.time()
        d.ask({"cmd": "sim_put", "zone": f"seat{wrong}", "face": "down"})
        on_felt += 1
        if page is not None:
            page.wait_for_function(
                "n => { const seen = Object.values(window.station.alertSeen);"
                " return seen.length > n && seen[seen.length - 1] !== null; }",
                arg=seen_before, timeout=10_000)
            drawn = page.evaluate("() => { const s = window.station.alertSeen;"
                                  " return s[Math.max(...Object.keys(s).map(Number))]; }")
            latencies.append(drawn - sent * 1000)
        else:
            d.until("the misdeal", lambda s: "MISDEAL_WRONG_FIRST_SEAT" in s["open_alerts"])
        d.ask({"cmd": "resolve", "code": "MISDEAL_WRONG_FIRST_SEAT"})
        d.idle()
        # the button must be let go (and settle) before it can start the next hand
        time.sleep(max(0.0, pressed + PRESS_GAP_S - time.monotonic()))
        if n % 50 == 49:
            print(f"  {n + 1} rounds", flush=True)
    assert wrong is not None
    return latencies, wrong


def _weight(d: Daemon) -> dict[str, int]:
    out: dict[str, int] = {}
    with httpx.Client(base_url=d.station, timeout=10) as http:
        page = http.get("/")
        out["station.html"] = len(page.content)
        for name in ("station.js", "station.css", "cards.js"):
            out[name] = len(http.get(f"/static/{name}").content)
    return out


# ---------------------------------------------------------------------- open alerts, in process
OPEN_SIZES = (10, 1_000, 3_000)


def _controller_with_station(folder: Path) -> tuple[Any, Any, Any]:
    """A controller as ``run`` builds it without a page (``[station] listen = "none"``: the
    station's commands and board, no views), a real journal, no sensors."""
    from hw_sim.devices.clock import SimClock
    from table_controller.config import StationSettings
    from table_controller.daemon.controller import Controller
    from table_controller.daemon.journal import Journal
    from table_controller.engine import GameConfig, Table
    from table_controller.monitor import DealingMonitor, MonitorConfig
    from table_controller.station import Station

    clock = SimClock()
    table = Table(GameConfig(small_blind=1, big_blind=2), seats=6)
    for seat in (1, 2):
        table.sit(seat, 100)
    monitor = DealingMonitor(table, config=MonitorConfig(sensors=frozenset({"rfid"})))
    journal = Journal.open(folder / "journal.sqlite")
    station = Station(StationSettings(listen=None))
    controller = Controller(monitor=monitor, sensors=[], journal=journal, clock=clock,
                            commands=station.commands())
    journal.start_run(t=clock(), wall="2026-12-02T00:00:00.000+00:00", table_name="bench",
                      config="{}")
    station.attach(controller, serve=False, views=False)
    return clock, controller, station


def _foreign(controller: Any, i: int, t: float) -> None:
    """A tag of no deck put on a seat, then taken away (as ``daemon_latency`` does): its
    FOREIGN_CARD alert stays open, nobody resolves it."""
    from table_controller.vocabulary.observations import CardEvent, CardObservation, Source

    for event in (CardEvent.PLACED, CardEvent.REMOVED):
        controller.observe(CardObservation(event, f"seat{1 + i % 6}", t, Source.RFID,
                                           key=f"04b0{i:010x}", foreign=True))


def open_alert_costs(sizes: tuple[int, ...] = OPEN_SIZES, repeat: int = 200
                     ) -> dict[str, dict[str, float]]:
    """The cost of one loop step with nothing new (``Controller.step``) and of one observation
    that raises an alert (a foreign tag put down and taken away, then ``step``), with ``n``
    FOREIGN_CARD alerts open (between hands, never resolved: the case of ``daemon_latency``),
    the station attached as ``run`` attaches it without a page. Median over ``repeat`` of
    each, in ms."""
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-open-alerts-") as tmp:
        clock, controller, _station = _controller_with_station(Path(tmp))
        raised = 0
        try:
            for n in sizes:
                while raised < n:
                    clock.advance(0.01)
                    _foreign(controller, raised, clock())
                    raised += 1
                controller.step()
                steps, events = [], []
                for _ in range(repeat):
                    clock.advance(0.02)
                    t0 = time.perf_counter()
                    controller.step()
                    steps.append(time.perf_counter() - t0)
                for _ in range(repeat // 10):  # each adds one open alert: n stays about n
                    clock.advance(0.02)
                    t0 = time.perf_counter()
                    _foreign(controller, raised, clock())
                    controller.step()
                    events.append(time.perf_counter() - t0)
                    raised += 1
                assert len(controller.monitor.open_alerts) == raised
                out[str(n)] = {"step_ms": round(1000 * statistics.median(steps), 3),
                               "observation_ms": round(1000 * statistics.median(events), 3)}
        finally:
            controller.close()
    return out


def main(quick: bool) -> dict[str, object]:
    from playwright.sync_api import sync_playwright

    from tests.browser import VIEWPORTS, launch

    count = 30 if quick else 200
    costs = open_alert_costs()
    print(f"{'open alerts':>12}{'loop step ms':>14}{'observation ms':>16}")
    for n, c in costs.items():
        print(f"{n:>12}{c['step_ms']:>14.3f}{c['observation_ms']:>16.3f}")
    folder = Path(tempfile.mkdtemp(prefix="bench-station-"))
    results: dict[str, object] = {"open_alerts_cost": costs}
    try:
        with_station = start_daemon(folder / "with", config_text(folder / "with", players=2))
        try:
            results["idle_cpu_percent_with_station"] = _idle_cpu_percent(with_station)
            with sync_playwright() as playwright:
                browser = launch(playwright)
                page = browser.new_page(viewport=VIEWPORTS["touch"])
                page.goto(f"{with_station.station}/")
                page.wait_for_function("() => window.station && window.station.seq > 0")
                latencies, wrong = _rounds(with_station, count, page)
                results["rss_mb_with_station"] = round(_rss_mb(with_station.proc.pid), 1)
                browser.close()
            results["weight_bytes"] = weight = _weight(with_station)
        finally:
            with_station.stop()
        bare_folder = folder / "without"
        bare_config = config_text(bare_folder, players=2).replace(
            'listen = "127.0.0.1:0"', 'listen = "none"')
        bare = start_daemon(bare_folder, bare_config)
        try:
            results["idle_cpu_percent_without_station"] = _idle_cpu_percent(bare)
            _rounds(bare, count, None, wrong)
            results["rss_mb_without_station"] = round(_rss_mb(bare.proc.pid), 1)
        finally:
            bare.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    added = float(str(results["rss_mb_with_station"])) - \
        float(str(results["rss_mb_without_station"]))
    total_kb = sum(weight.values()) / 1024
    results.update({
        "alerts": len(latencies),
        "card_to_alert_drawn_ms": {"p50": round(statistics.median(ordered), 1),
                                   "p99": round(p99, 1), "max": round(ordered[-1], 1),
                                   "goal_p99": GOAL_P99_MS, "goal_max": GOAL_MAX_MS,
                                   "within_goal_max": sum(v <= GOAL_MAX_MS for v in ordered)},
        "added_memory_mb": round(added, 1), "goal_memory_mb": GOAL_MEMORY_MB,
        "page_kb": round(total_kb, 1), "goal_page_kb": GOAL_WEIGHT_KB,
    })
    lat = results["card_to_alert_drawn_ms"]
    print(f"card on the felt -> alert drawn: {lat} over {len(latencies)} alerts")
    print(f"memory: {results['rss_mb_with_station']} MB with the station, "
          f"{results['rss_mb_without_station']} MB without: +{results['added_memory_mb']} MB "
          f"(goal < {GOAL_MEMORY_MB:g})")
    print(f"idle CPU: {results['idle_cpu_percent_with_station']} % with, "
          f"{results['idle_cpu_percent_without_station']} % without")
    print(f"page: {results['page_kb']} KB {weight} (goal < {GOAL_WEIGHT_KB:g})")
    return results
