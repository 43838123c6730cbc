"""Read and write PHH text (phh-std): TOML fields and the action notation.

Reading is strict where the hand is concerned, because a hand history is evidence: every field
the replay needs is checked for its type and length, every action for its grammar, every card for
its notation, and the first problem raises :class:`PhhError` naming the field or the action
(``field 'antes': ...``, ``action 7 'p3 cc': ...``). A descriptive optional field the replay does
not need (names, place, time, the file's own finishing stacks and winnings) whose value does not
fit its phh-std type is kept as written in ``HandHistory.unread`` instead: it does not stop the
hand (a finishing stack of ``10112.5``, half an odd chip, is the file's figure, not the table's).
Only the Texas hold'em variants our engine plays are read (``NT``, ``PT``, ``FT``). Chip
amounts must be whole numbers (an integral float such as ``2.0`` is accepted), since the table
counts chips; files in fractional currency units are refused with that reason.

Writing produces plain TOML that ``tomllib`` and pokerkit read back; cards are written
concatenated (``AsKs``), unknown cards as ``??``.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from table_controller.phh.model import (
    VARIANTS,
    BetOrRaiseTo,
    CheckOrCall,
    DealBoard,
    DealHole,
    Fold,
    HandHistory,
    MaybeCard,
    NoOp,
    PhhAction,
    PhhError,
    ShowOrMuck,
    checked_history,
)
from table_controller.vocabulary.cards import DECK, RANKS, SUITS, Card, CardError, parse_card

# Fields required for every variant, then per betting structure (phh-std "Required fields").
_COMMON_REQUIRED = ("variant", "antes", "blinds_or_straddles", "starting_stacks", "actions")
_STRUCTURE_REQUIRED = {"NT": ("min_bet",), "PT": ("min_bet",), "FT": ("small_bet", "big_bet")}
_STRUCTURE_FORBIDDEN = {"NT": ("small_bet", "big_bet"), "PT": ("small_bet", "big_bet"),
                        "FT": ("min_bet",)}

_REQUIRED = {v: (*_COMMON_REQUIRED, *_STRUCTURE_REQUIRED[v]) for v in _STRUCTURE_REQUIRED}
_FORBIDDEN = {v: (*_STRUCTURE_FORBIDDEN[v], "bring_in") for v in _STRUCTURE_FORBIDDEN}
# The fields from_mapping reads before the descriptive ones (the rest go to user_fields).
_READ_ABOVE = frozenset({*_COMMON_REQUIRED, "min_bet", "small_bet", "big_bet",
                         "ante_trimming_status", "seats"})

_STRING_FIELDS = ("author", "event", "url", "venue", "address", "city", "region", "postal_code",
                  "country", "time_zone", "time_zone_abbreviation", "currency", "currency_symbol")
_INT_FIELDS = ("day", "month", "year", "level", "seat_count", "time_limit")
_INT_OR_STRING_FIELDS = ("hand", "table")
_PER_PLAYER_CHIPS = ("finishing_stacks", "winnings", "time_banks")


def _fail(name: str, message: str) -> PhhError:
    return PhhError(f"field {name!r}: {message}")


# ---------------------------------------------------------------------------------------------
# cards and actions


def parse_phh_cards(text: str, *, allow_unknown: bool) -> tuple[MaybeCard, ...]:
    """``"AsKs"`` -> cards; ``"??"`` is an unknown card (None) when ``allow_unknown``.

    Raises :class:`CardError` naming the bad token.
    """
    return _parse_cards(text, allow_unknown)


@lru_cache(maxsize=4096)
def _parse_cards(text: str, allow_unknown: bool) -> tuple[MaybeCard, ...]:
    if not text or len(text) % 2:
        raise CardError(f"not a list of cards: {text!r} (two characters per card, as in 'AsKs')")
    cards: list[MaybeCard] = []
    for i in range(0, len(text), 2):
        token = text[i:i + 2]
        if token == "??":
            if not allow_unknown:
                raise CardError(f"unknown card '??' is not allowed here (in {text!r})")
            cards.append(None)
            continue
        try:
            cards.append(parse_card(token))
        except CardError:
            raise CardError(
                f"not a card: {token!r} in {text!r} (rank one of {RANKS}, suit one of {SUITS})"
            ) from None
    return tuple(cards)


def format_phh_cards(cards: Iterable[MaybeCard]) -> str:
    """Cards concatenated, unknown ones as ``??``."""
    return "".join("??" if c is None else str(c) for c in cards)


def _parse_player(token: str, player_count: int) -> int:
    if len(token) < 2 or token[0] != "p" or not token[1:].isdigit():
        raise PhhError(f"{token!r} is not a player (p1 .. p{player_count})")
    player = int(token[1:])
    if not 1 <= player <= player_count:
        raise PhhError(f"no player {token!r} in a hand of {player_count} players")
    return player


def _parse_amount_token(token: str) -> int:
    try:
        value = float(token)
    except ValueError:
        raise PhhError(f"amount {token!r} is not a number") from None
    if not math.isfinite(value) or value != int(value) or value <= 0:
        raise PhhError(f"amount {token!r} is not a positive whole number of chips")
    return int(value)


def parse_action(text: str, *, player_count: int) -> PhhAction:
    """Parse one action notation such as ``"p3 cbr 60"`` or ``"d db Ah7c2d # flop"``.

    Raises :class:`PhhError` (grammar, player) or :class:`CardError` (a bad card). Results are
    immutable and cached: hand histories repeat the same short actions (``p2 cc``) endlessly.
    """
    return _parse_action(text, player_count)


@lru_cache(maxsize=8192)
def _parse_action(text: str, player_count: int) -> PhhAction:
    plain = _plain_action(text, player_count)
    return plain if plain is not None else _general_action(text, player_count)


def _general_action(text: str, player_count: int) -> PhhAction:
    """Any action of the grammar (whitespace, commentary), or the error naming what is wrong."""
    body, hash_sign, comment = text.partition("#")
    commentary = comment.strip() if hash_sign else None
    words = body.split()
    if not words:
        return NoOp(commentary)
    if words[0] == "d":
        match words[1:]:
            case ["db", cards]:
                board = parse_phh_cards(cards, allow_unknown=False)
                return DealBoard(tuple(c for c in board if c is not None), commentary)
            case ["dh", target, cards]:
                return DealHole(
                    _parse_player(target, player_count),
                    parse_phh_cards(cards, allow_unknown=True),
                    commentary,
                )
            case _:
                raise PhhError("dealer actions are 'd db CARDS' or 'd dh pN CARDS'")
    player = _parse_player(words[0], player_count)
    match words[1:]:
        case ["f"]:
            return Fold(player, commentary)
        case ["cc"]:
            return CheckOrCall(player, commentary)
        case ["cbr", amount]:
            return BetOrRaiseTo(player, _parse_amount_token(amount), commentary)
        case ["sm"]:
            return ShowOrMuck(player, False, (), commentary)
        case ["sm", "-"]:
            return ShowOrMuck(player, True, (), commentary)
        case ["sm", cards]:
            return ShowOrMuck(player, True, parse_phh_cards(cards, allow_unknown=True), commentary)
        case ["pb"] | ["sd"] | ["sd", _]:
            raise PhhError(f"{words[1]!r} (bring-in, draw) does not exist in Texas hold'em")
        case _:
            raise PhhError(
                "player actions are 'f', 'cc', 'cbr AMOUNT' and 'sm [CARDS]' in Texas hold'em"
            )


def _plain_action(text: str, player_count: int) -> PhhAction | None:
    """The usual actions, single-spaced and without commentary (``p3 f``, ``p2 cc``, ``p1 cbr
    60``, ``d dh p1 AsKs``, ``d db Jc3d5c``), read with string operations and tables; None for
    anything else, which the general reader handles (so both give the same answer and the same
    errors). The actions are built without their named tuple's Python-level ``__new__``, every
    field given."""
    head = text[:5]
    if head == "d dh ":  # hole cards: the most frequent action, and each text a new one
        token, _, cards = text[5:].partition(" ")
        player = _PLAYER_OF.get(token)
        if player is None:
            player = _plain_player(token, player_count)
        hole = _HOLE_OF.get(cards)
        if player is None or player > player_count or hole is None:
            return None  # unknown cards ('????') and errors: the general reader
        return _new(DealHole, (player, hole, None))
    if head == "d db ":
        board = _known_cards(text[5:])
        return None if board is None else _new(DealBoard, (board, None))
    words = text.split(" ")
    player = _plain_player(words[0], player_count)
    if player is None:
        return None
    if len(words) == 2:
        if words[1] == "f":
            return _new(Fold, (player, None))
        if words[1] == "cc":
            return _new(CheckOrCall, (player, None))
    elif len(words) == 3 and words[1] == "cbr" and words[2].isdecimal() and words[2][0] != "0":
        return _new(BetOrRaiseTo, (player, int(words[2]), None))
    return None


_new = tuple.__new__
_CARD_OF: Mapping[str, Card] = {str(card): card for card in DECK}
# Two cards written together (``AsKs``), every ordered pair (a card twice too: the engine names
# the duplicate); 2,704 entries built at import, about a millisecond.
_HOLE_OF: Mapping[str, tuple[Card, Card]] = {
    a + b: (first, second) for a, first in _CARD_OF.items() for b, second in _CARD_OF.items()
}
_PLAYER_OF: Mapping[str, int] = {f"p{n}": n for n in range(1, 100)}


def _known_cards(text: str) -> tuple[Card, ...] | None:
    """``"AsKs"`` -> its cards when every one is a known card, else None."""
    if not text or len(text) % 2:
        return None
    cards = []
    for i in range(0, len(text), 2):
        card = _CARD_OF.get(text[i:i + 2])
        if card is None:
            return None
        cards.append(card)
    return tuple(cards)


def _plain_player(token: str, player_count: int) -> int | None:
    """``pN`` with 1 <= N <= player_count written plainly, else None."""
    if len(token) < 2 or token[0] != "p" or not token[1:].isdecimal() or token[1] == "0":
        return None
    player = int(token[1:])
    return player if player <= player_count else None


def format_action(action: PhhAction) -> str:
    """The PHH notation of ``action`` (inverse of :func:`parse_action`)."""
    match action:
        case DealHole(player, cards, _):
            text = f"d dh p{player} {format_phh_cards(cards)}"
        case DealBoard(cards, _):
            text = f"d db {format_phh_cards(cards)}"
        case Fold(player, _):
            text = f"p{player} f"
        case CheckOrCall(player, _):
            text = f"p{player} cc"
        case BetOrRaiseTo(player, amount, _):
            text = f"p{player} cbr {amount}"
        case ShowOrMuck(player, shown, cards, _):
            if not shown:
                text = f"p{player} sm"
            else:
                text = f"p{player} sm {format_phh_cards(cards) if cards else '-'}"
        case NoOp(_):
            text = ""
    if action.commentary is not None:  # written trimmed, as it is read back
        comment = action.commentary.strip()
        text = f"{text} # {comment}" if text else f"# {comment}"
    return text


# ---------------------------------------------------------------------------------------------
# fields


def _chip(name: str, value: object, *, allow_zero: bool) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(name, f"expected a number of chips, got {value!r}")
    if isinstance(value, float):
        if math.isinf(value):
            raise _fail(name, "unknown (infinite) amounts cannot be replayed")
        if not value.is_integer():
            raise _fail(name, f"{value!r} is not a whole number of chips")
        value = int(value)
    if value < 0 or (value == 0 and not allow_zero):
        raise _fail(name, f"{value!r} must be {'non-negative' if allow_zero else 'positive'}")
    return value


_INT_ONLY: set[type] = {int}
_STR_ONLY: set[type] = {str}


def _chip_list(name: str, value: object, count: int | None, *, allow_zero: bool) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise _fail(name, f"expected an array, got {value!r}")
    if count is not None and len(value) != count:
        raise _fail(name, f"has {len(value)} entries for {count} players")
    # the usual case, checked at once: whole numbers (not booleans), none below the bound
    if value and set(map(type, value)) == _INT_ONLY and min(value) >= (0 if allow_zero else 1):
        return tuple(value)
    return tuple(_chip(f"{name}[{i}]", v, allow_zero=allow_zero) for i, v in enumerate(value))


def _typed(name: str, value: object, kind: type | tuple[type, ...], what: str) -> Any:
    if isinstance(value, bool) and kind is not bool:
        raise _fail(name, f"expected {what}, got {value!r}")
    if not isinstance(value, kind):
        raise _fail(name, f"expected {what}, got {value!r}")
    return value


def from_mapping(raw: Mapping[str, Any]) -> HandHistory:
    """Check a parsed TOML document and build the :class:`HandHistory` (raises PhhError)."""
    if "variant" not in raw:
        raise _fail("variant", "missing (required)")
    variant = raw["variant"]
    if not isinstance(variant, str) or variant not in VARIANTS:
        supported = ", ".join(f"{code} ({name})" for code, name in VARIANTS.items())
        raise _fail("variant", f"unsupported variant {variant!r}; this table plays {supported}")
    # The files of one dataset have the same fields in the same order: which are required,
    # forbidden, descriptive or the user's is worked out once for each such layout.
    names = tuple(raw)
    layout = _LAYOUTS.get((variant, names))
    if layout is None:
        layout = _layout(variant, names)
    descriptive, user_names = layout

    stacks, antes, blinds = raw["starting_stacks"], raw["antes"], raw["blinds_or_straddles"]
    if (type(stacks) is list and type(antes) is list and type(blinds) is list
            and 2 <= len(stacks) == len(antes) == len(blinds)
            and set(map(type, stacks + antes + blinds)) == _INT_ONLY
            and min(stacks) > 0 and min(antes) >= 0 and min(blinds) >= 0):
        # the usual case, checked at once: what the three readers below return for it
        stacks, antes, blinds = tuple(stacks), tuple(antes), tuple(blinds)
        count = len(stacks)
    else:
        stacks = _chip_list("starting_stacks", stacks, None, allow_zero=False)
        count = len(stacks)
        if count < 2:
            raise _fail("starting_stacks", f"a hand needs at least 2 players, got {count}")
        antes = _chip_list("antes", antes, count, allow_zero=True)
        blinds = _chip_list("blinds_or_straddles", blinds, count, allow_zero=True)

    raw_actions = raw["actions"]
    if not isinstance(raw_actions, list):
        raise _fail("actions", f"expected an array of strings, got {raw_actions!r}")
    known = _KNOWN_ACTIONS.get(count)
    if known is None or len(known) > _KNOWN_ACTIONS_MAX:
        known = _KNOWN_ACTIONS[count] = {}
    try:  # each action read once per text, then remembered; the rest looked up at once
        for text in set(raw_actions).difference(known):
            action = _plain_action(text, count)
            known[text] = _parse_action(text, count) if action is None else action
        actions = tuple(map(known.__getitem__, raw_actions))
    except Exception:  # not a string, or not an action: read one by one, naming it
        actions = tuple(_actions_one_by_one(raw_actions, count))

    kwargs: dict[str, Any] = {}
    for name in ("min_bet", "small_bet", "big_bet"):
        if name in raw:
            value = raw[name]  # the usual case, a positive integer, taken at once
            kwargs[name] = (value if type(value) is int and value > 0
                            else _chip(name, value, allow_zero=False))
    if "ante_trimming_status" in raw:
        value = raw["ante_trimming_status"]
        kwargs["ante_trimming_status"] = (
            value if type(value) is bool
            else _typed("ante_trimming_status", value, bool, "true or false"))
    if "seats" in raw:
        seats = _typed("seats", raw["seats"], list, "an array of seat numbers")
        if len(seats) != count:
            raise _fail("seats", f"has {len(seats)} entries for {count} players")
        checked = tuple(_typed(f"seats[{i}]", s, int, "a seat number") for i, s in enumerate(seats))
        if len(set(checked)) != count or min(checked) < 1:
            raise _fail("seats", f"seat numbers must be distinct and >= 1, got {list(checked)}")
        kwargs["seats"] = checked
    unread: dict[str, Any] = {}
    for name, read, plain, items in descriptive:
        value = raw[name]
        if type(value) in plain:  # a value its reader would return as it is
            kwargs[name] = value
            continue
        if (items is not None and type(value) is list and len(value) == count
                and set(map(type, value)) == items and (items is _STR_ONLY or min(value) >= 0)):
            # the usual array (the names, the finishing stacks): what its reader returns
            kwargs[name] = tuple(value)
            continue
        try:
            kwargs[name] = read(name, value, count)
        except PhhError:
            unread[name] = value  # not the type phh-std gives it: kept as written
    # the fields of phh-std's or a user's that the table does not read, kept
    user_fields = {name: raw[name] for name in user_names} if user_names else {}
    kwargs["variant"] = variant
    kwargs["antes"] = antes
    kwargs["blinds_or_straddles"] = blinds
    kwargs["starting_stacks"] = stacks
    kwargs["actions"] = actions
    kwargs["user_fields"] = user_fields
    kwargs["unread"] = unread
    return checked_history(kwargs)


# Layouts of fields (variant, field names in order) -> the descriptive fields with their
# readers and the user's fields, in order; bounded, emptied by clear_caches().
_Descriptive = tuple[
    tuple[str, Callable[[str, object, int], Any], frozenset[type], set[type] | None], ...]
_LAYOUTS: dict[tuple[str, tuple[str, ...]], tuple[_Descriptive, tuple[str, ...]]] = {}


def _layout(variant: str, names: tuple[str, ...]) -> tuple[_Descriptive, tuple[str, ...]]:
    """Check a layout of fields for ``variant`` (a required field missing, a forbidden one
    present raise every time) and remember how its fields are read."""
    present = set(names)
    for name in _REQUIRED[variant]:
        if name not in present:
            raise _fail(name, f"missing (required for variant {variant})")
    for name in _FORBIDDEN[variant]:
        if name in present:
            raise _fail(name, f"not used by variant {variant}")
    descriptive = tuple((n, _DESCRIPTIVE[n], _PLAIN_TYPES.get(_DESCRIPTIVE[n], frozenset()),
                         _PLAIN_ITEMS.get(_DESCRIPTIVE[n])) for n in names if n in _DESCRIPTIVE)
    user_names = tuple(n for n in names if n not in _DESCRIPTIVE and n not in _READ_ABOVE)
    if len(_LAYOUTS) >= 1024:
        _LAYOUTS.clear()
    layout = _LAYOUTS[variant, names] = (descriptive, user_names)
    return layout


# Parsed actions (immutable) by player count and text: hand histories repeat the same short
# actions endlessly. Bounded: cleared when it grows past the limit.
_KNOWN_ACTIONS: dict[int, dict[str, PhhAction]] = {}
_KNOWN_ACTIONS_MAX = 100_000


def clear_caches() -> None:
    """Forget the remembered readings of lines, layouts of fields, actions and cards (the
    benchmark times cold reads)."""
    _KNOWN_LINES.clear()
    _LAYOUTS.clear()
    _KNOWN_ACTIONS.clear()
    _parse_action.cache_clear()
    _parse_cards.cache_clear()


def _actions_one_by_one(raw_actions: list[Any], count: int) -> list[PhhAction]:
    """The actions, read one at a time; the first bad one raises, named by its number."""
    actions: list[PhhAction] = []
    for number, text in enumerate(raw_actions, start=1):
        if not isinstance(text, str):
            raise PhhError(f"action {number}: expected a string, got {text!r}")
        try:
            actions.append(parse_action(text, player_count=count))
        except (PhhError, CardError) as exc:
            raise PhhError(f"action {number} {text!r}: {exc}") from None
    return actions


def _string(name: str, value: object, _count: int) -> Any:
    return _typed(name, value, str, "a string")


def _integer(name: str, value: object, _count: int) -> Any:
    return _typed(name, value, int, "an integer")


def _integer_or_string(name: str, value: object, _count: int) -> Any:
    return _typed(name, value, (int, str), "an integer or a string")


def _time(name: str, value: object, _count: int) -> Any:
    return _typed(name, value, datetime.time, "a local time (12:30:00)")


def _names(name: str, value: object, count: int) -> tuple[str, ...]:
    players = _typed(name, value, list, "an array of names")
    if len(players) != count:
        raise _fail(name, f"has {len(players)} entries for {count} players")
    if set(map(type, players)) == _STR_ONLY:
        return tuple(players)
    return tuple(_typed(f"{name}[{i}]", p, str, "a name") for i, p in enumerate(players))


def _chips(name: str, value: object, count: int) -> tuple[int, ...]:
    return _chip_list(name, value, count, allow_zero=True)


# Optional fields the replay does not need (phh-std "Optional fields"): each is read into its
# type; a value that does not fit (a finishing stack with half a chip, a name that is a number)
# does not stop the file, it is kept as written in ``HandHistory.unread``. The fields the
# replay needs (the required ones, ``min_bet``/``small_bet``/``big_bet``,
# ``ante_trimming_status``, ``seats``) are read strictly.
_DESCRIPTIVE: Mapping[str, Callable[[str, object, int], Any]] = {
    **dict.fromkeys(_STRING_FIELDS, _string),
    **dict.fromkeys(_INT_FIELDS, _integer),
    **dict.fromkeys(_INT_OR_STRING_FIELDS, _integer_or_string),
    "time": _time,
    "players": _names,
    **dict.fromkeys(_PER_PLAYER_CHIPS, _chips),
}
# The types whose values these readers return unchanged (exactly these types: not a bool for
# an integer), taken without calling the reader.
_PLAIN_TYPES: Mapping[Callable[[str, object, int], Any], frozenset[type]] = {
    _string: frozenset({str}),
    _integer: frozenset({int}),
    _integer_or_string: frozenset({int, str}),
    _time: frozenset({datetime.time}),
}
# The readers of per-player arrays and the one type of item with which they return the array
# as a tuple (names: strings; chips: integers, none negative), checked without calling them.
_PLAIN_ITEMS: Mapping[Callable[[str, object, int], Any], set[type]] = {
    _names: _STR_ONLY,
    _chips: _INT_ONLY,
}


# The plain subset of TOML that :func:`dumps` and the usual PHH writers (pokerkit, the phh-std
# datasets) write, read without tomllib (which was the largest cost of reading a hand): bare
# keys, decimal integers and decimals (``10112.5``), basic strings without escapes, literal
# strings (``'NT'``), true/false, one-line arrays of those, and a multi-line array of strings,
# one per line. Any other line (a comment, an exponent, a time, an escape, a table...) sends the
# whole text to tomllib, so both readers always agree.
_KEY = r"[A-Za-z0-9_-]+"
_INT = r"(?:0|-?[1-9][0-9]*)"
_FLOAT = r"(?:-?(?:0|[1-9][0-9]*)\.[0-9]+)"
_BASIC = r'"[^"\\\x00-\x1f\x7f]*"'
_LITERAL = r"'[^'\x00-\x1f\x7f]*'"
_STR = rf"(?:{_BASIC}|{_LITERAL})"
_SCALAR = rf"(?:{_FLOAT}|{_INT}|{_STR}|true|false)"  # a decimal before the integer it starts with
_SCALAR_RE = re.compile(_SCALAR)
_KEY_RE = re.compile(_KEY)
_ARRAY_RE = re.compile(rf"\[(?:{_SCALAR}(?:, {_SCALAR})*)?\]")
# Arrays of one kind, the usual case, split without a second pass of the regular expression
# (strings cannot hold their own quote, so the separator is unambiguous).
_INT_ARRAY_RE = re.compile(rf"\[{_INT}(?:, {_INT})*\]")
_BASIC_ARRAY_RE = re.compile(rf"\[{_BASIC}(?:, {_BASIC})*\]")
_LITERAL_ARRAY_RE = re.compile(rf"\[{_LITERAL}(?:, {_LITERAL})*\]")
_ITEM_RE = re.compile(rf"  ({_STR}),")


# The phh-std field names (all bare keys), checked without the regular expression.
_BARE_KEYS = frozenset({*_COMMON_REQUIRED, "min_bet", "small_bet", "big_bet", "bring_in",
                        "ante_trimming_status", "seats", "players", *_STRING_FIELDS, *_INT_FIELDS,
                        *_INT_OR_STRING_FIELDS, *_PER_PLAYER_CHIPS, "time"})


def _scalar(token: str) -> object:
    first = token[0]
    if first == '"' or first == "'":
        return token[1:-1]
    if token == "true":
        return True
    if token == "false":
        return False
    if "." in token:
        return float(token)
    return int(token)


def _array(value: str) -> list[object] | None:
    """A one-line array of the plain subset, or None."""
    quote = value[1:2]
    if (quote == "'" or quote == '"') and len(value) >= 4 and value[-2:] == quote + "]":
        # strings of one kind (the actions line of every file), split at once: what the
        # regular expressions below accept when no item holds its quote (nor, in a basic
        # string, a backslash) and every character is printable (anything else is left to
        # them)
        inside = value[2:-2]
        items = inside.split(quote + ", " + quote)
        if (inside.isprintable() and inside.count(quote) == 2 * len(items) - 2
                and (quote == "'" or "\\" not in inside)):
            return list(items)
    if _INT_ARRAY_RE.fullmatch(value):
        return list(map(int, value[1:-1].split(", ")))
    if _LITERAL_ARRAY_RE.fullmatch(value):
        return list(value[2:-2].split("', '"))
    if _BASIC_ARRAY_RE.fullmatch(value):
        return list(value[2:-2].split('", "'))
    if _ARRAY_RE.fullmatch(value):  # mixed, decimals, booleans, empty
        return [_scalar(t) for t in _SCALAR_RE.findall(value[1:-1])]
    return None


# Lines read, by their text: the files of one game repeat most of their lines (the variant,
# antes, blinds, minimum bet and starting stacks), so each is read once per run, as the actions
# are. Bounded (cleared when full, and by :func:`clear_caches`); only short lines are kept (an
# actions line is new in every file); an array is kept as a tuple and handed out as a new list.
_KNOWN_LINES: dict[str, tuple[str, object, tuple[object, ...] | None]] = {}
_KNOWN_LINES_MAX = 50_000
_KNOWN_LINE_LENGTH = 200


def _plain_toml(text: str) -> dict[str, object] | None:
    """``text`` parsed if it is in the plain subset described above, else None."""
    out: dict[str, object] = {}
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    known = _KNOWN_LINES
    i = 0
    count = len(lines)
    while i < count:
        line = lines[i]
        seen = known.get(line)
        if seen is not None:
            key, remembered, items_seen = seen
            if key in out:
                return None
            out[key] = remembered if items_seen is None else list(items_seen)
            i += 1
            continue
        key, sep, value = line.partition(" = ")
        if not sep or key in out or (key not in _BARE_KEYS and not _KEY_RE.fullmatch(key)):
            return None
        if value == "[":  # a multi-line array of strings, closed by "]" alone
            items: list[object] = []
            i += 1
            while i < count and lines[i] != "]":
                item = _ITEM_RE.fullmatch(lines[i])
                if item is None:
                    return None
                items.append(item.group(1)[1:-1])
                i += 1
            if i == count:
                return None
            out[key] = items  # not remembered: its value is on the lines that follow
            i += 1
            continue
        parsed: object
        if value[:1] == "[":
            parsed = _array(value)
            if parsed is None:
                return None
        elif _SCALAR_RE.fullmatch(value):
            parsed = _scalar(value)
        else:
            return None
        out[key] = parsed
        if len(line) <= _KNOWN_LINE_LENGTH:
            if len(known) >= _KNOWN_LINES_MAX:
                known.clear()
            known[line] = ((key, None, tuple(parsed)) if isinstance(parsed, list)
                           else (key, parsed, None))
        i += 1
    return out


def loads(text: str) -> HandHistory:
    """Parse PHH text (raises :class:`PhhError`)."""
    raw = _plain_toml(text)
    if raw is None:
        import tomllib  # only for texts outside the plain subset: imported when needed

        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise PhhError(f"not valid TOML: {exc}") from None
    return from_mapping(raw)


def load(path: str | Path) -> HandHistory:
    """Read a ``.phh`` file; the error message starts with the file name."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PhhError(f"{path}: cannot read: {exc}") from None
    try:
        return loads(text)
    except PhhError as exc:
        raise PhhError(f"{path}: {exc}") from None


# ---------------------------------------------------------------------------------------------
# writing

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}


def toml_string(value: str) -> str:
    """A TOML basic string; control characters are escaped (TOML 1.0 §String)."""
    out = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_key(key: str) -> str:
    if key and all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in key):
        return key
    return toml_string(key)


def toml_value(value: object) -> str:
    """A TOML value for the types a hand history holds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        pairs = (f"{_toml_key(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    raise TypeError(f"cannot write {value!r} to TOML")


_OPTIONAL_ORDER: tuple[str, ...] = (
    "author", "event", "url", "venue", "address", "city", "region", "postal_code", "country",
    "time", "time_zone", "time_zone_abbreviation", "day", "month", "year", "hand", "level",
    "seats", "seat_count", "table", "players", "finishing_stacks", "winnings", "currency",
    "currency_symbol", "time_limit", "time_banks",
)


def dumps(history: HandHistory) -> str:
    """PHH text for ``history``: fields in the order of phh-std, one action per line."""
    lines = [f"variant = {toml_string(history.variant)}"]
    if history.ante_trimming_status:
        lines.append("ante_trimming_status = true")
    lines.append(f"antes = {toml_value(history.antes)}")
    lines.append(f"blinds_or_straddles = {toml_value(history.blinds_or_straddles)}")
    for name in ("min_bet", "small_bet", "big_bet"):
        value = getattr(history, name)
        if value is not None:
            lines.append(f"{name} = {value}")
    lines.append(f"starting_stacks = {toml_value(history.starting_stacks)}")
    lines.append("actions = [")
    lines.extend(f"  {toml_string(format_action(a))}," for a in history.actions)
    lines.append("]")
    for name in _OPTIONAL_ORDER:
        value = getattr(history, name)
        if value is not None:
            lines.append(f"{name} = {toml_value(value)}")
    for key, value in history.unread.items():
        lines.append(f"{_toml_key(key)} = {toml_value(value)}")
    for key, value in history.user_fields.items():
        lines.append(f"{_toml_key(key)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def dump(history: HandHistory, path: str | Path) -> None:
    """Write ``history`` to ``path`` (UTF-8)."""
    Path(path).write_text(dumps(history), encoding="utf-8")


def iter_phh_files(paths: Iterable[str | Path]) -> list[Path]:
    """The ``.phh`` files named by ``paths``: files as given, folders searched recursively
    (sorted, so runs are reproducible)."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.phh") if p.is_file()))
        else:
            found.append(path)
    return found

