"""pokerkit as an independent referee for the PHH tests (a test-only dependency).

``pokerkit_finishing_stacks(text)`` replays a PHH text with pokerkit and returns the finishing
stacks; ``random_pokerkit_phh(rng)`` plays a random hand in pokerkit and returns the PHH text it
writes, for testing our codec against files we did not write. pokerkit 0.7 has no pot-limit
Texas hold'em variant code; ``PT`` is registered here from pokerkit's own building blocks.
"""

from __future__ import annotations

import random
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import pokerkit as pk
from pokerkit.games import (
    PotLimitPokerMixin,
    TexasHoldemMixin,
    UnfixedLimitHoldem,
)


class PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):
    """Pot-limit Texas hold'em assembled from pokerkit's mixins."""


class RefereeHandHistory(pk.HandHistory):
    """pokerkit's HandHistory with the ``PT`` variant added."""

    game_types: ClassVar[dict[str, Any]] = {**pk.HandHistory.game_types, "PT": PotLimitTexasHoldem}
    variants: ClassVar[dict[Any, str]] = {v: k for k, v in game_types.items()}
    required_field_names: ClassVar[dict[str, tuple[str, ...]]] = {
        **pk.HandHistory.required_field_names,
        "PT": pk.HandHistory.required_field_names["NT"],
    }


def pokerkit_final_state(text: str, *, rake: Any = None) -> Any:
    """Replay ``text`` with pokerkit; raises if pokerkit refuses an action or the hand is open.

    ``rake``: a pokerkit rake function ``(amount, state) -> (raked, unraked)``, default none.
    """
    history = RefereeHandHistory.loads(text, **({} if rake is None else {"rake": rake}))
    states = list(history)
    state = states[-1]
    if state.status:
        raise AssertionError("pokerkit: the hand is not over after the last action")
    return state


def pokerkit_finishing_stacks(text: str, *, rake: Any = None) -> list[int]:
    return [int(s) for s in pokerkit_final_state(text, rake=rake).stacks]


AUTOMATIONS = (
    pk.Automation.ANTE_POSTING,
    pk.Automation.BET_COLLECTION,
    pk.Automation.BLIND_OR_STRADDLE_POSTING,
    pk.Automation.CARD_BURNING,
    pk.Automation.RUNOUT_COUNT_SELECTION,
    pk.Automation.HAND_KILLING,
    pk.Automation.CHIPS_PUSHING,
    pk.Automation.CHIPS_PULLING,
)


def random_pokerkit_state(rng: random.Random, *, variant: str = "NT", players: int = 6) -> Any:
    """A complete random hand played by pokerkit (random legal actions, random cards)."""
    antes = rng.choice([0, 0, 1])
    stacks = tuple(rng.choice([30, 80, 200, 500, 1000]) for _ in range(players))
    game: Any
    if variant == "FT":
        game = pk.FixedLimitTexasHoldem(
            AUTOMATIONS, True, antes, (1, 2), 2, 4, mode=pk.Mode.CASH_GAME
        )
    else:
        cls = pk.NoLimitTexasHoldem if variant == "NT" else PotLimitTexasHoldem
        game = cls(AUTOMATIONS, True, antes, (1, 2), 2, mode=pk.Mode.CASH_GAME)
    state = game(stacks, players)
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    rng.shuffle(deck)
    while state.status:
        if state.can_deal_hole():
            state.deal_hole(deck.pop() + deck.pop())
        elif state.can_deal_board():
            state.deal_board("".join(deck.pop() for _ in range(3 if not state.board_cards else 1)))
        elif state.can_show_or_muck_hole_cards():
            state.show_or_muck_hole_cards(True)
        elif state.actor_index is not None:
            choice = rng.random()
            if choice < 0.15 and state.checking_or_calling_amount and state.can_fold():
                state.fold()
            elif choice < 0.45 and state.can_complete_bet_or_raise_to():
                low = state.min_completion_betting_or_raising_to_amount
                high = state.max_completion_betting_or_raising_to_amount
                top = max(low, min(high, 3 * low))
                amount = high if rng.random() < 0.2 else rng.randint(low, top)
                state.complete_bet_or_raise_to(amount)
            else:
                state.check_or_call()
        else:
            raise AssertionError(f"pokerkit state stuck: {state}")
    return state


def random_pokerkit_phh(
    rng: random.Random, *, variant: str = "NT", players: int = 6
) -> tuple[str, list[int]]:
    """PHH text written by pokerkit for a random hand, and pokerkit's finishing stacks."""
    state = random_pokerkit_state(rng, variant=variant, players=players)
    game: Any
    if variant == "FT":
        game = pk.FixedLimitTexasHoldem(AUTOMATIONS, True, 0, (1, 2), 2, 4)
    else:
        game = pk.NoLimitTexasHoldem(AUTOMATIONS, True, 0, (1, 2), 2)
    text = pk.HandHistory.from_game_state(game, state).dumps()
    if variant == "PT":  # pokerkit cannot name a PT game: it writes NT, the code is fixed here
        text = text.replace("variant = 'NT'", "variant = 'PT'", 1)
        assert "variant = 'PT'" in text
    return text, [int(s) for s in state.stacks]


# ---------------------------------------------------------------------------------------------
# engine hands: export -> our replay and pokerkit's replay -> same finishing stacks


@dataclass(frozen=True, slots=True)
class RoundTrip:
    """``status``: "ok" (ours and pokerkit agree with the engine), "ours-only" (our replay agrees;
    pokerkit not asked, ``detail`` says why), "not-exportable" (``detail`` says why) or
    "mismatch" (``detail`` shows the difference and the PHH text)."""

    status: str
    detail: str = ""


def not_exportable_reason(hand: Any) -> str | None:
    """Why PHH cannot express ``hand`` at all (documented in docs/hand-histories.md)."""
    from table_controller.engine import Posted, PostKind

    result = hand.result
    if result is None:
        return "hand not finished"
    if result.voided:
        return "voided hand (misdeal or fouled deck): every chip returned, nothing played"
    for record in hand.log:
        if isinstance(record, Posted) and record.kind in (
            PostKind.MISSED_SMALL_BLIND,
            PostKind.MISSED_BIG_BLIND,
        ):
            return "missed-blind post: PHH has no notation for dead or out-of-position blinds"
    return None


def pokerkit_skip_reason(hand: Any, config: Any) -> str | None:
    """Why pokerkit, by its own conventions, would pay ``hand`` differently from the rules we
    implement (documented in docs/hand-histories.md); None when it must agree exactly."""
    from table_controller.engine import (
        ActionKind,
        ActionTaken,
        OddChipRule,
        Posted,
        PostKind,
        Structure,
    )

    result = hand.result
    if result.rake and not result.showdown:
        return "raked hand won without a showdown: pokerkit does not rake the last round's bets"
    if result.rake and len(result.pots) > 1:
        return (
            "raked hand with side pots: pokerkit rakes (and caps) each pot on its own, "
            "the engine rakes the total once"
        )
    split = [p for p in result.pots if len(p.winners) > 1 and p.amount % len(p.winners)]
    if split:
        if config.odd_chip is not OddChipRule.TDA:
            return f"odd chips under the house rule {config.odd_chip.value}"
        if config.chip_unit != 1:
            return "odd chips of a chip unit above 1"
        if any(p.amount % len(p.winners) > 1 for p in split):
            return "several odd chips: TDA gives one per winner, pokerkit all to the first"
        eligible = [tuple(sorted(p.eligible)) for p in result.pots]
        if len(set(eligible)) != len(eligible):
            return "odd chips in pots with the same players: pokerkit merges such pots first"
    if config.small_blind == config.big_blind and len(hand.deal_order) == 2:
        return "heads-up with equal blinds: pokerkit picks the first actor by the blind amounts"
    if hand.small_blind_seat is None and any(
        isinstance(r, Posted) and r.kind is PostKind.STRADDLE for r in hand.log
    ):
        return "dead small blind with a straddle: pokerkit reads the straddle as the big blind"
    if _single_ante_short(hand, config):
        return (
            "big-blind or button ante posted short after the blind (blind first, TDA 2024 "
            "RP-11): pokerkit posts the ante first"
        )
    if _short_big_blind(hand, config):
        return (
            "big blind posted short (all-in, or nothing left after the ante): the engine makes "
            "the others call the full big blind, pokerkit only the chips posted"
        )
    if _raise_nobody_can_call(hand, config):
        return (
            "a bet or raise no opponent can call (all others all-in or covered): "
            "pokerkit refuses it as pointless; the outcome equals a call"
        )
    if config.structure is Structure.FIXED_LIMIT:
        raises: dict[Any, int] = {}
        short: set[Any] = set()
        for record in hand.log:
            if isinstance(record, ActionTaken) and record.kind in (
                ActionKind.BET,
                ActionKind.RAISE,
            ):
                if record.street in short:
                    return (
                        "fixed-limit raise after a short all-in: the engine raises one bet above "
                        "the last full bet (rules.md §3), pokerkit one bet above the all-in"
                    )
                raises[record.street] = raises.get(record.street, 0) + 1
                if record.all_in and not record.full_raise:
                    short.add(record.street)
        if any(n > 4 for n in raises.values()):
            return "fixed-limit raising past the cap heads-up (cash game, TDA 40): pokerkit caps"
    return None


def _single_ante_short(hand: Any, config: Any) -> bool:
    """Whether the single ante's poster could not cover his blind and the ante with the blind
    posted first (the order pokerkit does not play)."""
    from table_controller.engine import AnteOrder, Posted, PostKind

    if hand.ante_seat is None or config.ante_order is not AnteOrder.BLIND_FIRST:
        return False
    posted = sum(r.amount for r in hand.log if isinstance(r, Posted) and r.kind is PostKind.ANTE)
    return bool(posted < config.ante)


def _short_big_blind(hand: Any, config: Any) -> bool:
    from table_controller.engine import Posted, PostKind

    posted = sum(
        r.amount
        for r in hand.log
        if isinstance(r, Posted) and r.kind is PostKind.BIG_BLIND and r.seat == hand.big_blind_seat
    )
    return bool(posted < config.big_blind)


def _raise_nobody_can_call(hand: Any, config: Any) -> bool:
    """Whether some bet or raise in ``hand`` exceeded what every live opponent could put in."""
    from table_controller.engine import ActionKind, ActionTaken, BoardDealt, Posted
    from table_controller.phh.export import export_hand

    start = export_hand(hand, config=config).starting_stacks
    stack = dict(zip(hand.deal_order, start, strict=True))
    bet = dict.fromkeys(hand.deal_order, 0)
    folded: set[int] = set()
    for record in hand.log:
        if isinstance(record, Posted):
            stack[record.seat] -= record.amount
            if record.live:
                bet[record.seat] += record.amount
        elif isinstance(record, BoardDealt):
            bet = dict.fromkeys(hand.deal_order, 0)
        elif isinstance(record, ActionTaken):
            if record.kind is ActionKind.FOLD:
                folded.add(record.seat)
                continue
            if record.kind in (ActionKind.BET, ActionKind.RAISE):
                facing = max(b for s, b in bet.items() if s != record.seat)
                others = [s for s in hand.deal_order if s != record.seat and s not in folded]
                if all(bet[s] + stack[s] <= facing for s in others):
                    return True
            stack[record.seat] -= record.added
            bet[record.seat] += record.added
    return False


def round_trip(hand: Any, config: Any) -> RoundTrip:
    """Export ``hand``, replay the text with our engine and with pokerkit, compare stacks."""
    from table_controller.phh import dumps, loads
    from table_controller.phh.export import export_hand
    from table_controller.phh.model import PhhError
    from table_controller.phh.replay import replay

    reason = not_exportable_reason(hand)
    if reason is not None:
        return RoundTrip("not-exportable", reason)
    text = dumps(export_hand(hand, config=config))
    expected = [hand.result.final_stacks[s] for s in hand.deal_order]
    try:
        ours = list(replay(loads(text)).finishing_stacks)
    except PhhError as exc:
        return RoundTrip("mismatch", f"our replay refused the export: {exc}\n{text}")
    if ours != expected:
        return RoundTrip("mismatch", f"our replay gives {ours}, the engine {expected}\n{text}")
    reason = pokerkit_skip_reason(hand, config)
    if reason is not None:
        return RoundTrip("ours-only", reason)
    rake = None
    if config.rake is not None:
        # pokerkit rounds the rake to the nearest chip, the house floors it: pokerkit is given
        # the house's arithmetic, the rest (no flop no drop, paying the pot) is its own.
        def rake(amount: int, state: Any) -> tuple[int, int]:
            taken = config.rake.rake_for(amount) if any(state.board_cards) else 0
            return taken, amount - taken

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = pokerkit_finishing_stacks(text, rake=rake)
    except Exception as exc:  # pokerkit's refusal, whatever its type, is the finding
        return RoundTrip("mismatch", f"pokerkit refused the export: {exc!r}\n{text}")
    if theirs != expected:
        return RoundTrip("mismatch", f"pokerkit gives {theirs}, the engine {expected}\n{text}")
    return RoundTrip("ok")
