"""A real PostgreSQL server for the tests that need one: a fresh cluster in a temporary folder,
listening on a unix socket only, stopped and removed afterwards. It needs Debian's
``postgresql`` package (``.ci/run`` installs it when missing); where no server binary exists the
tests that need it are skipped, saying so. As root (CI) the server runs as the ``postgres``
user the package creates, since PostgreSQL refuses to run as root."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class NoServer(RuntimeError):
    """No PostgreSQL server binary on this machine."""


def server_bin() -> Path:
    """The folder of ``initdb`` and ``pg_ctl``."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise NoServer("no PostgreSQL server binary (initdb) on this machine: "
                   "apt-get install postgresql")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server() -> Iterator[str]:
    """Start a cluster; yield its connection URL (user ``postgres``, database ``postgres``)."""
    bindir = server_bin()
    root = Path(tempfile.mkdtemp(prefix="tc-pg-"))
    data, sockets = root / "data", root / "run"
    sockets.mkdir()
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            raise NoServer("running as root and runuser is missing")
        shutil.chown(root, user="postgres")
        shutil.chown(sockets, user="postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    log = root / "server.log"

    def run(*args: str) -> None:
        done = subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120,
                              check=False)
        if done.returncode != 0:
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stderr.strip()}\n{tail}")

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
            "--no-sync", "-E", "UTF8")
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60",
            "-o", f"-c listen_addresses='' -k {sockets} -p {port} -c fsync=off", "start")
        try:
            yield f"postgresql://postgres@/postgres?host={sockets}&port={port}"
        finally:
            run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)
