"""The web server loads anyio's parts when it is made, on the thread that makes it, not on
its own thread in the middle of the first request (table_controller/webserve.py
``load_anyio``). Two runs of the whole suite failed the station's first static file that way:
anyio's file functions were imported on the server's thread while the test thread parsed a
module too (CPython 3.11.7's gh-106905)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from starlette.applications import Starlette
from table_controller.webserve import WebServer
assert "anyio._core._fileio" not in sys.modules, "loaded before the server was made"
WebServer(Starlette(), "127.0.0.1", 0)
for part in ("anyio._core._fileio", "anyio.to_thread"):
    assert part in sys.modules, part
print("ok")
"""


def test_the_server_loads_anyio_on_the_thread_that_makes_it() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
