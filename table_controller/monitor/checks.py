"""The checks that turn picture changes into alerts: dispatch, card identity, stub, sensors.

Each check names its rule (alerts.md, rules.md §5); the hole-card deal is in ``deal_checks``,
the board and burn in ``board_checks``.
"""

from __future__ import annotations

from table_controller.engine import Street
from table_controller.monitor import board_checks, deal_checks
from table_controller.monitor.alerting import (
    FELT,
    MISDEAL_REMEDY,
    hand_cards,
    known,
    make,
    misdeal,
    stop,
    where,
)
from table_controller.monitor.cards_in_play import TrackedCard
from table_controller.monitor.context import CheckContext
from table_controller.monitor.fusion import Fused
from table_controller.monitor.records import ConsoleAction
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import DECK, Card, format_cards
from table_controller.vocabulary.observations import Face
from table_controller.vocabulary.zones import BOARD, BURN, SHUFFLER, seat_of, seat_zone


# ------------------------------------------------------------------------ dispatch
def entered(ctx: CheckContext, f: Fused) -> list[Alert]:
    """A card arrived in a zone (placed, or moved there)."""
    tc, zone, run = f.card, f.zone, ctx.run
    if f.from_zone is not None:
        left_zone(ctx, tc, f.from_zone)
    if tc.joker:
        return joker(ctx, tc, f.t)
    if tc.foreign:  # the table's other deck waits in the shuffler: only the felt counts
        return foreign(ctx, tc, f.t) if zone != SHUFFLER else []
    if zone == SHUFFLER:
        return face_up_in_stub(ctx, tc, f.t) if tc.face is Face.UP else []
    if run is None:
        return card_without_hand(ctx, tc, f)
    if run.halted is not None:
        return []
    if tc.rfid_key is not None and run.returned_keys.get(tc.rfid_key) == zone:
        del run.returned_keys[tc.rfid_key]  # a hole card lifted and put back: no new deal
        run.in_hand.add(tc.pid)
        return []
    run.in_hand.add(tc.pid)
    out = duplicates(ctx, tc, f.t)
    if run.halted is not None:
        return out
    seat = seat_of(zone)
    if seat is not None:
        return out + deal_checks.seat_card(ctx, tc, seat, f)
    if zone == BOARD:
        return out + board_checks.board_card(ctx, tc, f.t)
    if zone == BURN:
        run.board.burns += 1
    return out


def left(ctx: CheckContext, f: Fused) -> None:
    """A card left the felt (its removal settled)."""
    if f.detail == "merged":
        return
    run = ctx.run
    if run is not None and f.card.rfid_key is not None and seat_of(f.zone) is not None \
            and f.card.pid in run.in_hand and run.deal_over:
        run.returned_keys[f.card.rfid_key] = f.zone
    left_zone(ctx, f.card, f.zone)


def left_zone(ctx: CheckContext, tc: TrackedCard, zone: str) -> None:
    run = ctx.run
    if run is None:
        return
    if zone == BOARD:
        run.board.drop(tc.pid)
    seat = seat_of(zone)
    if seat is not None:
        deal_checks.card_left_seat(ctx, tc, seat)


def face(ctx: CheckContext, f: Fused) -> list[Alert]:
    """A card's face became known (the camera saw it land) or it was turned over."""
    tc, run = f.card, ctx.run
    if run is None or run.halted is not None or (
            tc.pid not in run.in_hand and f.zone != SHUFFLER):
        return []
    if f.zone == SHUFFLER:
        return face_up_in_stub(ctx, tc, f.t) if tc.face is Face.UP else []
    seat = seat_of(f.zone)
    if seat is None or tc.face is not Face.UP:
        return []
    if not f.flipped:
        return deal_checks.dealt_face_up(ctx, tc, seat, f.t)
    return exposed_by_player(ctx, tc, seat, f.t)


def identity(ctx: CheckContext, f: Fused) -> list[Alert]:
    """A card's identity became known (or it turned out a joker or a foreign card)."""
    tc = f.card
    if tc.joker:
        return joker(ctx, tc, f.t)
    if tc.foreign:
        return foreign(ctx, tc, f.t) if f.zone != SHUFFLER else []
    run = ctx.run
    if run is None or run.halted is not None or tc.pid not in run.in_hand:
        return []
    return duplicates(ctx, tc, f.t)


def conflict(ctx: CheckContext, f: Fused) -> list[Alert]:
    """The reader and the camera disagree beyond the settle time: a fault, never a game
    alert."""
    tc = f.card
    return [make(ctx, "SENSOR_CONFLICT", f.t, seat=seat_of(f.zone),
                 cards=[c for c in (tc.card,) if c is not None],
                 message=f"RFID and camera disagree: {f.detail}",
                 remedy=f"Check {tc.label()} in {where(f.zone)} and the sensors")]


# ---------------------------------------------------------------- card checks
def duplicates(ctx: CheckContext, tc: TrackedCard, t: float, *,
               camera_only: bool = False) -> list[Alert]:
    """Two cards of the same rank and suit in play: a fouled deck, all action void and every
    chip returned whatever action has happened (TDA 2024 35-E, [000] [003]).

    Two tags naming the same card are two physical cards at once; two camera sightings of the
    same face count only when both have stayed in place for the settle time (a card the camera
    re-tracks as it moves is one card)."""
    run = ctx.run
    if run is None or tc.card is None or run.halted is not None:
        return []
    settle = ctx.config.settle_time
    for other in ctx.picture:
        if other is tc or other.card != tc.card or other.pid not in run.in_hand \
                or other.pending or other.zone not in FELT or tc.zone not in FELT:
            continue
        pair = frozenset({tc.pid, other.pid})
        if pair in run.duplicates:
            continue
        tagged = tc.rfid_key is not None and other.rfid_key is not None
        if not tagged:
            if not camera_only:
                continue
            steady = (t - max(tc.placed_t, other.placed_t) >= settle
                      and tc.gone_since is None and other.gone_since is None)
            if not steady:
                continue
        run.duplicates.add(pair)
        first, second = sorted((tc, other), key=lambda c: c.seq)
        alert = make(ctx, "DUPLICATE_CARD", t, seat=seat_of(second.zone), cards=[tc.card],
                     message=f"Two {tc.card} in play: {where(first.zone)} and "
                             f"{where(second.zone)} (fouled deck)",
                     remedy="All action void, every chip returned to the bettors; replace "
                            "the deck (TDA 2024 35-E)")
        stop(ctx, alert, void_on_resolve=True)
        return [alert]
    return []


def camera_duplicates(ctx: CheckContext, now: float) -> list[Alert]:
    """The settled check of camera-only sightings (see :func:`duplicates`): one pass over the
    picture per tick, looking only at faces seen twice where a card has no tag."""
    run = ctx.run
    if run is None:
        return []
    picture = ctx.picture
    if not any(tc.card is not None and tc.rfid_key is None for tc in picture):
        return []  # every identified card has its tag (the usual case with the reader)
    by_card: dict[Card, list[TrackedCard]] = {}
    for tc in picture:
        if tc.card is not None and tc.pid in run.in_hand and not tc.pending \
                and tc.zone in FELT:
            by_card.setdefault(tc.card, []).append(tc)
    for group in by_card.values():
        if len(group) < 2:
            continue
        for tc in group:
            if tc.rfid_key is None:
                out = duplicates(ctx, tc, now, camera_only=True)
                if out:
                    return out
    return []


def once(ctx: CheckContext, code: str, tc: TrackedCard) -> bool:
    """True the first time ``code`` is raised about this card (in this hand, or between
    hands)."""
    seen = ctx.run.once if ctx.run is not None else ctx.no_hand_seen
    key = (code, tc.pid)
    if key in seen:
        return False
    seen.add(key)
    return True


def joker(ctx: CheckContext, tc: TrackedCard, t: float) -> list[Alert]:
    """A joker in a game without jokers: discard and replace it, not a dealer error [003]."""
    if not once(ctx, "JOKER", tc):
        return []
    pid, zone = tc.pid, tc.zone
    alert = make(ctx, "JOKER", t, seat=seat_of(zone),
                 message=f"A joker in {where(zone)}",
                 remedy=f"Discard the joker from {where(zone)} and replace it with the next "
                        "card; not a dealer error")

    def verify() -> str | None:
        still = ctx.picture.get(pid)
        if still is not None and still.gone_since is None:
            return f"the joker is still in {where(still.zone)}"
        return None

    ctx.book.open(alert, verify=verify)
    return [alert]


def foreign(ctx: CheckContext, tc: TrackedCard, t: float) -> list[Alert]:
    """A card of another deck (an unknown tag, the other deck's tag) [000] [003]: remove it;
    if it reached a hand (a seat, or the board every hand plays) the hand is void."""
    if not once(ctx, "FOREIGN_CARD", tc):
        return []
    run = ctx.run
    zone, pid = tc.zone, tc.pid
    name = tc.label()
    cards = [tc.card] if tc.card is not None else []
    in_hand = run is not None and (seat_of(zone) is not None or zone == BOARD)
    if in_hand and run is not None and run.halted is None:
        alert = make(ctx, "FOREIGN_CARD", t, seat=seat_of(zone), cards=cards,
                     message=f"{name} from another deck reached {where(zone)}",
                     remedy=f"Remove {name}; it reached {where(zone)}: all action void, every "
                            "chip returned")
        stop(ctx, alert, void_on_resolve=True)
        return [alert]
    alert = make(ctx, "FOREIGN_CARD", t, seat=seat_of(zone), cards=cards,
                 message=f"{name} from another deck in {where(zone)}",
                 remedy=f"Take {name} out of {where(zone)}; it reached no hand, play goes on")

    def verify() -> str | None:
        still = ctx.picture.get(pid)
        if still is not None and still.gone_since is None:
            return f"{name} is still in {where(still.zone)}"
        return None

    ctx.book.open(alert, verify=verify)
    return [alert]


def card_without_hand(ctx: CheckContext, tc: TrackedCard, f: Fused) -> list[Alert]:
    """A card lands on the felt with no hand running: the green button was not pressed
    (TDA 2024 23 [002 #19]). Cards moved about on the felt after a hand are not new.

    Dealing on without the button is one error (alerts.md, "One error, one alert"): while its
    alert is open (until the floor resolves it or the button starts a hand), each further card
    restates it. This is also what the camera alone sees when such a card, face down, is moved:
    it cannot follow a back from one zone to another, so the back in the muck is a new card to
    it (docs/monitor.md, known limits)."""
    if f.zone not in FELT or f.from_zone not in (None, SHUFFLER) or not once(
            ctx, "CARD_WITHOUT_HAND", tc):
        return []
    remedy = "Press the shuffler's green button to start a hand"
    entry = ctx.book.latest("CARD_WITHOUT_HAND")
    if entry is not None:
        places: list[str] = [*entry.alert.extra.get("places", ()), where(f.zone)]
        update = make(ctx, "CARD_WITHOUT_HAND", f.t, seat=entry.alert.seat,
                      message=f"{len(places)} cards landed on the felt ({', '.join(places)}) "
                              "with no hand running",
                      remedy=remedy, places=tuple(places))
        return [ctx.book.restate(entry, update)]
    alert = make(ctx, "CARD_WITHOUT_HAND", f.t, seat=seat_of(f.zone),
                 message=f"A card landed in {where(f.zone)} with no hand running",
                 remedy=remedy, places=(where(f.zone),))
    ctx.book.open(alert)
    return [alert]


def face_up_in_stub(ctx: CheckContext, tc: TrackedCard, t: float) -> list[Alert]:
    """A face-up card in the stub: discard it, replace it with the next card [003]; two or
    more cards seen in the deck are a misdeal [002 #31]."""
    run = ctx.run
    if run is None or run.halted is not None or not once(ctx, "FACE_UP_IN_DECK", tc):
        return []
    run.face_up_in_stub += 1
    cards = [tc.card] if tc.card is not None else []
    if run.face_up_in_stub >= 2 and not run.deal_over:
        return misdeal(ctx, "MISDEAL_MULTIPLE_EXPOSED", t, seat=None, cards=cards,
                       message="A second card seen face up in the stub")
    pid, name = tc.pid, tc.label()
    alert = make(ctx, "FACE_UP_IN_DECK", t, cards=cards,
                 message=f"{name} lies face up in the stub",
                 remedy=f"Discard {name} and replace it with the next card (if that card "
                        "was already dealt, finish the deal first)")

    def verify() -> str | None:
        still = ctx.picture.get(pid)
        if still is not None and still.zone == SHUFFLER and still.face is Face.UP \
                and still.gone_since is None:
            return f"{name} is still face up in the stub"
        return None

    ctx.book.open(alert, verify=verify)
    return [alert]


def exposed_by_player(ctx: CheckContext, tc: TrackedCard, seat: int, t: float) -> list[Alert]:
    """A player turned up his own hole card: not a dealer error, the card plays [003]. Cards
    turned up for the showdown or an all-in are not reported."""
    run = ctx.run
    if run is None or run.showdown_called or run.hand.street in (Street.SHOWDOWN,
                                                                  Street.COMPLETE):
        return []
    if run.deal_over and board_checks.all_in_runout(ctx):
        return []
    if not once(ctx, "CARD_EXPOSED_BY_PLAYER", tc):
        return []
    cards = [tc.card] if tc.card is not None else []
    return [make(ctx, "CARD_EXPOSED_BY_PLAYER", t, seat=seat, cards=cards,
                 message=f"Seat {seat} turned up his own card {tc.label()}",
                 remedy="The card plays; not a dealer error")]


# --------------------------------------------------------------------- deal end
def deal_end(ctx: CheckContext, t: float) -> list[Alert]:
    return deal_checks.deal_end(ctx, t)


def visible_hole_cards(ctx: CheckContext) -> tuple[dict[int, list[Card]], list[int]]:
    """For the showdown: each live seat's two hole cards where the sensors know both, and the
    live seats whose cards are not there to be read (mucked, or never turned up to a camera
    alone): all cards must be tabled to win a pot ([002 #13])."""
    run = ctx.run
    holes: dict[int, list[Card]] = {}
    mucked: list[int] = []
    if run is None:
        return holes, mucked
    for seat in run.hand.live_seats:
        cards = known(hand_cards(ctx, seat_zone(seat)))
        if len(cards) == 2:
            holes[seat] = cards
        else:
            mucked.append(seat)
    return holes, mucked


def button_report(ctx: CheckContext, action: ConsoleAction) -> list[Alert]:
    """The console (or camera) reports the dealer button: in the wrong place it is a misdeal,
    the button goes to the right seat ([000] [003])."""
    run = ctx.run
    if run is None or run.halted is not None:
        return []
    right = run.hand.button
    if right is None or action.seat == right:
        return []
    return misdeal(ctx, "MISDEAL_BUTTON_POSITION", action.t, seat=action.seat, cards=[],
                   message=f"The button is on seat {action.seat}; the rotation puts it on "
                           f"seat {right}",
                   remedy=f"{MISDEAL_REMEDY}; move the button to seat {right}")


def deck_check(ctx: CheckContext, t: float) -> list[Alert]:
    """At the green button, when the sensors see the stub: 52 distinct cards of the active
    deck, no more, no less [003]. A card of the deck that the sensors see on the felt (left
    there after the last hand) is accounted for: the check is about cards lost or doubled."""
    if not ctx.config.stub_visible:
        return []
    stub = ctx.picture.in_zone(SHUFFLER)
    if not stub:
        return []
    seen: dict[Card, int] = {}
    odd = 0
    for tc in ctx.picture:
        if tc.foreign:
            continue  # the other deck, waiting in the shuffler (rules.md §1: decks alternate)
        if tc.zone != SHUFFLER:
            if tc.card is not None and not tc.joker:
                seen[tc.card] = seen.get(tc.card, 0) + 1
            continue  # an unidentified card on the felt is the deal's business, not the deck's
        if tc.card is None or tc.joker:
            odd += 1
        else:
            seen[tc.card] = seen.get(tc.card, 0) + 1
    missing = [c for c in DECK if c not in seen]
    doubled = sorted(c for c, n in seen.items() if n > 1)
    if not missing and not doubled and not odd:
        return []
    parts = []
    if missing:
        parts.append(f"missing {format_cards(missing)}")
    if doubled:
        parts.append(f"twice {format_cards(doubled)}")
    if odd:
        parts.append(f"{odd} card(s) not of this deck")
    alert = make(ctx, "DECK_INCOMPLETE", t, cards=missing + doubled,
                 message=f"Deck check: {'; '.join(parts)}",
                 remedy="Replace the deck; a missing card does not change a result")
    ctx.book.open(alert)
    return [alert]
