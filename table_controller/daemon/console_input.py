"""What the dealer console may send: the bounds every request is checked against before the
controller acts on it (docs/running.md, "Console channel").

A console request is one zmq frame of UTF-8 JSON, an object, at most :data:`MAX_REQUEST_BYTES`;
its nesting is at most :data:`MAX_DEPTH` deep (checked on the text before it is parsed, so no
request can drive the parser into a RecursionError); its field names are short; each field the
controller knows has a type and a range (:func:`check_fields`): a seat is a whole number 1..10
(and at most the table's seats), chips and amounts whole numbers up to :data:`MAX_CHIPS` (a
JSON ``true`` or ``2.0`` or ``1e29`` is not a whole number), texts are short.

Anything else is refused with a :class:`RequestError` naming what was wrong; the console gets
that as its answer, the journal a summary (:func:`summary`: the size and the first bytes, never
the whole of a request too large to be one), and :class:`RefusalLog` keeps a flood of refusals
from filling the journal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from table_controller.daemon.journal import Journal
from table_controller.engine import EngineError, Hand, Street

MAX_REQUEST_BYTES = 16 * 1024
"""A request's size limit, checked before it is parsed (the longest real request is ~100 B)."""
MAX_FRAME_BYTES = 1024 * 1024
"""The console socket's ``MAXMSGSIZE``, set before it binds: a frame larger than that is not
read at all, libzmq closes the sender's connection (no answer can be sent on it). Requests
between :data:`MAX_REQUEST_BYTES` and this are read and answered with an error."""
MAX_DEPTH = 8
"""Nesting of arrays and objects (a real request: 2, ``{"seats": [1, 3]}``)."""
MAX_FIELDS = 16
MAX_NAME = 32
"""Length of a field name and of ``cmd``."""
MAX_TEXT = 200
"""Length of a free text (``cause``) and of every other text field."""
MAX_SEATS = 10
MAX_CHIPS = 10**9
"""The most chips a stack, a bet or an amount can be: far above any table's chips, well inside
the integers JSON readers keep exactly (2^53)."""
SUMMARY_BYTES = 120

_CHIP_FIELDS = ("amount", "stack", "chips")
_NEXT_ROUND = {Street.PREFLOP: Street.FLOP, Street.FLOP: Street.TURN, Street.TURN: Street.RIVER,
               Street.RIVER: None}
_TEXT_FIELDS = {"kind": MAX_NAME, "code": MAX_NAME, "street": MAX_NAME, "cause": MAX_TEXT}


class RequestError(ValueError):
    """A console request refused before it reaches the table; the text says why."""


def decode(frames: Sequence[bytes]) -> dict[str, Any]:
    """The request in ``frames`` (what the REP socket received): one frame, at most
    :data:`MAX_REQUEST_BYTES`, UTF-8 JSON nested at most :data:`MAX_DEPTH`, an object."""
    if len(frames) != 1:
        raise RequestError(f"a request is one frame, not {len(frames)}")
    raw = frames[0]
    if len(raw) > MAX_REQUEST_BYTES:
        raise RequestError(f"request too large: {len(raw)} bytes (at most {MAX_REQUEST_BYTES})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    depth = nesting(text)
    if depth > MAX_DEPTH:
        raise RequestError(f"nested {depth} deep or more (at most {MAX_DEPTH})")
    try:
        request = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(f"not a JSON request: {exc}") from None
    except RecursionError:  # cannot happen after nesting(); never let it reach the loop
        raise RequestError("not a JSON request: nested too deep") from None
    if not isinstance(request, dict):
        raise RequestError(f"a request is a JSON object, not {type(request).__name__}")
    return request


def nesting(text: str) -> int:
    """How deep arrays and objects nest in JSON ``text`` (strings and their escapes skipped);
    stops counting one past :data:`MAX_DEPTH`. Valid or not, the parser cannot go deeper than
    this before it fails."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        elif ch in "]}":
            depth -= 1
    return deepest


def _whole(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{name!r} must be a whole number, not {_show(value)}")
    if not low <= value <= high:
        raise RequestError(f"{name!r} must be {low}..{high}, not {_show(value)}")
    return value


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_fields(request: Mapping[str, Any], *, seats: int,
                 stacks: Mapping[int, int]) -> None:
    """Types and ranges of every field a request may carry, before any command sees it (which
    fields a command takes, and what the table makes of them, is the controller's business).
    ``seats``: the table's seat count; ``stacks``: the seated players' chips (``add_chips``
    may not take a stack beyond :data:`MAX_CHIPS`)."""
    if len(request) > MAX_FIELDS:
        raise RequestError(f"{len(request)} fields (at most {MAX_FIELDS})")
    for name in request:
        if len(name) > MAX_NAME:
            raise RequestError(f"field name {_show(name)} is longer than {MAX_NAME}")
    cmd = request.get("cmd")
    if not isinstance(cmd, str) or not 0 < len(cmd) <= MAX_NAME:
        raise RequestError(f"'cmd' must be a command name, not {_show(cmd)}")
    top = min(seats, MAX_SEATS)
    if "seat" in request:
        _whole("seat", request["seat"], 1, top)
    for name in _CHIP_FIELDS:
        if name in request and request[name] is not None:
            _whole(name, request[name], 1 if name != "amount" else 0, MAX_CHIPS)
    if cmd == "add_chips" and isinstance(request.get("seat"), int) and "chips" in request:
        have = stacks.get(request["seat"], 0)
        if have + request["chips"] > MAX_CHIPS:
            raise RequestError(f"add_chips: seat {request['seat']} would hold "
                               f"{have + request['chips']} chips (at most {MAX_CHIPS})")
    for name, longest in _TEXT_FIELDS.items():
        value = request.get(name)
        if value is not None and (not isinstance(value, str) or len(value) > longest):
            raise RequestError(f"{name!r} must be a text of at most {longest} characters, "
                               f"not {_show(value)}")
    if "seats" in request:
        listed = request["seats"]
        if not isinstance(listed, list) or not 0 < len(listed) <= top:
            raise RequestError(f"'seats' must be a list of 1..{top} seat numbers")
        for seat in listed:
            _whole("seats", seat, 1, top)
        if len(set(listed)) != len(listed):
            raise RequestError("'seats' names a seat twice")


def betting_word(hand: Hand | None, seat: int, kind: str) -> None:
    """``bet`` opens the betting of a round and ``raise`` raises a bet already made; the
    console must say which the dealer saw (a declaration is binding, rules.md §3 [002 #34]).
    Facing a bet (preflop the blinds are the bet) one calls, raises or folds; with nothing bet
    one checks or bets (rules.md §3 [000, 001]). Refuses the wrong word with the rule. A round
    whose betting is over is followed by a new one with nothing bet (the monitor hands the next
    street to the engine at this action)."""
    if hand is None or kind not in ("bet", "raise") or hand.street not in _NEXT_ROUND:
        return
    if hand.betting_complete and _NEXT_ROUND[hand.street] is None:
        return  # no round follows: the engine says so
    facing = 0 if hand.betting_complete else max(hand.bets.values(), default=0)
    if kind == "bet" and facing > 0:
        least = ""
        try:
            legal = hand.legal_actions(seat)
            if legal.min_raise_to is not None:
                least = f" (to {legal.min_raise_to} at least)"
        except EngineError:
            pass
        raise RequestError(f"action: seat {seat} faces a bet of {facing}: 'bet' is not an "
                           f"action here; raise{least}, call or fold [rules.md §3 [000, 001]]")
    if kind == "raise" and facing == 0:
        raise RequestError("action: nobody has bet in this round: 'raise' is not an action "
                           "here; bet or check [rules.md §3 [000, 001]]")


def summary(frames: Sequence[bytes]) -> str:
    """A refused request as the journal keeps it: its size and its first bytes."""
    size = sum(len(f) for f in frames)
    head = frames[0][:SUMMARY_BYTES] if frames else b""
    more = "..." if size > len(head) else ""
    parts = f", {len(frames)} frames" if len(frames) != 1 else ""
    return f"<refused request: {size} bytes{parts}: {head!r}{more}>"


class RefusalLog:
    """How many refused requests the journal records: up to ``burst`` at once and ``rate`` a
    second after that; the ones left out are counted and named in the next one recorded, so a
    client sending garbage as fast as it can neither fills the journal nor hides."""

    def __init__(self, *, rate: float = 5.0, burst: int = 20) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._last: float | None = None
        self.skipped = 0

    def admit(self, now: float) -> int | None:
        """Record this refusal? None: no (counted); else how many were left out before it."""
        if self._last is not None:
            self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens < 1.0:
            self.skipped += 1
            return None
        self._tokens -= 1.0
        skipped, self.skipped = self.skipped, 0
        return skipped


MAX_JOURNALED = 1024
"""Characters of a refused request the journal keeps (an accepted one is bounded by
:func:`check_fields` and kept whole)."""


class RequestJournal:
    """Records console requests in the journal: accepted ones whole, refused ones as a summary
    of at most :data:`MAX_JOURNALED` characters and no more than :class:`RefusalLog` admits."""

    def __init__(self, refusals: RefusalLog | None = None) -> None:
        self.refusals = refusals or RefusalLog()
        self.accepted = 0
        self.refused = 0  # all of them, journaled or not

    def record(self, journal: Journal | None, request: Any, *, t: float, wall: str,
               hand: int | None, error: str | None) -> None:
        """``request``: the parsed request, or a text (a summary of one refused unparsed)."""
        if error is None:
            self.accepted += 1
        else:
            self.refused += 1
        if journal is None:
            return
        if error is None:
            text = request if isinstance(request, str) else json.dumps(request, sort_keys=True)
            journal.record_console(text, t=t, wall=wall, hand=hand, error=None)
            return
        skipped = self.refusals.admit(t)
        if skipped is None:
            return
        if not isinstance(request, str):
            try:
                request = json.dumps(request, sort_keys=True)
            except (TypeError, ValueError):
                request = repr(request)
        if len(request) > MAX_JOURNALED:
            request = f"{request[:MAX_JOURNALED]}... ({len(request)} characters)"
        if skipped:
            error = f"{error} ({skipped} refused request(s) before this one not journaled)"
        journal.record_console(request, t=t, wall=wall, hand=hand, error=error[:MAX_JOURNALED])
