"""Hand evaluation (rules.md §1): categories, tie-breaks, wording, best five, and agreement with
two independent evaluators (treys, pokerkit) and with the plain rules, on seeded random hands."""

from __future__ import annotations

from itertools import chain, combinations, pairwise

import numpy as np
import numpy.typing as npt
import pytest

from table_controller.engine.evaluator import (
    CODES,
    HandCategory,
    HandValue,
    describe_score,
    encode,
    evaluate,
    evaluate_codes,
    evaluate_many,
    score_codes,
)
from table_controller.engine.evaluator_batch import evaluate_batch
from table_controller.engine.evaluator_rules import rank_only_score, suited_score
from table_controller.vocabulary.cards import DECK, Card, parse_cards


def ev(text: str) -> HandValue:
    return evaluate(parse_cards(text))


def random_hands(seed: int, n: int, k: int = 7) -> npt.NDArray[np.int64]:
    """``n`` seeded rows of ``k`` distinct card indices."""
    rng = np.random.default_rng(seed)
    rows: list[npt.NDArray[np.int64]] = []
    have = 0
    while have < n:
        draw = rng.integers(0, 52, size=(2 * n, k))
        ordered = np.sort(draw, axis=1)
        keep = draw[(np.diff(ordered, axis=1) != 0).all(axis=1)]
        rows.append(keep)
        have += len(keep)
    return np.concatenate(rows)[:n]


def plain_rules_score(cards: list[Card]) -> int:
    """The rules applied directly, no tables: best of rank-only and any suited five."""
    score = rank_only_score([c.rank for c in cards])
    for suit in "shdc":
        suited = [c.rank for c in cards if c.suit == suit]
        if len(suited) >= 5:
            score = max(score, suited_score(suited))
    return score


# --- categories, wording, best five ---------------------------------------------------------

EXAMPLES = [
    # cards, category, description, best five
    ("As Ks Qs Js Ts 2d 2c", HandCategory.STRAIGHT_FLUSH, "Royal Flush", "As Ks Qs Js Ts"),
    ("9h 8h 7h 6h 5h Ah Kh", HandCategory.STRAIGHT_FLUSH, "Straight Flush, Nine high",
     "9h 8h 7h 6h 5h"),
    ("5d 4d 3d 2d Ad Ac Ah", HandCategory.STRAIGHT_FLUSH, "Straight Flush, Five high",
     "5d 4d 3d 2d Ad"),
    ("9c 9d 9h 9s Kc Kd 2s", HandCategory.FOUR_OF_A_KIND, "Four of a Kind, Nines",
     "9s 9h 9d 9c Kd"),
    ("Kh Kd Ks 7c 7s 7d 2c", HandCategory.FULL_HOUSE, "Full House, Kings over Sevens",
     "Ks Kh Kd 7s 7d"),
    ("6h 6d 6s Ac Ad 2c 3c", HandCategory.FULL_HOUSE, "Full House, Sixes over Aces",
     "6s 6h 6d Ad Ac"),
    ("Ah Kh 3h 5h 9h 8c 7d", HandCategory.FLUSH, "Flush, Ace high", "Ah Kh 9h 5h 3h"),
    ("As 2d 3h 4c 5s Kd Kc", HandCategory.STRAIGHT, "Straight, Five high", "5s 4c 3h 2d As"),
    ("Ac Kd Qh Js Tc 2c 2d", HandCategory.STRAIGHT, "Straight, Ace high", "Ac Kd Qh Js Tc"),
    ("Qc Qd Qh 9s 4c 2d 7h", HandCategory.THREE_OF_A_KIND, "Three of a Kind, Queens",
     "Qh Qd Qc 9s 7h"),
    ("Ks Kd 7h 7c 2s 3d 9c", HandCategory.TWO_PAIR, "Two Pair, Kings and Sevens",
     "Ks Kd 7h 7c 9c"),
    ("Ah Ad 3c 5d 9s", HandCategory.PAIR, "Pair of Aces", "Ah Ad 9s 5d 3c"),
    ("Ah Kd 3c 5d 9s 8c 7d", HandCategory.HIGH_CARD, "High Card, Ace", "Ah Kd 9s 8c 7d"),
    ("Jh 9d 3c 5d 8s 2c", HandCategory.HIGH_CARD, "High Card, Jack", "Jh 9d 8s 5d 3c"),
]


@pytest.mark.parametrize(("cards", "category", "description", "best"), EXAMPLES)
def test_examples(cards: str, category: HandCategory, description: str, best: str) -> None:
    value = ev(cards)
    assert value.category is category
    assert value.description == description
    assert value.best_five == tuple(parse_cards(best))
    assert description in repr(value)


def test_category_order() -> None:
    order = [
        HandCategory.HIGH_CARD, HandCategory.PAIR, HandCategory.TWO_PAIR,
        HandCategory.THREE_OF_A_KIND, HandCategory.STRAIGHT, HandCategory.FLUSH,
        HandCategory.FULL_HOUSE, HandCategory.FOUR_OF_A_KIND, HandCategory.STRAIGHT_FLUSH,
    ]
    assert sorted(order) == order
    values = [ev(cards) for cards, *_ in reversed(EXAMPLES)]
    categories = [v.category for v in values]
    assert [v.score for v in sorted(values)] == sorted(v.score for v in values)
    assert all(
        (a.category < b.category) <= (a < b) for a in values for b in values
    ), categories


def test_best_five_is_always_five_of_the_cards_with_the_same_value() -> None:
    hands = random_hands(seed=11, n=3000)
    for row in hands.tolist():
        cards = [DECK[i] for i in row]
        value = evaluate(cards)
        best = value.best_five
        assert len(best) == 5
        assert len(set(best)) == 5
        assert set(best) <= set(cards)
        assert evaluate(list(best)) == value


# --- tie-breaks (rules.md §1) ------------------------------------------------------------------

BETTER_THAN = [
    # stronger, weaker
    ("2c 3c 4c 5c 6c", "Ac 2d 3d 4d 5d"),  # any straight flush beats any other hand
    ("6h 5s 4d 3c 2h", "5h 4s 3d 2c Ah"),  # wheel is the lowest straight
    ("5h 4s 3d 2c Ah", "Ah As Ad Kc Qd"),  # ... but still a straight, above trips
    ("Ah Ks Qd Jc Th", "Kh Qs Jd Tc 9h"),  # ace plays high
    ("6d 5d 4d 3d 2d", "5c 4c 3c 2c Ac"),  # steel wheel is the lowest straight flush
    ("9s 9h 9d 9c 3h", "8s 8h 8d 8c Ah"),  # quads: quad rank first
    ("9s 9h 9d 9c 4h", "9s 9h 9d 9c 3h"),  # quads: then the kicker
    ("3s 3h 3d 2c 2h", "2s 2h 2d Ac Ah"),  # full house: trips first
    ("Ks Kh Kd 3c 3h", "Ks Kh Kd 2c 2h"),  # ... then the pair
    ("Ah 9h 7h 5h 3h", "Kh Qh Jh 9h 7h"),  # flush card by card
    ("Ah Kh 7h 5h 4h", "Ah Kh 7h 5h 3h"),  # ... down to the fifth card
    ("Qs Qh Qd 5c 3h", "Qs Qh Qd 4c 3h"),  # trips kickers
    ("Ks Kh 2d 2c 3h", "Qs Qh Jd Jc Ah"),  # two pair: high pair first
    ("Ks Kh 5d 5c 3h", "Ks Kh 4d 4c Ah"),  # ... then the low pair
    ("Ks Kh 5d 5c 4h", "Ks Kh 5d 5c 3h"),  # ... then the kicker
    ("As Ah 5d 4c 3h", "Ks Kh Ad Qc Jh"),  # pair rank first
    ("As Ah 6d 3c 2h", "As Ah 5d 4c 3h"),  # ... then kickers card by card
    ("Ac Qd 9h 5s 4c", "Ac Qd 9h 5s 3c"),  # high card down to the fifth
    ("Ks Kh 5d 5c 2h 2c Ah", "Ks Kh 5d 5c 4h 3c 3d"),  # third pair never plays as a pair
    ("8s 8h 8d 7c 7h 7d 2c", "8s 8h 8d 6c 6h 6d Ac"),  # two trips: the lower one is the pair
    ("8s 8h 8d 6c 6h As Ah", "8s 8h 8d 7c 7h 7d 2c"),  # ... and the best pair completes it
]


@pytest.mark.parametrize(("strong", "weak"), BETTER_THAN)
def test_tie_breaks(strong: str, weak: str) -> None:
    a, b = ev(strong), ev(weak)
    assert a > b
    assert b < a
    assert a >= b
    assert b <= a
    assert a != b


TIES = [
    ("As Ks Qs Js Ts", "Ah Kh Qh Jh Th"),  # suits never break ties
    ("Ah Ad 9s 5d 3c", "As Ac 9h 5c 3d"),
    ("Ah Kh 7h 5h 3h", "Ac Kc 7c 5c 3c"),
    ("Ks Kh 5d 5c 4h 3c 2d", "Kd Kc 5h 5s 4c 2h 3s"),
    ("Ks Kh 5d 5c Qh 3c 2d", "Ks Kh 5d 5c Qh 3h 2h"),  # board plays: the kicker is the Q
    ("9s 9h 9d 9c 4h 3h 2h", "9s 9h 9d 9c 4d 3s 2s"),  # quads: only one kicker plays
    ("5h 4s 3d 2c Ah Kh Kc", "5h 4s 3d 2c As 7h 8c"),  # wheel with any other cards
]


@pytest.mark.parametrize(("left", "right"), TIES)
def test_ties(left: str, right: str) -> None:
    a, b = ev(left), ev(right)
    assert a == b
    assert not a < b
    assert not b < a
    assert a <= b
    assert a >= b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1


def test_value_is_immutable_and_keeps_its_cards() -> None:
    value = ev("Ah Ad 3c 5d 9s 2c")
    assert value.cards == tuple(parse_cards("Ah Ad 3c 5d 9s 2c"))
    with pytest.raises(AttributeError):
        value.score = 0  # type: ignore[misc]


def test_equality_with_other_types() -> None:
    value = ev("As Ks Qs Js Ts")
    assert value != value.score
    assert value != "Royal Flush"
    with pytest.raises(TypeError):
        assert value < value.score  # type: ignore[operator]
    with pytest.raises(TypeError):
        assert value >= 0  # type: ignore[operator]


def test_five_six_and_seven_cards() -> None:
    assert ev("Ah Ad 3c 5d 9s").description == "Pair of Aces"
    assert ev("Ah Ad 3c 5d 9s 3h").description == "Two Pair, Aces and Threes"
    assert ev("Ah Ad 3c 5d 9s 3h 3s").description == "Full House, Threes over Aces"


# --- wording of every score --------------------------------------------------------------------

def test_description_of_each_category() -> None:
    assert describe_score(ev("As Ks Qs Js Ts").score) == "Royal Flush"
    assert describe_score(ev("Tc 9c 8c 7c 6c").score) == "Straight Flush, Ten high"
    assert describe_score(ev("2c 2d 2h 2s 3c").score) == "Four of a Kind, Twos"
    assert describe_score(ev("6c 6d 6h 2s 2c").score) == "Full House, Sixes over Twos"
    assert describe_score(ev("Tc 8c 6c 4c 2c").score) == "Flush, Ten high"
    assert describe_score(ev("Tc 9d 8c 7c 6c").score) == "Straight, Ten high"
    assert describe_score(ev("Jc Jd Jh 2s 3c").score) == "Three of a Kind, Jacks"
    assert describe_score(ev("Qc Qd 6h 6s 3c").score) == "Two Pair, Queens and Sixes"
    assert describe_score(ev("Tc Td 6h 4s 3c").score) == "Pair of Tens"
    assert describe_score(ev("7c 5d 4h 3s 2c").score) == "High Card, Seven"


# --- input errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("cards", ["", "As", "As Ks Qs Js", "As Ks Qs Js Ts 9s 8s 7s"])
def test_wrong_number_of_cards(cards: str) -> None:
    with pytest.raises(ValueError, match="5, 6 or 7 cards"):
        ev(cards)


def test_duplicate_card_is_named() -> None:
    with pytest.raises(ValueError, match=r"duplicate card.*Kd"):
        ev("As Kd 2c 3c Kd 9h")


# --- integer code paths ------------------------------------------------------------------------

def test_codes_agree_with_objects_and_plain_rules() -> None:
    rng = np.random.default_rng(5)
    for k in (5, 6, 7):
        hands = random_hands(seed=k, n=4000, k=k).tolist()
        scores = evaluate_many([tuple(CODES[i] for i in row) for row in hands])
        for row, score in zip(hands, scores, strict=True):
            cards = [DECK[i] for i in rng.permutation(row)]
            codes = [encode(c) for c in cards]
            assert codes == [CODES[c.index] for c in cards]
            assert evaluate(cards).score == score
            assert score_codes(codes) == score
            assert plain_rules_score(cards) == score
            if k == 7:
                assert evaluate_codes(*codes) == score


def test_every_five_card_hand() -> None:
    """All 2,598,960 five-card hands: the textbook category counts and 7,462 distinct values."""
    every = np.fromiter(
        chain.from_iterable(combinations(range(52), 5)), dtype=np.int8, count=5 * 2_598_960
    ).reshape(-1, 5)
    scores = evaluate_batch(every, check=False)
    counts = np.bincount(scores >> 20, minlength=9).tolist()
    assert counts == [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]
    assert len(np.unique(scores)) == 7462
    assert int((scores == ev("As Ks Qs Js Ts").score).sum()) == 4


# --- NumPy batch path --------------------------------------------------------------------------

@pytest.mark.parametrize("k", [5, 6, 7])
def test_batch_agrees_with_scalar(k: int) -> None:
    hands = random_hands(seed=100 + k, n=50_000, k=k)
    expected = evaluate_many([tuple(CODES[i] for i in row) for row in hands.tolist()])
    for dtype in (np.int8, np.int64):
        got = evaluate_batch(hands.astype(dtype))
        assert got.dtype == np.int32
        assert got.tolist() == expected


def test_batch_empty_and_list_input() -> None:
    assert evaluate_batch(np.empty((0, 7), dtype=np.int64)).shape == (0,)
    royal = [c.index for c in parse_cards("As Ks Qs Js Ts 2d 3c")]
    assert evaluate_batch([royal]).tolist() == [ev("As Ks Qs Js Ts").score]


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        (np.zeros((3, 4), dtype=np.int64), "shape"),
        (np.zeros((3, 8), dtype=np.int64), "shape"),
        (np.zeros(7, dtype=np.int64), "shape"),
        (np.zeros((2, 7)), "integer"),
        (np.array([[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 52]]), r"row 1: .*outside 0..51"),
        (np.array([[0, 1, 2, 3, 4, 5, -1]]), r"row 0: .*outside 0..51"),
        (np.array([[0, 1, 2, 3, 4, 5, 6], [9, 1, 2, 3, 4, 5, 9]]), r"row 1: repeated card"),
        (np.array([[51, 51, 50, 50, 49]]), r"row 0: repeated card"),
    ],
)
def test_batch_rejects_bad_input(hands: npt.NDArray[np.generic], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_batch(hands)


# --- independent evaluators -------------------------------------------------------------------

def assert_same_order(ours: npt.NDArray[np.int64], theirs: npt.NDArray[np.int64]) -> None:
    """``theirs`` ranks the hands exactly as ``ours`` does (higher is better for both): equal
    scores map to equal ranks and a higher score always to a higher rank, over the whole sample."""
    order = np.lexsort((theirs, ours))
    o, t = ours[order], theirs[order]
    tie = o[1:] == o[:-1]
    assert (t[1:][tie] == t[:-1][tie]).all()
    assert (t[1:][~tie] > t[:-1][~tie]).all()


def test_agrees_with_treys_on_200000_seven_card_hands() -> None:
    treys = pytest.importorskip("treys")
    evaluator = treys.Evaluator()
    by_index = [treys.Card.new(str(c)) for c in DECK]
    hands = random_hands(seed=2026, n=200_000)
    ours = evaluate_batch(hands).astype(np.int64)
    rank = evaluator.evaluate
    theirs = np.array(
        [-rank([by_index[i] for i in row[:2]], [by_index[i] for i in row[2:]])
         for row in hands.tolist()],
        dtype=np.int64,
    )
    assert_same_order(ours, theirs)  # treys: lower is better, hence the minus sign
    distinct, where = np.unique(theirs, return_inverse=True)
    classes = np.array([evaluator.get_rank_class(-t) for t in distinct.tolist()])[where]
    expected_category = np.where(classes == 0, 8, 9 - classes)  # treys 0 = royal, 1 = SF, ...
    assert ((ours >> 20) == expected_category).all()
    assert len(np.unique(ours)) > 3000  # the sample spans thousands of distinct values


def test_agrees_with_pokerkit_on_seven_card_hands() -> None:
    pokerkit = pytest.importorskip("pokerkit")
    high = pokerkit.StandardHighHand
    hands = random_hands(seed=77, n=1500).tolist()
    ours = [evaluate([DECK[i] for i in row]).score for row in hands]
    theirs = [
        high.from_game("".join(str(DECK[i]) for i in row[:2]),
                       "".join(str(DECK[i]) for i in row[2:]))
        for row in hands
    ]
    ranked = sorted(range(len(hands)), key=lambda i: ours[i])
    for a, b in pairwise(ranked):
        if ours[a] == ours[b]:
            assert theirs[a] == theirs[b]
        else:
            assert theirs[a] < theirs[b]


def test_showdowns_agree_with_treys_and_pokerkit() -> None:
    """Random heads-up showdowns on a shared board: who wins, or a split (rules.md §1)."""
    treys = pytest.importorskip("treys")
    pokerkit = pytest.importorskip("pokerkit")
    evaluator = treys.Evaluator()
    by_index = [treys.Card.new(str(c)) for c in DECK]
    deals = random_hands(seed=9, n=10_000, k=9).tolist()  # board 5, hole 2 + 2
    outcomes = {-1: 0, 0: 0, 1: 0}
    for n, deal in enumerate(deals):
        board, first, second = deal[:5], deal[5:7], deal[7:]
        a = evaluate_codes(*(CODES[i] for i in first + board))
        b = evaluate_codes(*(CODES[i] for i in second + board))
        ours = (a > b) - (a < b)
        outcomes[ours] += 1
        tb = [by_index[i] for i in board]
        ta = evaluator.evaluate([by_index[i] for i in first], tb)
        tc = evaluator.evaluate([by_index[i] for i in second], tb)
        assert ours == (ta < tc) - (ta > tc), deal
        if n < 800:
            text = "".join(str(DECK[i]) for i in board)
            pa = pokerkit.StandardHighHand.from_game("".join(str(DECK[i]) for i in first), text)
            pb = pokerkit.StandardHighHand.from_game("".join(str(DECK[i]) for i in second), text)
            assert ours == (pa > pb) - (pa < pb), deal
    assert min(outcomes.values()) > 50, outcomes  # wins, losses and splits all exercised
