"""PHH text <-> HandHistory, checked against files pokerkit writes and replays."""

from __future__ import annotations

import random
import tomllib
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.phh import (
    BetOrRaiseTo,
    CheckOrCall,
    DealBoard,
    DealHole,
    Fold,
    HandHistory,
    NoOp,
    PhhAction,
    PhhError,
    ShowOrMuck,
    dumps,
    format_action,
    load,
    loads,
    parse_action,
)
from table_controller.phh.codec import iter_phh_files, toml_string
from table_controller.vocabulary.cards import DECK, parse_card
from tests.phh_pokerkit import pokerkit_finishing_stacks, random_pokerkit_phh

MINIMAL = """\
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AsKs", "d dh p2 ????", "d dh p3 7h6h", "p3 f", "p1 cc", "p2 cc",
           "d db Jc3d5c", "p1 cbr 4", "p2 f"]
"""


@pytest.mark.parametrize("variant", ["NT", "PT", "FT"])
@pytest.mark.parametrize("players", [2, 3, 6, 9])
def test_pokerkit_files_round_trip(variant: str, players: int) -> None:
    rng = random.Random(f"{variant}-{players}")
    for _ in range(6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            text, stacks = random_pokerkit_phh(rng, variant=variant, players=players)
        history = loads(text)
        raw = tomllib.loads(text)
        assert history.variant == variant
        assert list(history.starting_stacks) == raw["starting_stacks"]
        assert list(history.antes) == raw["antes"]
        assert list(history.blinds_or_straddles) == raw["blinds_or_straddles"]
        assert [format_action(a) for a in history.actions] == raw["actions"]
        ours = dumps(history)
        assert loads(ours) == history
        assert dumps(loads(ours)) == ours
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert pokerkit_finishing_stacks(ours) == stacks


@pytest.mark.parametrize("text", [
    "p3 f", "p2 cc", "p1 cbr 60", "p1 cbr 60.0", "p1 cbr 060", "p1 cbr 0", "p1 cbr", "p9 f",
    "p0 f", "p01 cc", "d dh p1 AsKs", "d dh p2 ????", "d dh p1 AsK", "d dh p1 AsKx",
    "d db Jc3d5c", "d db ??Ks2d", "d db 9s", "p1  f", "p1 f ", "p1 f # tank", "p1 sm AsKs",
    "p1 sm", "d dh p4 AsKs", "x1 f", "p1 pb", "",
    "d dh p1 AsAs", "d dh p1 AsKs x", "d dh p1  AsKs", "d dh  p1 AsKs", "d dhp1 AsKs",
    "d dh p10 AsKs", "d dh p99 AsKs", "d dh p0 AsKs", "d dh p1 asks", "d dh p1 AsKs ",
    "d dh p3", "d dh ", "d db AhKh2c ", "d db Ah Kh 2c", "d db AhKh2c#x", "d db ", "d db",
])
def test_plain_action_reader_agrees_with_the_general_one(text: str) -> None:
    """The fast reader of the usual actions gives what the general reader gives, or leaves
    the text to it (None); errors come from the general reader."""
    _same_reading(text)


@given(st.lists(st.sampled_from(["d", "dh", "db", "p1", "p3", "p4", "p0", "p10", "AsKs",
                                 "AsAs", "As", "??", "Kh2c9d", "f", "cc", "cbr", "60", "060",
                                 "", " ", "#"]), max_size=5),
       st.sampled_from([" ", "  "]))
def test_plain_action_reader_agrees_on_any_tokens(words: list[str], space: str) -> None:
    _same_reading(space.join(words))


def _same_reading(text: str) -> None:
    from table_controller.phh.codec import _general_action, _plain_action

    plain = _plain_action(text, 3)
    try:
        general: object = _general_action(text, 3)
    except (PhhError, ValueError) as exc:
        general = exc
    if plain is not None:
        assert plain == general
    assert (plain is not None) <= (text.count(" ") in (1, 2, 3) and "#" not in text)


def test_action_notation_round_trip() -> None:
    cases = {
        "d dh p1 AsKs": DealHole(1, (parse_card("As"), parse_card("Ks"))),
        "d dh p2 ????": DealHole(2, (None, None)),
        "d db Jc3d5c": DealBoard((parse_card("Jc"), parse_card("3d"), parse_card("5c"))),
        "p3 f": Fold(3),
        "p1 cc": CheckOrCall(1),
        "p2 cbr 60": BetOrRaiseTo(2, 60),
        "p1 sm": ShowOrMuck(1, False),
        "p1 sm -": ShowOrMuck(1, True),
        "p2 sm ??Ad": ShowOrMuck(2, True, (None, parse_card("Ad"))),
        "p2 cc # tank call": CheckOrCall(2, "tank call"),
        "# burn card exposed": NoOp("burn card exposed"),
        "": NoOp(None),
    }
    for text, action in cases.items():
        assert parse_action(text, player_count=3) == action
        assert format_action(action) == text
    assert parse_action("  p2   cbr   60  ", player_count=3) == BetOrRaiseTo(2, 60)
    assert parse_action("p2 cbr 60.0", player_count=3) == BetOrRaiseTo(2, 60)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("p4 f", "no player 'p4'"),
        ("x1 f", "not a player"),
        ("p1 cbr", "player actions are"),
        ("p1 cbr 2.5", "whole number"),
        ("p1 cbr ten", "not a number"),
        ("p1 pb", "does not exist in Texas hold'em"),
        ("p1 sd AsKs", "does not exist in Texas hold'em"),
        ("d dh p1 AsK", "two characters per card"),
        ("d dh p1 AsKx", "'Kx'"),
        ("d db ??Ks2d", "unknown card"),
        ("d xx", "dealer actions are"),
    ],
)
def test_bad_actions_say_what_is_wrong(text: str, expected: str) -> None:
    with pytest.raises((PhhError, ValueError), match=expected):
        parse_action(text, player_count=3)


def _replace(old: str, new: str) -> str:
    assert old in MINIMAL
    return MINIMAL.replace(old, new)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('variant = "NT', "not valid TOML"),
        (_replace('variant = "NT"', 'variant = "PO"'), "field 'variant': unsupported variant 'PO'"),
        (_replace('variant = "NT"', 'variant = "NS"'), "field 'variant'"),
        (_replace('variant = "NT"\n', ""), "field 'variant': missing"),
        (_replace("min_bet = 2\n", ""), "field 'min_bet': missing"),
        (_replace("min_bet = 2\n", "min_bet = 2\nsmall_bet = 2\n"), "field 'small_bet': not used"),
        (_replace("antes = [0, 0, 0]", "antes = [0, 0]"), "field 'antes': has 2 entries for 3"),
        (_replace("[100, 100, 100]", "[100, 100.5, 100]"), r"starting_stacks\[1\]'.*whole"),
        (_replace("[100, 100, 100]", "[100, inf, 100]"), "unknown"),
        (_replace("[100, 100, 100]", "[100, 0, 100]"), "must be positive"),
        (_replace("[100, 100, 100]", "[100]"), "at least 2 players"),
        (_replace("antes = [0, 0, 0]", 'antes = [0, "1", 0]'), "expected a number"),
        (_replace('"p3 f"', '"p3 fold"'), "action 4 'p3 fold'"),
        (_replace('"d db Jc3d5c"', '"d db Jc3d5x"'), "action 7 'd db Jc3d5x': not a card: '5x'"),
        # the first bad action in the file's order is named, whatever else is wrong
        (_replace('"p3 f", "p1 cc"', '"p3 zz", "p1 yy"'), "action 4 'p3 zz'"),
        (_replace('"p3 f", "p1 cc"', '"p3 f", "p1 cc", 7, []'), "action 6: expected a string"),
        (_replace('"p3 f", "p1 cc"', '"p3 f", "p1 cc", [], 7'), "action 6: expected a string"),
        (_replace('"p3 f", "p1 cc"', '"p3 f", "p3 f", "p1 zz", 7'), "action 6 'p1 zz'"),
        (_replace("actions = [", "seats = [1, 1, 2]\nactions = ["), "field 'seats': .*distinct"),
    ],
)
def test_malformed_files_are_refused_with_the_reason(text: str, expected: str) -> None:
    with pytest.raises(PhhError, match=expected):
        loads(text)


@pytest.mark.parametrize(
    "field",
    ["players = [1, 2, 3]", "finishing_stacks = [99.5, 100.5, 100]", 'day = "22"',
     "winnings = [1, 2]", "time = 3", "hand = true", "day = false", "venue = 3"],
)
def test_descriptive_fields_of_another_type_are_kept_not_refused(field: str) -> None:
    """A field the replay does not need does not stop the file (issue 11): it is kept as
    written in ``unread`` and written back; the fields of the hand stay strict."""
    history = loads(_replace("actions = [", f"{field}\nactions = ["))
    name = field.split(" = ")[0]
    assert name in history.unread and name not in history.user_fields
    assert getattr(history, name) is None
    again = loads(dumps(history))
    assert again == history
    assert tomllib.loads(dumps(history))[name] == tomllib.loads(field)[name]


def test_fixed_limit_requires_small_and_big_bet() -> None:
    text = _replace('variant = "NT"', 'variant = "FT"')
    with pytest.raises(PhhError, match="field 'small_bet': missing"):
        loads(text.replace("min_bet = 2\n", ""))
    with pytest.raises(PhhError, match="field 'min_bet': not used by variant FT"):
        loads(text.replace("min_bet = 2\n", "min_bet = 2\nsmall_bet = 2\nbig_bet = 4\n"))


def test_optional_and_user_fields_round_trip() -> None:
    text = MINIMAL + (
        'players = ["Ann \\"the rock\\"", "Bo\\nB", "Ĉu"]\nseats = [3, 5, 9]\nseat_count = 9\n'
        'hand = 17\ntable = "T4"\ntime = 21:05:00\nday = 30\nmonth = 11\nyear = 2026\n'
        'finishing_stacks = [104, 98, 100]\ncurrency = "EUR"\n'
        '_odd_chip = "tda"\n_rake = {percent = 5, cap = 3}\n'
    )
    history = loads(text)
    assert history.players == ('Ann "the rock"', "Bo\nB", "Ĉu")
    assert history.seats == (3, 5, 9)
    assert history.user_fields == {"_odd_chip": "tda", "_rake": {"percent": 5, "cap": 3}}
    assert history.player_name(2) == "Bo\nB"
    again = loads(dumps(history))
    assert again == history
    assert tomllib.loads(dumps(history))["time"].isoformat() == "21:05:00"


def test_toml_string_escapes_control_characters() -> None:
    for value in ['a"b', "back\\slash", "tab\there", "bell\x07", "del\x7f", "ünïcödé"]:
        assert tomllib.loads(f"x = {toml_string(value)}")["x"] == value


def test_load_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.phh"
    bad.write_text(_replace('variant = "NT"', 'variant = "F7S"'))
    with pytest.raises(PhhError, match=r"bad\.phh: field 'variant': unsupported variant 'F7S'"):
        load(bad)
    with pytest.raises(PhhError, match=r"missing\.phh: cannot read"):
        load(tmp_path / "missing.phh")
    binary = tmp_path / "binary.phh"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(PhhError, match=r"binary\.phh: cannot read"):
        load(binary)


def test_iter_phh_files_walks_folders_in_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    for name in ["b/2.phh", "1.phh", "b/notes.txt"]:
        (tmp_path / name).write_text(MINIMAL)
    single = tmp_path / "single.other"
    single.write_text(MINIMAL)
    assert iter_phh_files([tmp_path, single]) == [tmp_path / "1.phh", tmp_path / "b/2.phh", single]


def test_plain_reader_agrees_with_tomllib() -> None:
    """The fast reader of the plain TOML subset that dumps() writes either returns exactly what
    tomllib returns or declines (None) and leaves the text to tomllib."""
    from table_controller.phh.codec import _plain_toml

    examples = sorted((Path(__file__).resolve().parents[1] / "table_controller/data/examples")
                      .glob("*.phh"))
    texts = [p.read_text() for p in examples]
    texts.append(dumps(loads(MINIMAL)))
    texts.append(dumps(loads(MINIMAL + 'players = ["Ann \\"Q\\"", "Bø", ""]\n_x = [true, -3]\n')))
    texts += [
        'a = 1\nb = "x, 2"\nc = [1, 2]\nd = ["p1 cc # a, b", "q"]\ne = true\nf = []\n',
        "a = [\n  \"x\",\n  \"y\",\n]\nb = -12\n",
        "a = 05\n", "a = 1\na = 2\n", "a = 1.5\n", "a = [\n  \"x\",\n", "a = 'x'\n",
        "a = 1 # c\n", "[t]\na = 1\n", 'a = "\\u00e9"\n', "a = 1\r\n", "", "a = -0\n",
    ]
    declined = 0
    for text in texts:
        fast = _plain_toml(text)
        try:
            slow = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            assert fast is None, text
            continue
        if fast is None:
            declined += 1
        else:
            assert fast == slow, text
    written = texts[len(examples)]  # what dumps() writes is read by the fast reader
    assert _plain_toml(written) == tomllib.loads(written)
    assert _plain_toml(texts[len(examples) + 2]) is not None
    assert declined >= 5


def test_plain_reader_reads_every_real_file_as_tomllib_does() -> None:
    """The real files the project ships (phh-dataset's layout: one-line arrays of literal
    strings) are read by the fast reader, to exactly what tomllib reads."""
    from table_controller.phh.codec import _plain_toml, clear_caches

    real = sorted((Path(__file__).resolve().parent / "data" / "phh-real").rglob("*.phh"))
    assert len(real) >= 20
    clear_caches()
    for _ in range(2):  # read fresh, then from the remembered lines
        for path in real:
            text = path.read_text(encoding="utf-8")
            assert _plain_toml(text) == tomllib.loads(text), path


# Strings made to trip a reader of string arrays: the quotes, the separator and its pieces, a
# backslash, brackets, controls (a tab, NUL, DEL, C1), non-ASCII spaces and letters.
_tricky = st.lists(st.sampled_from(["'", '"', ", ", ",", " ", "\\", "\\'", "[", "]", "\t",
                                    "\x00", "\x1f", "\x7f", "\x85", "\u00a0", "\u2028", "é",
                                    "p1 f", "#", "="]), max_size=8).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(_tricky, max_size=4), st.sampled_from(["'", '"']),
       st.sampled_from([", ", ",", " , ", ", ,"]), st.sampled_from(["", " ", ","]))
def test_plain_reader_agrees_with_tomllib_on_string_arrays(
        items: list[str], quote: str, separator: str, end: str) -> None:
    """A one-line array of strings, however its items and separators are written, is read by
    the fast reader to what tomllib reads, or left to tomllib; never read otherwise."""
    from table_controller.phh.codec import _plain_toml, clear_caches

    clear_caches()
    text = "a = [" + separator.join(quote + item + quote for item in items) + end + "]\n"
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert _plain_toml(text) is None, text
        return
    fast = _plain_toml(text)
    assert fast is None or fast == expected, text


@settings(max_examples=400, deadline=None)
@given(_tricky)
def test_plain_reader_agrees_with_tomllib_on_any_bracketed_text(inside: str) -> None:
    """Whatever stands between the brackets (``[']`` is no array), the fast reader reads what
    tomllib reads, or leaves it to tomllib."""
    from table_controller.phh.codec import _plain_toml, clear_caches

    clear_caches()
    text = f"a = [{inside}]\n"
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert _plain_toml(text) is None, text
        return
    fast = _plain_toml(text)
    assert fast is None or fast == expected, text


def test_read_history_is_the_one_the_constructor_builds() -> None:
    """The reader builds its HandHistory without the generated __init__: the same record
    (defaults included), as immutable."""
    import pickle
    from dataclasses import FrozenInstanceError, fields, replace

    plain = loads(MINIMAL)
    assert plain == HandHistory(variant="NT", antes=(0, 0, 0), blinds_or_straddles=(1, 2, 0),
                                min_bet=2, starting_stacks=(100, 100, 100),
                                actions=plain.actions)
    full = loads(MINIMAL + 'hand = 3\nplayers = ["a", "b", "c"]\nfinishing_stacks = [1.5, 2, 3]'
                 '\n_mine = 1\n')
    rebuilt = HandHistory(**{f.name: getattr(full, f.name) for f in fields(HandHistory)})
    assert full == rebuilt and repr(full) == repr(rebuilt)
    assert full.unread == {"finishing_stacks": [1.5, 2, 3]} and full.user_fields == {"_mine": 1}
    with pytest.raises(FrozenInstanceError):
        full.variant = "FT"  # type: ignore[misc]
    # the fields not in the file read as their defaults, and the history copies like one
    # built by the constructor
    assert (plain.author, plain.seats, plain.ante_trimming_status) == (None, None, False)
    assert replace(plain, hand=7) == replace(HandHistory(**{f.name: getattr(plain, f.name)
                                                             for f in fields(HandHistory)}),
                                             hand=7)
    assert pickle.loads(pickle.dumps(full)) == full


def test_layouts_of_fields_are_remembered_per_variant_and_order() -> None:
    """How a layout of fields is read is worked out once; files of that layout keep their own
    values, user fields and unread fields in the file's order; a layout with a field missing
    or forbidden is refused every time."""
    text = MINIMAL + '_b = 2\nfinishing_stacks = [1.5, 2, 3]\n_a = 1\nplayers = [1, 2, 3]\n'
    for _ in range(2):
        history = loads(text)
        assert list(history.user_fields.items()) == [("_b", 2), ("_a", 1)]
        assert list(history.unread) == ["finishing_stacks", "players"]
    other = loads(text.replace("_b = 2", "_b = 5"))
    assert other.user_fields == {"_b": 5, "_a": 1}
    for _ in range(2):
        with pytest.raises(PhhError, match="field 'min_bet': missing"):
            loads(text.replace("min_bet = 2\n", ""))
        with pytest.raises(PhhError, match="field 'small_bet': not used"):
            loads(text.replace("min_bet = 2\n", "min_bet = 2\nsmall_bet = 2\n"))
    fixed = text.replace('"NT"', '"FT"').replace("min_bet = 2", "small_bet = 2\nbig_bet = 4")
    assert loads(fixed).small_bet == 2
    with pytest.raises(PhhError, match="field 'min_bet': not used by variant FT"):
        loads(text.replace('"NT"', '"FT"').replace("min_bet = 2", "small_bet = 2\nbig_bet = 4"
                                                   "\nmin_bet = 2"))


def test_plain_reader_remembers_lines_without_sharing_arrays() -> None:
    """A line read again gives the same value; arrays come out as new lists, so a caller that
    changes one does not change the next file's."""
    from table_controller.phh.codec import _plain_toml, clear_caches

    clear_caches()
    text = "antes = [0, 1]\nvariant = 'NT'\n_user = [true, 2]\n"
    first = _plain_toml(text)
    assert first == tomllib.loads(text)
    antes, user = first["antes"], first["_user"]
    assert isinstance(antes, list) and isinstance(user, list)
    antes.append(9)
    user.clear()
    assert _plain_toml(text) == tomllib.loads(text)
    assert _plain_toml("variant = 'NT'\nvariant = 'NT'\n") is None  # a key twice, remembered


_names = st.text(st.characters(codec="utf-8"), max_size=12)
_chips = st.integers(0, 10**9)


@st.composite
def _histories(draw: st.DrawFn) -> HandHistory:
    count = draw(st.integers(2, 9))
    cards = draw(st.permutations(list(DECK)))
    actions: list[PhhAction] = [DealHole(p, (cards[2 * p], cards[2 * p + 1]))
                                for p in range(1, count + 1)]
    for _ in range(draw(st.integers(0, 12))):
        player = draw(st.integers(1, count))
        options: list[PhhAction] = [
            Fold(player), CheckOrCall(player, draw(st.none() | _names | st.just(" x # y "))),
            BetOrRaiseTo(player, draw(st.integers(1, 10**6))),
            ShowOrMuck(player, False), ShowOrMuck(player, True),
            DealBoard((cards[40], cards[41], cards[42])), NoOp(draw(_names)),
        ]
        actions.append(draw(st.sampled_from(options)))
    return HandHistory(
        variant=draw(st.sampled_from(["NT", "PT"])),
        antes=tuple(draw(st.lists(_chips, min_size=count, max_size=count))),
        blinds_or_straddles=tuple(draw(st.lists(_chips, min_size=count, max_size=count))),
        starting_stacks=tuple(draw(st.lists(st.integers(1, 10**9), min_size=count,
                                            max_size=count))),
        actions=tuple(actions),
        min_bet=draw(st.integers(1, 100)),
        players=draw(st.none() | st.lists(_names, min_size=count, max_size=count).map(tuple)),
        event=draw(st.none() | _names),
        hand=draw(st.none() | st.integers(1, 10**6) | _names),
        user_fields=draw(st.dictionaries(st.from_regex(r"_[a-z]{1,8}", fullmatch=True),
                                         st.integers(-5, 5) | _names | st.booleans(),
                                         max_size=3)),
    )


@settings(max_examples=60, deadline=None)
@given(_histories())
def test_any_history_survives_writing_and_reading(history: HandHistory) -> None:
    text = dumps(history)
    again = loads(text)
    # commentary is written trimmed: the text is the canonical form
    assert dumps(again) == text
    assert again.starting_stacks == history.starting_stacks
    assert again.players == history.players
    assert again.user_fields == history.user_fields
    assert tomllib.loads(text)["actions"] == [format_action(a) for a in again.actions]
