"""``table-controller phh``: hand histories in the PHH format.

``table-controller phh replay PATH... [--json] [--check]`` replays each ``.phh`` file (a folder is
searched recursively) through our rules engine and prints the finishing stacks, one line per hand
in the file's player order. A file that cannot be read or replayed gives one error line naming
the file and the problem; the other files are still replayed; the exit status is 1 if any failed.
``--check`` also fails a file whose ``finishing_stacks`` field disagrees with the replay (also
when the file's figure is not a whole number of chips, such as half an odd chip: it is kept as
written, not used by the replay, and reported).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from table_controller.phh.model import HandHistory


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="phh_command", metavar="SUBCOMMAND", required=True)
    replay = sub.add_parser(
        "replay",
        help="replay .phh files through the rules engine and print the finishing stacks",
        description="Replay PHH hand histories through the rules engine.",
    )
    replay.add_argument("paths", nargs="+", metavar="PATH", help=".phh file or folder of them")
    replay.add_argument("--json", action="store_true", help="one JSON object per line")
    replay.add_argument(
        "--check",
        action="store_true",
        help="fail a file whose finishing_stacks field differs from the replay",
    )


def run(args: argparse.Namespace) -> int:
    try:
        return _replay(args)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _replay(args: argparse.Namespace) -> int:
    from table_controller.phh import codec
    from table_controller.phh.model import PhhError
    from table_controller.phh.replay import replay

    files = codec.iter_phh_files(args.paths)
    if not files:
        print("no .phh files found in " + " ".join(args.paths), file=sys.stderr)
        return 1
    failed = 0
    for path in files:
        name = str(path)
        try:
            history = codec.load(path)
            try:
                stacks = list(replay(history).finishing_stacks)
            except PhhError as exc:
                raise PhhError(f"{name}: {exc}") from None
            if args.check:
                _check(name, history, stacks)
        except PhhError as exc:
            failed += 1
            message = str(exc)
            if args.json:
                print(json.dumps({"file": name, "error": message}), flush=True)
            else:
                print(f"error: {message}", file=sys.stderr, flush=True)
            continue
        if args.json:
            print(json.dumps({"file": name, "finishing_stacks": stacks}), flush=True)
        else:
            names = [history.player_name(i + 1) for i in range(len(stacks))]
            shown = ", ".join(f"{n} {s}" for n, s in zip(names, stacks, strict=True))
            print(f"{name}: {history.variant} {len(stacks)} players: {shown}", flush=True)
    if failed and not args.json:
        print(f"{failed} of {len(files)} file(s) failed", file=sys.stderr)
    return 1 if failed else 0


def _check(name: str, history: HandHistory, stacks: list[int]) -> None:
    """``--check``: the file's own ``finishing_stacks`` (whole chips, or kept as written when
    they are not) must equal the replay's."""
    from table_controller.phh.model import PhhError

    if "finishing_stacks" in history.unread:
        figure = history.unread["finishing_stacks"]
        raise PhhError(f"{name}: field 'finishing_stacks': the file says {figure!r} (not whole "
                       f"chips), the replay gives {stacks}")
    if history.finishing_stacks is not None and list(history.finishing_stacks) != stacks:
        raise PhhError(f"{name}: field 'finishing_stacks': the file says "
                       f"{list(history.finishing_stacks)}, the replay gives {stacks}")
