"""The allocator settings of a long-running daemon (docs/running.md, "Memory").

The camera's thread takes a frame of a few megabytes ten times a second and frees it; OpenCV
and NumPy allocate their working images the same way. glibc's malloc raises its mmap threshold
each time such a block is freed (up to 32 MB), after which frames come from the heap of the
thread's own arena, and the holes they leave between small long-lived objects are seldom given
back: the resident size grew by about 3 MB a minute with both sensors
(``python -m benchmarks daemon_memory``). :func:`settle_heap` fixes the threshold (blocks of
128 KiB and more are mapped and unmapped whole) and caps the arenas at two, before any thread
starts. Only glibc has ``mallopt``; elsewhere nothing is done. The environment's own
``MALLOC_ARENA_MAX`` / ``MALLOC_MMAP_THRESHOLD_`` are left to rule where set.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_MMAP_THRESHOLD = -3   # glibc's <malloc.h>
M_ARENA_MAX = -8
MMAP_THRESHOLD = 128 * 1024
ARENA_MAX = 2


def settle_heap() -> dict[str, int]:
    """Set the threshold and the arena cap (those not set by the environment); returns what
    was set (empty where the C library is not glibc)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = getattr(libc, "mallopt", None)
    except OSError:
        mallopt = None
    if mallopt is None:
        return {}
    wanted = {"MALLOC_MMAP_THRESHOLD_": (M_MMAP_THRESHOLD, MMAP_THRESHOLD),
              "MALLOC_ARENA_MAX": (M_ARENA_MAX, ARENA_MAX)}
    done: dict[str, int] = {}
    for env, (param, value) in wanted.items():
        if env in os.environ:
            continue
        if mallopt(ctypes.c_int(param), ctypes.c_int(value)) == 1:
            done[env] = value
    return done
