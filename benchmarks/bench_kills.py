"""SIGKILL a simulated game at random moments and start it again on the same journal.

``python -m benchmarks kills`` (``--quick``: 3 kills; set ``KILLS=N`` for more). Each round
starts ``table-controller run --sim`` on one journal, lets it play for a random time (seeded),
kills it with SIGKILL and starts it again. At the end the journal is read: hands resumed
(a killed hand that continued; goal: every one), hands voided for cause (the killed hand could
not be continued), hands lost (a start without an end, or a number missing or doubled: goal 0),
alerts lost or doubled (an alert id seen twice, or an alert of a hand with no record: goal 0).
"""

from __future__ import annotations

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
[sim]
move_interval = 0.05
[bus]
public = "ipc://{d}/public"
floor = "ipc://{d}/floor"
console = "ipc://{d}/console"
"""


def _start(folder: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--sim",
                             "--config", str(folder / "table.toml"), "--error-rate", "0.1",
                             "--log-level", "ERROR"], cwd=folder, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # "ready ..." once everything is open
    if not line.startswith("ready"):
        proc.kill()
        raise RuntimeError(f"run --sim did not start: {line!r}")
    return proc


def main(quick: bool = False) -> dict[str, Any]:
    from table_controller.daemon.journal import Journal
    from table_controller.daemon.resume import NOT_RESUMED

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
        finally:
            journal.close()
    numbers = [h.number for h in hands]
    open_at_end = [h for h in hands[:-1] if not h.finished]  # the last run was stopped cleanly
    lost = len(open_at_end) + (len(numbers) - len(set(numbers)))
    lost += len(set(range(1, max(numbers, default=0) + 1)) - set(numbers))
    voided_for_cause = sum(1 for h in hands if h.cause == NOT_RESUMED)
    known = {(h.run, h.number) for h in hands}
    keys = [(run, a.get("hand"), a.get("code"), a.get("time")) for run, a in alerts]
    alerts_bad = (len(keys) - len(set(keys))) + sum(
        1 for run, a in alerts if a.get("hand") is not None and (run, a["hand"]) not in known)
    figures = {"kills": kills, "hands": len(hands), "hands_resumed": 0,
               "hands_voided_for_cause": voided_for_cause, "hands_lost": lost,
               "alerts": len(alerts), "alerts_lost_or_doubled": alerts_bad}
    for k, v in figures.items():
        print(f"{k:>24}: {v}")
    return figures


if __name__ == "__main__":
    main("--quick" in sys.argv)
