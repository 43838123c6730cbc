"""Who may read what the controller writes: the journal (hole cards, every request), the key
files and the ``ipc://`` sockets belong to the controller's user, and to one group if the
configuration names it (``[access] group``), never to anyone else.

Modes: files 0600 (0640 with the group), sockets 0600 (0660: connecting needs write access),
folders the controller makes 0700 (0750). The process's umask is set to match before anything
is created (:func:`FileAccess.umask`), and each file is set again after it is made (the
journal's ``-wal`` and ``-shm`` files take the journal's mode from SQLite).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class FileAccess:
    """``gid``: the group that may read (None: the owner alone)."""

    gid: int | None = None

    @property
    def file_mode(self) -> int:
        return 0o640 if self.gid is not None else 0o600

    @property
    def socket_mode(self) -> int:
        return 0o660 if self.gid is not None else 0o600

    @property
    def folder_mode(self) -> int:
        return 0o750 if self.gid is not None else 0o700

    def umask(self) -> int:
        """Set the process's umask so nothing is created readable by others; returns the
        previous one."""
        return os.umask(0o027 if self.gid is not None else 0o077)

    def _set(self, path: Path, mode: int) -> None:
        if self.gid is not None:
            os.chown(path, -1, self.gid)
        path.chmod(mode)

    def prepare_file(self, path: str | Path) -> None:
        """Create ``path`` (and its folder) with the file mode if it is not there, and set the
        mode of what is there (an existing journal made readable to all is tightened)."""
        p = Path(path)
        if not p.parent.exists():
            p.parent.mkdir(parents=True, mode=self.folder_mode)
        fd = os.open(p, os.O_WRONLY | os.O_CREAT, self.file_mode)
        os.close(fd)
        self._set(p, self.file_mode)

    def journal(self, path: str | Path) -> None:
        """The journal file and SQLite's companions next to it."""
        p = Path(path)
        for each in (p, p.with_name(p.name + "-wal"), p.with_name(p.name + "-shm")):
            if each.exists():
                self._set(each, self.file_mode)

    def ipc(self, endpoint: str) -> None:
        """The socket file of an ``ipc://`` endpoint (anything else is left alone)."""
        if not endpoint.startswith("ipc://"):
            return
        name = endpoint[len("ipc://"):]
        if name.startswith("@"):  # Linux abstract namespace: no file to protect
            return
        with contextlib.suppress(FileNotFoundError):
            self._set(Path(name), self.socket_mode)
