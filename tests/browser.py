"""A real browser for the page tests: Debian's Chromium driven by Playwright (no browser
download). The test setup installs the ``chromium`` package when it is missing and the tests
run as root (as CI does); elsewhere a missing Chromium fails the page tests with the command to
run. Screenshots go to ``out/screenshots/`` (kept out of git)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "out" / "screenshots"
CANDIDATES = ("chromium", "chromium-browser")
# As on a kiosk with no network: no background connections, no first-run work, no sandbox
# (the tests may run as root), software rendering.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]
VIEWPORTS = {"touch": {"width": 800, "height": 480}, "laptop": {"width": 1280, "height": 800}}
"""The official 7-inch Raspberry Pi display, and a laptop."""


class NoBrowser(RuntimeError):
    """Chromium is not installed and could not be installed."""


def _found() -> str | None:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def ensure_chromium() -> str:
    """The path of Debian's Chromium, installing the package first when it is missing and this
    process may (root with apt-get)."""
    path = os.environ.get("CHROMIUM") or _found()
    if path:
        return path
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise NoBrowser("Chromium is not installed: run 'sudo apt-get install chromium'")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"],
                    ["apt-get", "install", "-y", "-qq", "chromium"]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900,
                              check=False)
        if done.returncode != 0:
            raise NoBrowser(f"{' '.join(command)} failed: {done.stderr.strip()[-500:]}")
    path = _found()
    if path is None:
        raise NoBrowser("apt-get installed chromium but no chromium binary is on PATH")
    return path


def launch(playwright: Any) -> Any:
    """A headless Chromium browser of ``playwright`` (``sync_playwright()``'s object)."""
    return playwright.chromium.launch(executable_path=ensure_chromium(), headless=True,
                                      args=FLAGS)


def screenshot(page: Any, name: str) -> Path:
    """Save the page as ``out/screenshots/NAME.png`` and return the path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
