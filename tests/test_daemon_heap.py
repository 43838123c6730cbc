"""The daemon's allocator settings (table_controller/daemon/heap.py)."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest


def _settle(env: dict[str, str]) -> str:
    code = "from table_controller.daemon.heap import settle_heap; print(sorted(settle_heap()))"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_the_threshold_and_the_arenas_are_set_unless_the_environment_sets_them() -> None:
    base = {"PATH": "/usr/bin:/bin"}
    assert _settle(base) == "['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']"
    assert _settle(base | {"MALLOC_ARENA_MAX": "4"}) == "['MALLOC_MMAP_THRESHOLD_']"
