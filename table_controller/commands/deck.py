"""``table-controller deck``: enrol the table's decks and choose the one in play.

- ``deck import FILE --deck NAME [--allow-missing]``: enrol a deck from a deck file (format in
  :mod:`firmware_bridge.deck_enrolment`: one ``UID,CARD`` per line, ``joker`` for jokers);
- ``deck enroll --deck NAME (--port URL | --uids-from FILE) [--antenna N] [--jokers N]``: walk
  the dealer through the 52 cards on the enrolment antenna ("Place As on the enrolment
  antenna"); type ``skip``, ``undo``, ``done`` (keep what is enrolled) or ``quit`` (keep nothing);
- ``deck list``, ``deck show NAME [--tags]``, ``deck activate NAME``, ``deck alternate`` (the
  other deck, at a dealer change: rules.md §1), ``deck remove NAME``.

The registry is a SQLite file: ``--db PATH``, else ``$TABLE_CONTROLLER_DB``, else
``./table-controller.sqlite3``. A broken deck file or database is reported in one clear message
and exit status 2; nothing is changed.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from firmware_bridge.decks import DeckInfo, DeckRegistry

DEFAULT_DB = "table-controller.sqlite3"
DB_ENV = "TABLE_CONTROLLER_DB"


def default_db() -> str:
    return os.environ.get(DB_ENV) or str(Path.cwd() / DEFAULT_DB)


def configure(parser: argparse.ArgumentParser) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", metavar="PATH", default=None,
                        help=f"deck registry database (default: ${DB_ENV} or ./{DEFAULT_DB})")
    sub = parser.add_subparsers(dest="deck_command", metavar="SUBCOMMAND", required=True)

    p = sub.add_parser("import", parents=[common], help="enrol a deck from a deck file",
                       description="Enrol (or re-enrol) a deck from a file of 'UID,CARD' lines.")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--deck", required=True, metavar="NAME")
    p.add_argument("--allow-missing", action="store_true",
                   help="enrol a deck that lacks some cards (they are listed)")

    p = sub.add_parser("enroll", parents=[common], help="enrol a deck card by card on an antenna",
                       description="Walk through the 52 cards on the enrolment antenna. Type "
                                   "skip, undo, done (keep what is enrolled) or quit (keep "
                                   "nothing) at any time.")
    p.add_argument("--deck", required=True, metavar="NAME")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--port", metavar="URL",
                        help="the RFID controller's serial port (/dev/serial/by-id/... or a "
                             "pyserial URL)")
    source.add_argument("--uids-from", metavar="FILE",
                        help="read tag UIDs (hex, one a line) and words (skip, undo, done, quit) "
                             "from FILE instead of an antenna")
    p.add_argument("--antenna", type=int, metavar="N",
                   help="take tags from antenna N only (default: any antenna)")
    p.add_argument("--jokers", type=int, default=0, metavar="N",
                   help="also enrol N jokers after the 52 cards")

    sub.add_parser("list", parents=[common], help="the enrolled decks")
    p = sub.add_parser("show", parents=[common], help="one deck: counts and missing cards")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--tags", action="store_true",
                   help="also print every tag, as a deck file 'deck import' reads back")
    p = sub.add_parser("activate", parents=[common], help="make a deck the one in play")
    p.add_argument("name", metavar="NAME")
    sub.add_parser("alternate", parents=[common],
                   help="switch to the table's other deck (at a dealer change)")
    p = sub.add_parser("remove", parents=[common], help="forget a deck and its tags")
    p.add_argument("name", metavar="NAME")


def run(args: argparse.Namespace) -> int:
    from firmware_bridge.deck_enrolment import DeckFileError
    from firmware_bridge.decks import DeckRegistry, DeckRegistryError

    db = args.db or default_db()
    command: str = args.deck_command
    creates = command in ("import", "enroll")
    try:
        with DeckRegistry.open(db, create=creates) as registry:
            handler: Callable[[DeckRegistry, argparse.Namespace], int] = _HANDLERS[command]
            return handler(registry, args)
    except (DeckRegistryError, DeckFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except _InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


# -- simple subcommands --------------------------------------------------------------------------


def _import(registry: DeckRegistry, args: argparse.Namespace) -> int:
    from firmware_bridge.deck_enrolment import read_deck_file
    _deck_name(args.deck)
    entries = read_deck_file(args.file, allow_missing=args.allow_missing)
    info = registry.enroll(args.deck, entries, allow_missing=args.allow_missing)
    print(f"deck {info.name!r} enrolled from {args.file}: {_describe(info)}")
    return 0


def _list(registry: DeckRegistry, args: argparse.Namespace) -> int:
    decks = registry.decks()
    if not decks:
        print(f"no decks enrolled in {registry.path}")
        return 0
    for info in decks:
        print(f"{'*' if info.active else ' '} {info.name:<16} {_describe(info)}")
    return 0


def _show(registry: DeckRegistry, args: argparse.Namespace) -> int:
    from firmware_bridge.deck_enrolment import format_deck_file

    info = registry.deck(args.name)
    print(f"deck {info.name!r}: {_describe(info)}; enrolled {info.enrolled_at} UTC")
    if info.missing:
        print("missing: " + " ".join(str(c) for c in info.missing))
    if args.tags:
        sys.stdout.write(format_deck_file(registry.tags(args.name), title=f"deck {info.name}"))
    return 0


def _activate(registry: DeckRegistry, args: argparse.Namespace) -> int:
    registry.activate(args.name)
    print(f"deck {args.name!r} is in play")
    return 0


def _alternate(registry: DeckRegistry, args: argparse.Namespace) -> int:
    print(f"deck {registry.alternate()!r} is in play")
    return 0


def _remove(registry: DeckRegistry, args: argparse.Namespace) -> int:
    registry.remove(args.name)
    print(f"deck {args.name!r} removed")
    return 0


def _describe(info: DeckInfo) -> str:
    text = f"{info.cards}/52 cards"
    if info.jokers:
        text += f", {info.jokers} joker{'s' if info.jokers > 1 else ''}"
    text += f", {len(info.missing)} missing" if info.missing else ", complete"
    return text + (", in play" if info.active else "")


# -- interactive enrolment -----------------------------------------------------------------------


def _deck_name(name: str) -> None:
    from table_controller.vocabulary.cards import CardError, check_deck_name

    try:
        check_deck_name(name)
    except CardError as exc:
        raise _InputError(str(exc)) from None


class _InputError(Exception):
    """The UID source cannot be used (unreadable or malformed --uids-from file)."""


@dataclass(frozen=True, slots=True)
class _Status:
    """A message from the UID source (link up or down), shown to the dealer."""

    text: str


class _End:
    """The input ended."""


Event = bytes | str | _Status | _End


class EnrolmentEvents:
    """What drives an enrolment: UIDs (bytes) from an antenna, the dealer's words (str), status
    lines, and the end of input, from any number of producer threads."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Event] = queue.Queue()

    def uid(self, uid: bytes) -> None:
        self._queue.put(uid)

    def word(self, word: str) -> None:
        self._queue.put(word)

    def status(self, text: str) -> None:
        self._queue.put(_Status(text))

    def end(self) -> None:
        self._queue.put(_End())

    def next(self, timeout: float | None = None) -> Event | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None


def read_uid_script(path: str, events: EnrolmentEvents) -> None:
    """``--uids-from FILE``: one hex UID or word (skip, undo, done, quit) a line, ``#``
    comments; every line is checked before anything is fed."""
    from firmware_bridge.deck_enrolment import WORDS, parse_uid

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _InputError(f"{path}: cannot read: {exc}") from None
    items: list[bytes | str] = []
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.lower() in WORDS:
            items.append(line.lower())
            continue
        try:
            items.append(parse_uid(line))
        except ValueError as exc:
            problems.append(f"line {number}: {exc}")
    if problems:
        raise _InputError(f"{path}: " + "; ".join(problems))
    for item in items:
        if isinstance(item, bytes):
            events.uid(item)
        else:
            events.word(item)
    events.end()


def read_words(stream: TextIO, events: EnrolmentEvents) -> threading.Thread:
    """The dealer's words from ``stream`` (the keyboard), on a daemon thread. End of input
    (Ctrl-D) on a terminal is ``quit``; without a terminal (a service, a test) there is no
    keyboard, and the enrolment ends when the deck is complete."""

    def pump() -> None:
        try:
            interactive = stream.isatty()
            for line in stream:
                if line.strip():
                    events.word(line.strip())
        except (OSError, ValueError):
            return  # no usable keyboard
        if interactive:
            events.end()

    thread = threading.Thread(target=pump, name="enrol-keyboard", daemon=True)
    thread.start()
    return thread


class _LinkTags:
    """A :class:`firmware_bridge.link.LinkListener` that passes the UIDs of tags arriving on
    the enrolment antenna to the events.

    The controller reports raw edges and a tag lying on an antenna may flicker (TAG_GONE then
    TAG_SEEN, docs/protocol.md §6): a tag seen again within ``hold`` seconds of going is the
    same placement, not a new one, and is not passed on.
    """

    def __init__(self, events: EnrolmentEvents, *, antenna: int | None, hold: float,
                 clock: Callable[[], float]) -> None:
        self._events = events
        self._antenna = antenna
        self._hold = hold
        self._clock = clock
        self._gone: dict[bytes, float] = {}
        self._down: str | None = None

    def link_up(self, hello: Any) -> None:
        self._down = None
        self._events.status("RFID controller connected")

    def link_down(self, reason: str) -> None:
        if reason != self._down:  # the link retries every few seconds: say it once
            self._down = reason
            self._events.status(f"RFID controller not answering ({reason}); retrying")

    def received(self, msg: Any) -> None:
        from firmware_bridge.protocol import TagGone, TagSeen

        if not isinstance(msg, TagSeen | TagGone):
            return
        if self._antenna is not None and msg.antenna != self._antenna:
            return
        uid = bytes(msg.uid)
        now = self._clock()
        if isinstance(msg, TagGone):
            self._gone[uid] = now
            return
        gone = self._gone.pop(uid, None)
        if gone is not None and now - gone < self._hold:
            return  # flicker of a tag that never left
        self._events.uid(uid)

    def frames_lost(self, lost: Any) -> None:
        return None

    def tick(self) -> None:
        return None


def _enroll(registry: DeckRegistry, args: argparse.Namespace) -> int:
    from firmware_bridge.deck_enrolment import Enrolment, Outcome
    from firmware_bridge.decks import DeckRegistryError

    _deck_name(args.deck)
    if args.jokers < 0:
        raise _InputError("--jokers must be 0 or more")
    if args.antenna is not None and not 0 <= args.antenna <= 254:
        raise _InputError(f"--antenna {args.antenna}: antennas are numbered 0..254")
    events = EnrolmentEvents()
    stop: Callable[[], None] = lambda: None  # noqa: E731
    if args.uids_from:
        read_uid_script(args.uids_from, events)
    else:
        from firmware_bridge.link import SerialLink
        from firmware_bridge.rfid_config import ReaderConfig

        tags = _LinkTags(events, antenna=args.antenna, hold=ReaderConfig().hold_time,
                         clock=time.monotonic)
        link = SerialLink(url=args.port, listener=tags)
        print(f"waiting for the RFID controller on {args.port} ...", flush=True)
        link.start()
        stop = link.stop
        read_words(sys.stdin, events)
    session = Enrolment(deck=args.deck, jokers=args.jokers, owner=registry.owner)
    try:
        print(f"enrolling deck {args.deck!r}: type skip, undo, done or quit at any time",
              flush=True)
        print(f"> {session.prompt}", flush=True)
        while not session.finished:
            event = events.next(timeout=0.5)
            if event is None:
                continue
            if isinstance(event, _Status):
                print(event.text, flush=True)
                continue
            if isinstance(event, _End):
                print("input ended before the deck was finished", flush=True)
                session.quit()
                break
            reply = session.feed(event) if isinstance(event, bytes) else session.word(event)
            if reply.message:
                marker = "! " if reply.outcome is Outcome.REFUSED else ""
                print(marker + reply.message, flush=True)
            if reply.prompt is not None and reply.outcome is not Outcome.IGNORED:
                print(f"> {reply.prompt}", flush=True)
    finally:
        stop()
    if session.abandoned:
        print(f"nothing saved; deck {args.deck!r} is as it was")
        return 1
    entries = session.entries()
    if not entries:
        print("no tag enrolled; nothing saved")
        return 1
    try:
        info = registry.enroll(args.deck, entries, allow_missing=True)
    except DeckRegistryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"deck {info.name!r} saved: {_describe(info)}")
    if info.missing:
        print("missing: " + " ".join(str(c) for c in info.missing))
    return 0


_HANDLERS: dict[str, Callable[[DeckRegistry, argparse.Namespace], int]] = {
    "import": _import, "enroll": _enroll, "list": _list, "show": _show, "activate": _activate,
    "alternate": _alternate, "remove": _remove,
}
