"""The dealer errors continuous play can make: every kind of the alert catalogue a dealer (or his
deck) can cause, the alert each must raise, when in a hand it is made, and the sensor modes that
cannot see it, with the reason (alerts.md; rules.md §5; docs/monitor.md "What the sensors cannot
see").

Used by :mod:`hw_sim.harness.autoplay` (``demo`` and the soak benchmark), which carries the
errors out (:mod:`hw_sim.harness.error_injection`). The catalogue codes no dealer error causes
(a player's, the clock's, the sensors') are in :data:`NOT_DEALER_ERRORS`, each with the reason;
together the two name every code of the catalogue (``tests/test_sim_dealer_errors.py``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

MODES = ("rfid", "camera", "both")
"""The sensor modes: the reader alone, the camera alone, both fused."""

MOMENTS = ("before_hand", "deal", "after_deal", "preflop", "flop", "flop_betting", "turn")
"""When in a hand an error is made: before the green button; instead of the correct hole deal;
after it, before the betting; during the preflop betting; instead of (or with) the flop deal;
during the flop betting; instead of the turn deal."""

_NO_FACES = "the reader sees tags, not faces"
_STACKED_SEAT = ("the simulated camera stacks a third card on a seat's second (docs/simulator.md):"
                 " it sees two cards")
_HOLE_FACE_DOWN = ("the camera has no identity for a face-down hole card: the original of the "
                   "duplicate is not seen until the showdown")
_BURN_PILE = ("the camera sees the top of the burn pile: a missing burn is claimed only when the "
              "pile is empty (docs/monitor.md)")
_NO_DECK = ("the camera sees a card's face, not its deck: the other deck's card of a face not in "
            "play looks like the active deck's")
_NO_COUNT = "the camera sees the stub's top card only and cannot count the deck"


@dataclass(frozen=True, slots=True)
class ErrorKind:
    """One kind of dealer error. ``code``: the alert it must raise; ``also``: codes the same
    error raises as well by the rules (a first exposed card before the second one makes the
    misdeal); ``unseen``: sensor mode -> why that mode cannot see it."""

    name: str
    code: str
    moment: str
    what: str
    also: frozenset[str] = frozenset()
    unseen: Mapping[str, str] = field(default_factory=dict)

    def seen_in(self, mode: str) -> bool:
        return mode not in self.unseen

    @property
    def codes(self) -> frozenset[str]:
        """Every code this error may raise: no other game alert is explained by it."""
        return self.also | {self.code}


KINDS: tuple[ErrorKind, ...] = (
    # --- before the green button (rules.md §2, [002 #19] TDA 23; [003] deck check)
    ErrorKind("card_without_hand", "CARD_WITHOUT_HAND", "before_hand",
              "a card dealt to a seat before the green button is pressed"),
    ErrorKind("card_off_table", "DECK_INCOMPLETE", "before_hand",
              "a card of the fresh deck falls off the table before the green button",
              unseen={"camera": _NO_COUNT}),
    # --- the hole-card deal (rules.md §5 misdeal, [002 #31] [000] [003])
    ErrorKind("wrong_first_seat", "MISDEAL_WRONG_FIRST_SEAT", "deal",
              "the first card to the second seat to be dealt"),
    ErrorKind("exposed_first_card", "MISDEAL_EXPOSED_FIRST_CARDS", "deal",
              "the first card of the deal lands face up", unseen={"rfid": _NO_FACES}),
    ErrorKind("exposed_card", "EXPOSED_CARD_REPLACE", "deal",
              "the third card of the deal lands face up; the deal is finished",
              unseen={"rfid": _NO_FACES}),
    ErrorKind("multiple_exposed", "MISDEAL_MULTIPLE_EXPOSED", "deal",
              "the third and fifth cards of the deal land face up",
              also=frozenset({"EXPOSED_CARD_REPLACE"}), unseen={"rfid": _NO_FACES}),
    ErrorKind("empty_seat", "MISDEAL_EMPTY_SEAT", "deal",
              "the second card of the deal to a seat with no player"),
    ErrorKind("out_of_order", "MISDEAL_OUT_OF_ORDER", "deal",
              "the second card of the deal skips a seat"),
    ErrorKind("short_deal", "MISDEAL_WRONG_CARD_COUNT", "deal",
              "the button's second card is never dealt; the betting starts"),
    ErrorKind("extra_card", "EXTRA_CARD_BURN", "deal",
              "one card too many, to the first seat, after the deal",
              unseen={"camera": _STACKED_SEAT}),
    # --- after the deal, before the betting
    ErrorKind("button_position", "MISDEAL_BUTTON_POSITION", "after_deal",
              "the dealer button lies on the seat after the right one"),
    ErrorKind("face_up_in_deck", "FACE_UP_IN_DECK", "after_deal",
              "the stub's top card lies face up", unseen={"rfid": _NO_FACES}),
    # --- during the preflop betting
    ErrorKind("green_button_during_hand", "GREEN_BUTTON_DURING_HAND", "preflop",
              "the green button pressed again before the first action"),
    ErrorKind("card_after_action", "MISDEAL_AFTER_ACTION", "preflop",
              "a third card to the player to act after three actions (substantial action)",
              unseen={"camera": _STACKED_SEAT}),
    ErrorKind("premature_flop", "PREMATURE_BOARD_CARD", "preflop",
              "the flop dealt while the big blind's option is pending (or after three "
              "actions, with more to come)"),
    # --- the flop
    ErrorKind("four_card_flop", "FOUR_CARD_FLOP", "flop", "a fourth card on the flop"),
    ErrorKind("missing_burn_flop", "MISSING_BURN", "flop", "the flop dealt without a burn"),
    ErrorKind("duplicate", "DUPLICATE_CARD", "flop",
              "a second card of a hole card's face on the flop",
              unseen={"camera": _HOLE_FACE_DOWN}),
    ErrorKind("premature_turn", "PREMATURE_BOARD_CARD", "flop_betting",
              "the turn dealt before the flop's betting"),
    # --- the turn
    ErrorKind("missing_burn", "MISSING_BURN", "turn", "the turn dealt without a burn",
              unseen={"camera": _BURN_PILE}),
    ErrorKind("extra_board_card", "EXTRA_BOARD_CARD", "turn", "two cards dealt for the turn"),
    ErrorKind("duplicate_board", "DUPLICATE_CARD", "turn",
              "the turn is a second card of a flop card's face"),
    ErrorKind("foreign_card", "FOREIGN_CARD", "turn", "the turn is a card of the other deck",
              unseen={"camera": _NO_DECK}),
    ErrorKind("joker", "JOKER", "turn", "the turn is a joker"),
)
BY_NAME: dict[str, ErrorKind] = {k.name: k for k in KINDS}

NOT_DEALER_ERRORS: dict[str, str] = {
    "CARD_EXPOSED_BY_PLAYER": "a player turns up his own card; the dealer does nothing wrong",
    "ACTION_OUT_OF_TURN": "a player acts out of turn; the console records it",
    "TIME_EXPIRED": "a player's clock runs out",
    "SENSOR_OFFLINE": "a device fault, injected by the soak as link and camera faults",
    "SENSOR_RECOVERED": "a device recovering, after an injected fault",
    "SENSOR_CONFLICT": "the two sensors disagree: a device matter, never a dealer's",
    "CARDS_MOVED_WHILE_DOWN": "cards moved while the controller was not running (a restart)",
    "HAND_NOT_RESUMED": "a restarted controller could not rebuild the hand it was killed in",
}


def mode_of(sensors: Collection[str]) -> str:
    """``rfid``, ``camera`` or ``both`` for a set of sensors."""
    chosen = frozenset(sensors)
    if chosen == {"rfid", "camera"}:
        return "both"
    if len(chosen) != 1 or not chosen <= {"rfid", "camera"}:
        raise ValueError(f"not a sensor mode: {sorted(chosen)}")
    return next(iter(chosen))


TRAY_KINDS = frozenset({"card_off_table"})
"""Kinds only the antenna under the shuffler tray sees (it counts the deck at the green button);
the RFID link played in-process has no tray antenna."""


def kinds_seen(sensors: Collection[str], *, tray: bool = True) -> list[str]:
    """The kinds a table with ``sensors`` can see, in catalogue order; without ``tray`` (no
    antenna under the shuffler tray) not those of :data:`TRAY_KINDS`."""
    mode = mode_of(sensors)
    return [k.name for k in KINDS if k.seen_in(mode) and (tray or k.name not in TRAY_KINDS)]
