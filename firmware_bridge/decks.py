"""The deck registry: which tag UID is which card of which deck, and which deck is in play.

A table has two enrolled decks that alternate at each dealer change (rules.md §1, [000]); exactly
one of them is *active*. The RFID reader asks :meth:`DeckRegistry.identify` about every tag event:

- a tag of the active deck -> its card, ``active=True``;
- a tag of another enrolled deck -> its card and that deck's name, ``active=False``: a foreign
  card (rules.md §5, alert ``FOREIGN_CARD``), with the deck it belongs to;
- a tag of no deck -> card None, deck None (also foreign);
- a tag enrolled as a joker -> ``joker=True`` (rules.md §5 [003]: discarded and replaced, not a
  dealer error; alert ``JOKER``).

A card normally has one tag. :meth:`DeckRegistry.add_tag` with ``replacement=True`` enrols a
second tag for a card that already has one: a damaged card was replaced by a new one and the old
card's tag was not retired. Both tags then identify as that card, so if the old card comes back
to the table the two are seen as a duplicate (rules.md §5, ``DUPLICATE_CARD``), as they are.
Re-enrolling the deck retires such extra tags.

The registry is stored in SQLite (tables ``deck``, ``deck_tag`` and ``deck_meta``, so it can
share a database file with other parts). :meth:`identify` never touches the database: it is one
dictionary lookup in an in-memory table of precomputed answers, rebuilt whenever this registry
changes the database, and by :meth:`refresh_if_changed` when another process did (``table-controller
deck activate`` while the daemon runs): the daemon calls that between hands.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from firmware_bridge.tags import TagIdentity
from table_controller.vocabulary.cards import DECK, Card, CardError, check_deck_name, parse_card

SCHEMA_VERSION = 1
UNKNOWN = TagIdentity(card=None, deck=None, active=False)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS deck_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deck (
    name TEXT PRIMARY KEY,
    enrolled_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS deck_tag (
    uid BLOB PRIMARY KEY,
    deck TEXT NOT NULL REFERENCES deck(name) ON DELETE CASCADE,
    card TEXT,  -- 'As' notation, NULL for a joker
    UNIQUE (deck, card)
);
CREATE TABLE IF NOT EXISTS deck_extra_tag (  -- a second tag for an enrolled card (add_tag)
    uid BLOB PRIMARY KEY,
    deck TEXT NOT NULL REFERENCES deck(name) ON DELETE CASCADE,
    card TEXT NOT NULL,
    added_at TEXT NOT NULL DEFAULT (datetime('now'))
);
"""


class DeckRegistryError(Exception):
    """A registry operation that cannot be done (unknown deck, clash, unreadable database)."""


_F = TypeVar("_F", bound=Callable[..., Any])


def _db_errors(method: _F) -> _F:
    """A database failure (locked, corrupt, disk full) in ``method`` becomes a
    :class:`DeckRegistryError` naming the file; the registry's state is unchanged."""

    @functools.wraps(method)
    def wrapper(self: DeckRegistry, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise DeckRegistryError(f"deck registry {self.path}: {exc}") from None

    return wrapper  # type: ignore[return-value]


def format_uid(uid: bytes) -> str:
    """A UID as the registry prints it: upper-case hex, no separators."""
    return uid.hex().upper()


@dataclass(frozen=True, slots=True)
class TagEntry:
    """One enrolled tag. ``card`` None means the tag is a joker. ``line`` is where an enrolment
    file declared it (for messages), None when it came from the antenna."""

    uid: bytes
    card: Card | None
    line: int | None = None

    @property
    def joker(self) -> bool:
        return self.card is None


@dataclass(frozen=True, slots=True)
class DeckInfo:
    name: str
    cards: int
    jokers: int
    active: bool
    missing: tuple[Card, ...]
    enrolled_at: str
    extra_tags: int = 0  # second tags of enrolled cards (add_tag with replacement=True)

    @property
    def complete(self) -> bool:
        return not self.missing


class DeckRegistry:
    """Deck enrolment and tag identification on one SQLite database.

    Open with :meth:`open`; thread-safe (the reader thread may call :meth:`identify` while the
    main thread activates a deck).
    """

    def __init__(self, connection: sqlite3.Connection, *, path: str) -> None:
        self._db = connection
        self._path = path
        self._lock = threading.RLock()
        self._answers: Mapping[bytes, TagIdentity] = MappingProxyType({})
        self._active: str | None = None
        self._data_version = -1
        self._load()

    # -- opening ---------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True,
             busy_timeout: float = 5.0) -> DeckRegistry:
        """Open (and with ``create`` create) the registry at ``path`` (``":memory:"`` works).
        ``busy_timeout``: seconds to wait for another process's write to finish.

        Raises :class:`DeckRegistryError` naming the file if it is missing (``create=False``),
        not a database, or holds a registry of a newer schema.
        """
        text = str(path)
        if text != ":memory:" and not create and not Path(text).exists():
            raise DeckRegistryError(f"no deck registry at {text}")
        try:
            db = sqlite3.connect(text, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise DeckRegistryError(f"cannot open deck registry {text}: {exc}") from None
        try:
            db.execute("PRAGMA foreign_keys = ON")
            db.execute(f"PRAGMA busy_timeout = {max(0, int(busy_timeout * 1000))}")
            if create:
                with _transaction(db):
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    _check_version(db, text, create=True)
            else:  # read without writing: a read-only file or a shared database stays as it is
                _check_version(db, text, create=False)
            return cls(db, path=text)
        except sqlite3.Error as exc:
            db.close()
            raise DeckRegistryError(f"{text} is not a usable deck registry: {exc}") from None
        except DeckRegistryError:
            db.close()
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> DeckRegistry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> str:
        return self._path

    # -- the reader's question -------------------------------------------------------------------

    def identify(self, uid: bytes) -> TagIdentity:
        """What the tag ``uid`` is (see the module docstring). One dictionary lookup."""
        if type(uid) is not bytes:
            uid = bytes(uid)  # a bytearray or memoryview from a decoder is not hashable
        return self._answers.get(uid, UNKNOWN)

    @property
    def active(self) -> str | None:
        """The active deck's name; None until a deck is activated."""
        return self._active

    def refresh_if_changed(self) -> bool:
        """Reload the in-memory table if another connection changed the database.

        Returns True when it reloaded. Cheap (one ``PRAGMA data_version``); call it between hands.
        """
        with self._lock:
            version = self._query_data_version()
            if version == self._data_version:
                return False
            self._load()
            return True

    # -- enrolment -------------------------------------------------------------------------------

    @_db_errors
    def enroll(self, name: str, entries: Iterable[TagEntry], *,
               allow_missing: bool = False) -> DeckInfo:
        """Enrol deck ``name`` from ``entries``, replacing its previous enrolment if any.

        All or nothing: a UID or card given twice, a UID that belongs to another deck, or (unless
        ``allow_missing``) a card missing raises :class:`DeckRegistryError` and leaves the
        registry as it was. The first deck ever enrolled becomes the active one.
        """
        _deck_name(name)
        tags = list(entries)
        problems = entry_problems(tags)
        with self._lock:
            for entry in tags:
                owner = self._owner_row(entry.uid)
                if owner is not None and owner[0] != name:
                    card = owner[1] or "joker"
                    problems.append(f"{_where(entry)}UID {format_uid(entry.uid)} is already "
                                    f"enrolled as {card} in deck {owner[0]!r}")
            missing = missing_cards(e.card for e in tags)
            if missing and not allow_missing:
                problems.append(f"{len(missing)} cards missing: "
                                f"{' '.join(str(c) for c in missing)}")
            if problems:
                raise DeckRegistryError(f"deck {name!r} not enrolled:\n  " + "\n  ".join(problems))
            with self._write():
                self._db.execute("DELETE FROM deck_tag WHERE deck = ?", (name,))
                self._db.execute("DELETE FROM deck_extra_tag WHERE deck = ?", (name,))
                self._db.execute("INSERT OR REPLACE INTO deck (name) VALUES (?)", (name,))
                self._db.executemany(
                    "INSERT INTO deck_tag (uid, deck, card) VALUES (?, ?, ?)",
                    [(e.uid, name, None if e.card is None else str(e.card)) for e in tags])
                if self._active_row() is None:
                    self._set_active(name)
            return self.deck(name)

    @_db_errors
    def add_tag(self, deck: str, uid: bytes, card: Card | None, *,
                replacement: bool = False) -> TagEntry:
        """Enrol one more tag in ``deck`` without re-enrolling it.

        - ``replacement=False``: ``card`` has no tag in the deck yet (a card missing at an
          ``allow_missing`` enrolment); ``card`` None adds a joker.
        - ``replacement=True``: ``card`` already has a tag in the deck and ``uid`` becomes a
          second one for it (a damaged card replaced, its old tag not retired). Both tags
          identify as ``card`` and both are active while the deck is.

        ``uid`` must not be enrolled in any deck. Raises :class:`DeckRegistryError` naming the
        problem and leaves the registry as it was.
        """
        uid = bytes(uid)
        if not uid:
            raise DeckRegistryError("a tag UID cannot be empty")
        with self._lock:
            self.deck(deck)
            owner = self.owner(uid)
            if owner is not None:
                raise DeckRegistryError(f"UID {format_uid(uid)} is already enrolled as "
                                        f"{owner[1] or 'joker'} in deck {owner[0]!r}")
            has_tag = card is not None and self._db.execute(
                "SELECT 1 FROM deck_tag WHERE deck = ? AND card = ?",
                (deck, str(card))).fetchone() is not None
            if replacement:
                if card is None:
                    raise DeckRegistryError("a replacement tag needs a card; a joker is added "
                                            "with replacement=False")
                if not has_tag:
                    raise DeckRegistryError(f"{card} has no tag in deck {deck!r} to replace; "
                                            "add it with replacement=False")
            elif has_tag:
                raise DeckRegistryError(f"{card} already has a tag in deck {deck!r}; a second "
                                        "tag for it needs replacement=True")
            with self._write():
                if replacement:
                    self._db.execute(
                        "INSERT INTO deck_extra_tag (uid, deck, card) VALUES (?, ?, ?)",
                        (uid, deck, str(card)))
                else:
                    self._db.execute("INSERT INTO deck_tag (uid, deck, card) VALUES (?, ?, ?)",
                                     (uid, deck, None if card is None else str(card)))
            return TagEntry(uid=uid, card=card)

    @_db_errors
    def extra_tags(self, name: str) -> list[TagEntry]:
        """The second tags of deck ``name``'s cards (:meth:`add_tag` with ``replacement``)."""
        with self._lock:
            self.deck(name)
            rows = self._extra_rows(name)
        entries = [TagEntry(uid=bytes(u), card=self._stored_card(u, c)) for u, _d, c in rows]
        return sorted(entries, key=lambda e: (e.card.index if e.card else 0, e.uid))

    @_db_errors
    def remove(self, name: str) -> None:
        """Forget deck ``name`` and its tags. Removing the active deck leaves none active."""
        with self._lock:
            self.deck(name)
            with self._write():
                if self._active_row() == name:
                    self._db.execute("DELETE FROM deck_meta WHERE key = 'active_deck'")
                self._db.execute("DELETE FROM deck WHERE name = ?", (name,))

    @_db_errors
    def activate(self, name: str) -> None:
        """Make ``name`` the deck in play (at a dealer change, rules.md §1)."""
        with self._lock:
            self.deck(name)
            with self._write():
                self._set_active(name)

    @_db_errors
    def alternate(self) -> str:
        """Switch to the table's other deck (rules.md §1: two decks alternate at each dealer
        change). Needs exactly two enrolled decks; returns the new active deck's name."""
        with self._lock:
            names = [d.name for d in self.decks()]
            if len(names) != 2:
                raise DeckRegistryError(
                    f"alternating needs exactly two enrolled decks, there are {len(names)}"
                    + (f" ({', '.join(names)})" if names else "")
                    + "; choose one with activate")
            other = names[1] if self._active == names[0] else names[0]
            self.activate(other)
            return other

    # -- inspection ------------------------------------------------------------------------------

    @_db_errors
    def decks(self) -> list[DeckInfo]:
        with self._lock:
            names = [r[0] for r in self._db.execute("SELECT name FROM deck ORDER BY name")]
            return [self.deck(n) for n in names]

    @_db_errors
    def deck(self, name: str) -> DeckInfo:
        """The deck ``name``; raises :class:`DeckRegistryError` naming the known decks."""
        with self._lock:
            row = self._db.execute("SELECT enrolled_at FROM deck WHERE name = ?",
                                   (name,)).fetchone()
            if row is None:
                known = [r[0] for r in self._db.execute("SELECT name FROM deck ORDER BY name")]
                raise DeckRegistryError(
                    f"no deck named {name!r}; enrolled decks: {', '.join(known) or 'none'}")
            cards = [self._stored_card(uid, text) for uid, text in self._db.execute(
                "SELECT uid, card FROM deck_tag WHERE deck = ? AND card IS NOT NULL", (name,))]
            (jokers,) = self._db.execute(
                "SELECT count(*) FROM deck_tag WHERE deck = ? AND card IS NULL",
                (name,)).fetchone()
            extra = len(self._extra_rows(name))
            return DeckInfo(name=name, cards=len(cards), jokers=int(jokers),
                            active=self._active == name, missing=tuple(missing_cards(cards)),
                            enrolled_at=str(row[0]), extra_tags=extra)

    @_db_errors
    def tags(self, name: str) -> list[TagEntry]:
        """The tags of deck ``name``, cards in deck order then jokers."""
        with self._lock:
            self.deck(name)
            rows = self._db.execute("SELECT uid, card FROM deck_tag WHERE deck = ?", (name,))
            entries = [TagEntry(uid=bytes(u), card=None if c is None else self._stored_card(u, c))
                       for u, c in rows]
        return sorted(entries, key=lambda e: (e.card is None, e.card.index if e.card else 0,
                                              e.uid))

    @_db_errors
    def owner(self, uid: bytes) -> tuple[str, Card | None] | None:
        """(deck, card) the UID is enrolled as (card None: a joker), or None."""
        with self._lock:
            row = self._owner_row(uid)
            if row is None:
                return None
            return row[0], None if row[1] is None else self._stored_card(uid, row[1])

    # -- internals -------------------------------------------------------------------------------

    def _stored_card(self, uid: bytes, text: str) -> Card:
        try:
            return parse_card(text)
        except CardError:
            raise DeckRegistryError(
                f"deck registry {self._path}: tag {format_uid(bytes(uid))} has a broken card "
                f"{text!r}; re-enrol its deck") from None

    def _owner_row(self, uid: bytes) -> tuple[str, str | None] | None:
        row = self._db.execute("SELECT deck, card FROM deck_tag WHERE uid = ?", (uid,)).fetchone()
        if row is None:
            row = next((r[1:] for r in self._extra_rows(uid=uid)), None)
        return None if row is None else (str(row[0]), row[1])

    def _extra_rows(self, deck: str | None = None, *,
                    uid: bytes | None = None) -> list[tuple[bytes, str, str]]:
        """(uid, deck, card) of the extra tags (of ``deck``, or with ``uid``). A registry
        file written before extra tags existed, opened read-only, has none."""
        query = "SELECT uid, deck, card FROM deck_extra_tag"
        args: tuple[str | bytes, ...] = ()
        if deck is not None:
            query, args = query + " WHERE deck = ?", (deck,)
        elif uid is not None:
            query, args = query + " WHERE uid = ?", (uid,)
        try:
            return self._db.execute(query, args).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise

    def _active_row(self) -> str | None:
        row = self._db.execute(
            "SELECT value FROM deck_meta WHERE key = 'active_deck'").fetchone()
        return None if row is None else str(row[0])

    def _set_active(self, name: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO deck_meta VALUES ('active_deck', ?)", (name,))

    def _query_data_version(self) -> int:
        try:
            return int(self._db.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error as exc:
            raise DeckRegistryError(f"deck registry {self._path}: {exc}") from None

    def _write(self) -> _Write:
        return _Write(self)

    def _load(self) -> None:
        """Rebuild the in-memory answers from the database."""
        try:
            active = self._active_row()
            rows = self._db.execute("SELECT uid, deck, card FROM deck_tag").fetchall()
            rows += self._extra_rows()
        except sqlite3.Error as exc:
            raise DeckRegistryError(f"deck registry {self._path}: {exc}") from None
        answers: dict[bytes, TagIdentity] = {}
        for uid, deck, card_text in rows:
            try:
                card = None if card_text is None else parse_card(card_text)
            except CardError:
                continue  # a row another program broke: the tag reads as unknown, never a guess
            answers[bytes(uid)] = TagIdentity(card=card, deck=str(deck), active=deck == active,
                                              joker=card is None)
        self._active = active
        self._answers = MappingProxyType(answers)  # swapped whole: readers never see a half
        self._data_version = self._query_data_version()


class _Write:
    """A write transaction that reloads the in-memory answers after committing."""

    def __init__(self, registry: DeckRegistry) -> None:
        self._registry = registry

    def __enter__(self) -> None:
        try:
            self._registry._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise DeckRegistryError(f"deck registry {self._registry.path}: {exc}") from None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        db = self._registry._db
        if exc_type is not None:
            db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise DeckRegistryError(f"deck registry {self._registry.path}: {exc}") from None
            return
        try:
            db.execute("COMMIT")
        except sqlite3.Error as exc2:
            db.execute("ROLLBACK")
            raise DeckRegistryError(f"deck registry {self._registry.path}: {exc2}") from None
        self._registry._load()


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _check_version(db: sqlite3.Connection, path: str, *, create: bool) -> None:
    try:
        row = db.execute("SELECT value FROM deck_meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError:
        if create:
            raise
        raise DeckRegistryError(f"{path} holds no deck registry (no deck enrolled yet)") from None
    if row is None and create:
        db.execute("INSERT INTO deck_meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    elif row is None or row[0] != str(SCHEMA_VERSION):
        raise DeckRegistryError(
            f"deck registry {path} has schema version {None if row is None else row[0]}, this "
            f"program knows version {SCHEMA_VERSION}")


def _deck_name(name: str) -> None:
    """Raise :class:`DeckRegistryError` unless ``name`` is a usable deck name (the vocabulary's
    rule, :func:`table_controller.vocabulary.cards.check_deck_name`)."""
    try:
        check_deck_name(name)
    except CardError as exc:
        raise DeckRegistryError(str(exc)) from None


def _where(entry: TagEntry) -> str:
    return "" if entry.line is None else f"line {entry.line}: "


def entry_problems(entries: list[TagEntry]) -> list[str]:
    """Duplicate UIDs and duplicate cards among ``entries``, each naming where."""
    problems: list[str] = []
    by_uid: dict[bytes, TagEntry] = {}
    by_card: dict[Card, TagEntry] = {}
    for entry in entries:
        first = by_uid.setdefault(entry.uid, entry)
        if first is not entry:
            problems.append(f"{_where(entry)}UID {format_uid(entry.uid)} given twice"
                            + (f" (first on line {first.line})" if first.line else ""))
            continue
        if entry.card is not None:
            first = by_card.setdefault(entry.card, entry)
            if first is not entry:
                problems.append(f"{_where(entry)}{entry.card} given twice"
                                + (f" (first on line {first.line})" if first.line else ""))
    return problems


def missing_cards(cards: Iterable[Card | None]) -> list[Card]:
    present = {c for c in cards if c is not None}
    return [c for c in DECK if c not in present]
