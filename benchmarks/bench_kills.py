"""SIGKILL a simulated game at random moments and start it again on the same journal.

``python -m benchmarks kills`` (``--quick``: 3 kills; set ``KILLS=N`` for more). Each round
starts ``table-controller run --sim`` on one journal, lets it play for a random time (seeded),
kills it with SIGKILL and starts it again. At the end the journal is read: hands resumed
(a killed hand that continued; goal: every one), hands voided for cause (the killed hand could
not be continued), hands lost (a start without an end, or a number missing or doubled: goal 0),
alerts lost (an alert of a hand with no record, or an open alert of a finished hand that never
got its end: goal 0) or doubled (one alert published under two ids: goal 0).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

CONFIG = """
[table]
seats = 6
sensors = ["rfid"]
[players]
1 = 200
2 = 200
3 = 200
4 = 200
[journal]
path = "journal.sqlite"
[station]
listen = "none"
[sim]
move_interval = 0.05
[bus]
public = "ipc://{d}/public"
floor = "ipc://{d}/floor"
console = "ipc://{d}/console"
alerts = "ipc://{d}/alerts"
"""


def _start(folder: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    log = (folder / "stderr.log").open("a")  # every run's errors, for a start that fails
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--sim",
                             "--config", str(folder / "table.toml"), "--error-rate", "0.1",
                             "--log-level", "ERROR"], cwd=folder, text=True,
                            stdout=subprocess.PIPE, stderr=log, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # "ready ..." once everything is open
    log.close()
    if not line.startswith("ready"):
        proc.kill()
        tail = (folder / "stderr.log").read_text()[-2000:]
        raise RuntimeError(f"run --sim did not start: {line!r}\n{tail}")
    return proc


def main(quick: bool = False) -> dict[str, Any]:
    from table_controller.daemon.journal import Journal

    began = time.monotonic()
    kills = 3 if quick else int(os.environ.get("KILLS", "20"))
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "table.toml").write_text(CONFIG.format(d=tmp))
        for _ in range(kills):
            proc = _start(folder)
            time.sleep(rng.uniform(0.5, 12.0))
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=30)
        proc = _start(folder)  # the last start closes what the last kill left open
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
        journal = Journal.open(folder / "journal.sqlite", readonly=True)
        try:
            hands = journal.all_hands()
            alerts = journal.all_alerts()
            runs = journal.runs()
        finally:
            journal.close()
    figures: dict[str, Any] = {"kills": kills, **judge(hands, alerts, runs)}
    figures["kills_between_hands"] = (kills - figures["hands_resumed"]
                                      - figures["hands_voided_for_cause"])
    figures["seconds"] = round(time.monotonic() - began, 1)
    for k, v in figures.items():
        print(f"{k:>24}: {v}")
    from table_controller.daemon.resume import NOT_RESUMED

    for h in hands:  # why each hand that could not be resumed was not
        if (h.cause or "").startswith(NOT_RESUMED):
            print(f"  hand {h.number} (run {h.run}) voided: {h.cause}")
    return figures


def judge(hands: list[Any], alerts: list[tuple[int, dict[str, Any]]],
          runs: list[dict[str, Any]]) -> dict[str, int]:
    """The figures of one journal: ``hands``, ``alerts`` and ``runs`` as the journal lists
    them (:meth:`Journal.all_hands`, :meth:`Journal.all_alerts`, :meth:`Journal.runs`)."""
    from table_controller.daemon.resume import NOT_RESUMED

    numbers = [h.number for h in hands]
    open_at_end = [h for h in hands[:-1] if not h.finished]  # the last run was stopped cleanly
    lost = len(open_at_end) + (len(numbers) - len(set(numbers)))
    lost += len(set(range(1, max(numbers, default=0) + 1)) - set(numbers))
    notes = [json.loads(r["config"]) for r in runs]
    resumed = sum(1 for n in notes if "resumed" in n)
    voided_for_cause = sum(1 for h in hands if (h.cause or "").startswith(NOT_RESUMED))
    finished = {h.number for h in hands if h.finished}
    # doubled: one alert published twice (the same hand, code, seat, cards and message under
    # two ids); lost: an alert of a hand with no record, or an open alert (stop, fix, warn) of
    # a finished hand that never got its end (a resume that forgot it)
    firsts = [a for _run, a in alerts if a.get("type") == "alert" and not a.get("update")]
    keys = [(a.get("hand"), a.get("code"), a.get("seat"), tuple(a.get("cards") or ()),
             a.get("message")) for a in firsts]
    doubled = len(keys) - len(set(keys))
    ended = {a.get("id") for _run, a in alerts if a.get("type") == "alert_resolved"}
    unknown = sum(1 for a in firsts if a.get("hand") is not None and a["hand"] not in numbers)
    never_ended = sum(1 for a in firsts if a.get("severity") in ("stop", "fix", "warn")
                      and a.get("hand") in finished and a.get("id") not in ended)
    return {"hands": len(hands), "hands_resumed": resumed,
            "hands_voided_for_cause": voided_for_cause, "hands_lost": lost,
            "alerts": len(firsts), "alerts_lost": unknown + never_ended,
            "alerts_doubled": doubled}


if __name__ == "__main__":
    main("--quick" in sys.argv)
