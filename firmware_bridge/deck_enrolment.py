"""Enrolling a deck: from a file, or card by card on the enrolment antenna.

Deck file format (``table-controller deck import FILE --deck NAME``): UTF-8 text, one tag per
line, the UID in hex (any case, ``:`` between bytes allowed) then the card in ``As Td 9c``
notation or the word ``joker``, separated by a comma or spaces. Blank lines and ``#`` comments
are ignored; a first line ``uid,card`` (a spreadsheet header) is skipped::

    # deck "red", table 7
    uid,card
    04A1B2C3D4E5F6,As
    04:a1:b2:c3:d4:e5:f7  Kd
    04A1B2C3D4E5F8,joker

Every problem is reported with its line: a bad UID, a bad card, a UID or a card given twice,
and the cards missing from the 52 (a partial deck only with ``allow_missing``).

Interactive enrolment is :class:`Enrolment`, a pure state machine: feed it UIDs and the dealer's
words (skip, undo, done, quit) and it answers with what happened and the next prompt. The
command ``table-controller deck enroll`` only moves UIDs and words between it and the hardware.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from firmware_bridge.decks import TagEntry, entry_problems, format_uid, missing_cards
from table_controller.vocabulary.cards import RANKS, SUITS, Card, CardError, parse_card

MIN_UID_BYTES = 4    # ISO 14443 single-size UID
MAX_UID_BYTES = 10   # ISO 14443 triple-size; ISO 15693 tags have 8
JOKER = "joker"
# Cards prompted in this order: each suit (s h d c) from the ace up to the king, the order of a
# sorted deck in the hand of the dealer.
ENROLMENT_ORDER: tuple[Card, ...] = tuple(
    parse_card(r + s) for s in SUITS for r in ("A" + RANKS[:-1]))


class DeckFileError(ValueError):
    """A deck file that cannot be enrolled; ``problems`` lists each, with its line."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = list(problems)
        super().__init__(f"{source}: {len(self.problems)} problem(s):\n  "
                         + "\n  ".join(self.problems))


def parse_uid(text: str) -> bytes:
    """``"04A1B2C3"`` or ``"04:a1:b2:c3"`` -> bytes; raises ValueError saying what is wrong."""
    digits = text.strip().replace(":", "")
    if not digits or not re.fullmatch(r"[0-9A-Fa-f]+", digits):
        raise ValueError(f"{text!r} is not a hex UID")
    if len(digits) % 2:
        raise ValueError(f"{text!r} is not a hex UID (odd number of digits)")
    uid = bytes.fromhex(digits)
    if not MIN_UID_BYTES <= len(uid) <= MAX_UID_BYTES:
        raise ValueError(f"UID {text!r} has {len(uid)} bytes, expected "
                         f"{MIN_UID_BYTES} to {MAX_UID_BYTES}")
    return uid


def parse_deck_text(text: str, *, source: str = "<deck file>",
                    allow_missing: bool = False) -> list[TagEntry]:
    """The tags a deck file declares; raises :class:`DeckFileError` listing every problem."""
    entries: list[TagEntry] = []
    problems: list[str] = []
    header_allowed = True
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f for f in re.split(r"[,\s]+", line) if f]
        if header_allowed and [f.lower() for f in fields] == ["uid", "card"]:
            header_allowed = False
            continue
        header_allowed = False
        if len(fields) != 2:
            problems.append(f"line {number}: expected 'UID,CARD', got {raw.strip()!r}")
            continue
        uid_text, card_text = fields
        try:
            uid = parse_uid(uid_text)
        except ValueError as exc:
            problems.append(f"line {number}: {exc}")
            continue
        if card_text.lower() == JOKER:
            entries.append(TagEntry(uid=uid, card=None, line=number))
            continue
        try:
            card = parse_card(card_text)
        except CardError as exc:
            problems.append(f"line {number}: {exc}")
            continue
        entries.append(TagEntry(uid=uid, card=card, line=number))
    problems.extend(entry_problems(entries))
    missing = missing_cards(e.card for e in entries)
    if missing and not allow_missing and not problems:
        problems.append(f"{len(missing)} card(s) missing: {' '.join(str(c) for c in missing)} "
                        "(allow a partial deck with --allow-missing)")
    if problems:
        raise DeckFileError(source, problems)
    return entries


def read_deck_file(path: str | Path, *, allow_missing: bool = False) -> list[TagEntry]:
    """:func:`parse_deck_text` on a file; an unreadable file is a :class:`DeckFileError` too."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckFileError(str(path), [f"cannot read: {exc}"]) from None
    return parse_deck_text(text, source=str(path), allow_missing=allow_missing)


def format_deck_file(entries: Sequence[TagEntry], *, title: str = "") -> str:
    """A deck file :func:`parse_deck_text` reads back (for ``deck show --export``)."""
    lines = [f"# {title}"] if title else []
    lines.append("uid,card")
    lines += [f"{format_uid(e.uid)},{JOKER if e.card is None else e.card}" for e in entries]
    return "\n".join(lines) + "\n"


# -- interactive enrolment -----------------------------------------------------------------------


class Outcome(StrEnum):
    ENROLLED = "enrolled"    # the UID was taken for the prompted card
    IGNORED = "ignored"      # the tag just enrolled, reported again while it lies on the antenna
    REFUSED = "refused"      # a UID already used; the prompt stays
    SKIPPED = "skipped"
    UNDONE = "undone"
    DONE = "done"            # finished: the entries are to be saved
    QUIT = "quit"            # abandoned: nothing is to be saved


@dataclass(frozen=True, slots=True)
class Reply:
    outcome: Outcome
    message: str
    prompt: str | None   # the next instruction; None once enrolment is over


Owner = Callable[[bytes], "tuple[str, Card | None] | None"]
WORDS = {"skip": "skip", "s": "skip", "undo": "undo", "u": "undo", "done": "done",
         "quit": "quit", "q": "quit"}


class Enrolment:
    """Walks the dealer through a deck, one card on the enrolment antenna at a time.

    ``owner(uid)`` tells which deck and card a UID is already enrolled as
    (:meth:`firmware_bridge.decks.DeckRegistry.owner`); a tag of another deck is refused, a tag of
    the deck being re-enrolled is taken. ``jokers`` joker slots follow the 52 cards.
    """

    def __init__(self, *, deck: str, jokers: int = 0, owner: Owner | None = None,
                 order: Sequence[Card] = ENROLMENT_ORDER) -> None:
        if jokers < 0:
            raise ValueError("jokers must be >= 0")
        self.deck = deck
        self._slots: list[Card | None] = [*order, *([None] * jokers)]
        self._jokers = jokers
        self._owner = owner or (lambda uid: None)
        self._taken: list[bytes | None] = []   # per slot done so far: the UID, None = skipped
        self._last: bytes | None = None
        self._over: Outcome | None = None

    # -- state -----------------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self._over is not None

    @property
    def abandoned(self) -> bool:
        return self._over is Outcome.QUIT

    @property
    def prompt(self) -> str | None:
        if self._over is not None:
            return None
        slot = self._slots[len(self._taken)]
        if slot is None:
            n = len(self._taken) - (len(self._slots) - self._jokers) + 1
            return f"Place joker {n} of {self._jokers} on the enrolment antenna"
        return f"Place {slot} on the enrolment antenna"

    def entries(self) -> list[TagEntry]:
        return [TagEntry(uid=uid, card=slot)
                for slot, uid in zip(self._slots, self._taken, strict=False) if uid is not None]

    def missing(self) -> list[Card]:
        return missing_cards(e.card for e in self.entries())

    def summary(self) -> str:
        entries = self.entries()
        cards = sum(1 for e in entries if e.card is not None)
        jokers = len(entries) - cards
        text = f"deck {self.deck!r}: {cards} of 52 cards enrolled"
        if jokers or self._jokers:
            text += f", {jokers} of {self._jokers} jokers"
        missing = self.missing()
        text += ("; missing: " + " ".join(str(c) for c in missing)) if missing else "; complete"
        return text

    # -- input -----------------------------------------------------------------------------------

    def feed(self, uid: bytes) -> Reply:
        """A tag arrived on the enrolment antenna."""
        if self._over is not None:
            return self._reply(Outcome.IGNORED, "enrolment is over")
        if uid == self._last:
            return self._reply(Outcome.IGNORED, "")
        hex_uid = format_uid(uid)
        for slot, taken in zip(self._slots, self._taken, strict=False):
            if taken == uid:
                return self._reply(Outcome.REFUSED,
                                   f"tag {hex_uid} is already enrolled as {_name(slot)} "
                                   "in this session: take it off")
        owner = self._owner(uid)
        if owner is not None and owner[0] != self.deck:
            return self._reply(Outcome.REFUSED,
                               f"tag {hex_uid} belongs to deck {owner[0]!r} as "
                               f"{_name(owner[1])}: take it off")
        slot = self._slots[len(self._taken)]
        self._taken.append(uid)
        self._last = uid
        self._finish_if_full()
        return self._reply(Outcome.ENROLLED,
                           f"{_name(slot)} = {hex_uid} ({len(self._taken)}/{len(self._slots)})")

    def skip(self) -> Reply:
        if self._over is not None:
            return self._reply(Outcome.IGNORED, "enrolment is over")
        slot = self._slots[len(self._taken)]
        self._taken.append(None)
        self._last = None
        self._finish_if_full()
        return self._reply(Outcome.SKIPPED, f"{_name(slot)} skipped")

    def undo(self) -> Reply:
        if self._over is not None:
            return self._reply(Outcome.IGNORED, "enrolment is over")
        if not self._taken:
            return self._reply(Outcome.REFUSED, "nothing to undo")
        slot = self._slots[len(self._taken) - 1]
        self._taken.pop()
        self._last = None
        return self._reply(Outcome.UNDONE, f"{_name(slot)} undone")

    def done(self) -> Reply:
        """Stop here and keep what is enrolled; the rest counts as missing."""
        if self._over is None:
            self._over = Outcome.DONE
        return self._reply(Outcome.DONE, self.summary())

    def quit(self) -> Reply:
        """Abandon: nothing of this session is to be saved."""
        if self._over is None:
            self._over = Outcome.QUIT
        return self._reply(Outcome.QUIT, f"enrolment of deck {self.deck!r} abandoned")

    def word(self, text: str) -> Reply:
        """The dealer typed ``skip``/``s``, ``undo``/``u``, ``done`` or ``quit``/``q``."""
        action = WORDS.get(text.strip().lower())
        if action is None:
            return self._reply(Outcome.REFUSED,
                               f"unknown command {text.strip()!r}: skip, undo, done or quit")
        method: Callable[[], Reply] = getattr(self, action)
        return method()

    # -- internals -------------------------------------------------------------------------------

    def _finish_if_full(self) -> None:
        if len(self._taken) == len(self._slots):
            self._over = Outcome.DONE

    def _reply(self, outcome: Outcome, message: str) -> Reply:
        if outcome in (Outcome.ENROLLED, Outcome.SKIPPED) and self._over is Outcome.DONE:
            message += "\n" + self.summary()
        return Reply(outcome=outcome, message=message, prompt=self.prompt)


def _name(card: Card | None) -> str:
    return JOKER if card is None else str(card)
