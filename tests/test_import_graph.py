"""The layers hold: ``tools/import_graph.py --check`` (the command anyone can run) finds no
import loop, between modules or between packages, and no arrow pointing up a layer
(docs/architecture.md). It reads the sources with ``ast``; nothing is imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "import_graph.py"


def check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), "--check", "--root", str(root)],
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_project_has_no_loop_and_no_layer_break() -> None:
    done = check(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    for line in ("module loops: 0", "group loops: 0", "layer breaks: 0"):
        assert line in done.stdout.splitlines(), done.stdout


def _module(root: Path, name: str, text: str) -> None:
    path = root.joinpath(*name.split(".")).with_suffix(".py")
    path.parent.mkdir(parents=True, exist_ok=True)
    for folder in path.relative_to(root).parents:
        (root / folder / "__init__.py").touch()
    path.write_text(text, encoding="utf-8")


def test_the_check_finds_a_loop_and_an_upward_arrow(tmp_path: Path) -> None:
    _module(tmp_path, "table_controller.monitor.checks",
            "from table_controller.monitor import monitor\n")
    _module(tmp_path, "table_controller.monitor.monitor",
            "from table_controller.monitor import checks\n"
            "from table_controller.daemon import controller\n")
    _module(tmp_path, "table_controller.daemon.controller", "import hw_sim.devices.clock\n")
    _module(tmp_path, "hw_sim.devices.clock", "from hw_sim.harness import runner\n")
    _module(tmp_path, "hw_sim.harness.runner", "from hw_sim.devices import clock\n")
    _module(tmp_path, "vision.sources", "import hw_sim.devices.clock\n")
    done = check(tmp_path)
    assert done.returncode == 1
    out = done.stdout
    assert "table_controller.monitor.checks <-> table_controller.monitor.monitor" in out
    assert "hw_sim.devices <-> hw_sim.harness" in out
    for wrong in ("table_controller.monitor.monitor -> table_controller.daemon.controller",
                  "table_controller.daemon.controller -> hw_sim.devices.clock",
                  "hw_sim.devices.clock -> hw_sim.harness.runner",
                  "vision.sources -> hw_sim.devices.clock"):
        assert wrong in out, out
