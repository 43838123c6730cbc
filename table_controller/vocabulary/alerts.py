"""The alert catalogue (docs/alerts.md): stable codes, a public interface.

A code is never renamed; new ones may be added. Each entry carries its severity, the rule it
enforces and the remedy the controller states unless a more specific one is given.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from table_controller.vocabulary.cards import Card


class Severity(StrEnum):
    STOP = "stop"    # the hand cannot go on as dealt: void or misdeal
    FIX = "fix"      # the dealer must carry out a correction, then play goes on
    WARN = "warn"    # procedure broken, play goes on
    INFO = "info"    # worth recording
    FAULT = "fault"  # a sensor or link problem, not a game event


@dataclass(frozen=True, slots=True)
class AlertSpec:
    severity: Severity
    rule: str
    message: str
    remedy: str


_S, _F, _W, _I, _X = Severity.STOP, Severity.FIX, Severity.WARN, Severity.INFO, Severity.FAULT
_MISDEAL = "Misdeal: collect the cards, reshuffle and redeal; the button stays"

CATALOGUE: dict[str, AlertSpec] = {
    "MISDEAL_EXPOSED_FIRST_CARDS": AlertSpec(
        _S, "TDA 35 [002 #31] [000] [003]", "One of the first two cards of the deal is face up",
        _MISDEAL),
    "MISDEAL_MULTIPLE_EXPOSED": AlertSpec(
        _S, "TDA 35 [000] [003] [002 #31]", "A second card exposed during the deal", _MISDEAL),
    "MISDEAL_WRONG_FIRST_SEAT": AlertSpec(
        _S, "TDA 35 [002 #31] [000] [003]", "The first card of the deal went to the wrong seat",
        _MISDEAL),
    "MISDEAL_EMPTY_SEAT": AlertSpec(
        _S, "TDA 35 [002 #31] [000] [003]",
        "A card was dealt to an empty seat or a seat not entitled to cards", _MISDEAL),
    "MISDEAL_OUT_OF_ORDER": AlertSpec(
        _S, "TDA 35 [000] [003] [002 #31]", "A card was dealt out of order", _MISDEAL),
    "MISDEAL_WRONG_CARD_COUNT": AlertSpec(
        _S, "TDA 35 [002 #31] [000] [003]", "A seat holds the wrong number of cards", _MISDEAL),
    "MISDEAL_BUTTON_POSITION": AlertSpec(
        _S, "[000] [003]", "The button is in the wrong place",
        _MISDEAL + "; move the button to the right seat"),
    "MISDEAL_AFTER_ACTION": AlertSpec(
        _W, "TDA 36 [002 #32]", "A misdeal condition found after substantial action",
        "No misdeal: the hand is played out"),
    "EXPOSED_CARD_REPLACE": AlertSpec(
        _F, "[000] [003]", "One card exposed during the deal",
        "Finish the deal, replace the exposed card with the top card; the exposed card is the "
        "flop's burn card"),
    "EXTRA_CARD_BURN": AlertSpec(
        _F, "[003]", "One card too many dealt before the first betting round",
        "The extra card becomes the burn card"),
    "FOUR_CARD_FLOP": AlertSpec(
        _F, "TDA 39-A [002 #33] [000]", "Four cards on the flop",
        "Turn all four face down; the controller names the burn card"),
    "EXTRA_BOARD_CARD": AlertSpec(
        _F, "[003]", "More than one card on the board for this street",
        "The extra card goes back to the stub, which is reshuffled"),
    "PREMATURE_BOARD_CARD": AlertSpec(
        _F, "[003] TDA RP-5", "A board card was dealt before the betting round was complete",
        "The premature cards go back into the stub, which is reshuffled; the burn stays; after "
        "the betting deal the street again with no new burn"),
    "MISSING_BURN": AlertSpec(
        _W, "[000] TDA 39-B", "A street was dealt with no burn card",
        "Before any action the floor has it corrected; after action the cards stand"),
    "DUPLICATE_CARD": AlertSpec(
        _S, "TDA 35-E [000] [003]", "Two cards of the same rank and suit in play",
        "All action void, all chips returned to the bettors"),
    "FOREIGN_CARD": AlertSpec(
        _S, "[000] [003]", "A card that does not belong to the active deck is in play",
        "Remove it; if it reached a hand, all action void, chips returned"),
    "JOKER": AlertSpec(_F, "[003]", "A joker is on the felt",
                       "Discard and replace it; not a dealer error"),
    "FACE_UP_IN_DECK": AlertSpec(_F, "[003]", "A face-up card in the stub",
                                 "Discard it, replace it with the next card"),
    "CARD_EXPOSED_BY_PLAYER": AlertSpec(_I, "[003]", "A player turned up his own hole card",
                                        "The card plays"),
    "DECK_INCOMPLETE": AlertSpec(
        _W, "[003]", "The deck check found missing or extra cards",
        "Replace the deck; a missing card does not change a result"),
    "ACTION_OUT_OF_TURN": AlertSpec(
        _W, "[002 #35]", "An action out of turn",
        "Binding unless the action to that player changes"),
    "GREEN_BUTTON_DURING_HAND": AlertSpec(
        _W, "TDA 23 [002 #19]", "The shuffler's green button was pressed during a hand",
        "Ignored until the hand ends"),
    "CARD_WITHOUT_HAND": AlertSpec(
        _W, "TDA 23 [002 #19]", "A card landed on the felt while no hand is running",
        "Press the green button to start a hand"),
    "TIME_EXPIRED": AlertSpec(_I, "[002 #24]", "The clock ran out", "The hand is dead"),
    "SENSOR_OFFLINE": AlertSpec(_X, "-", "A sensor stopped answering",
                                "Check the device; the controller keeps the hand state"),
    "SENSOR_RECOVERED": AlertSpec(_I, "-", "A sensor answers again", "-"),
    "SENSOR_CONFLICT": AlertSpec(
        _X, "-", "RFID and camera disagree about a card", "Check the card and the sensors"),
    "HAND_NOT_RESUMED": AlertSpec(
        _I, "TDA 35 [000] [003]",
        "The controller restarted during a hand and cannot rebuild it from its journal",
        "The hand is void, every chip returned, the button stays: collect the cards and press "
        "the green button for the next hand"),
    "CARDS_MOVED_WHILE_DOWN": AlertSpec(
        _I, "-", "Cards moved on the felt while the controller was down",
        "Check the cards named; the hand goes on with the cards where they are now"),
}


class UnknownAlertCode(KeyError):
    """A code that is not in the catalogue."""


def spec_for(code: str) -> AlertSpec:
    try:
        return CATALOGUE[code]
    except KeyError:
        raise UnknownAlertCode(f"unknown alert code {code!r}") from None


@dataclass(frozen=True, slots=True)
class Alert:
    """One alert as the pure core raises it. ``t`` is monotonic seconds (the core's clock).

    ``ref``: the raiser's identity of the error the alert is about (alerts.md, "Lifecycle"):
    an update of the alert carries the same ``ref``; None for an alert with no identity. It is
    not part of the alert's equality; the publisher maps it to the journal's alert ``id``."""

    code: str
    hand: int | None
    t: float
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    message: str = ""
    remedy: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    ref: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        spec_for(self.code)

    @property
    def severity(self) -> Severity:
        return CATALOGUE[self.code].severity

    @property
    def rule(self) -> str:
        return CATALOGUE[self.code].rule

    def to_dict(self, wall_time: datetime | None = None) -> dict[str, Any]:
        """The alerts.md JSON shape. ``wall_time`` is stamped by whoever publishes."""
        spec = CATALOGUE[self.code]
        when = wall_time or datetime.now(UTC)
        return {
            "type": "alert",
            "code": self.code,
            "severity": spec.severity.value,
            "hand": self.hand,
            "seat": self.seat,
            "cards": [str(c) for c in self.cards],
            "rule": spec.rule,
            "message": self.message or spec.message,
            "remedy": self.remedy or spec.remedy,
            "time": when.isoformat(timespec="milliseconds"),
        }

    def to_json(self, wall_time: datetime | None = None) -> str:
        return json.dumps(self.to_dict(wall_time), separators=(", ", ": "))


HIDDEN_CARD = "??"


def mask_cards(payload: Mapping[str, Any], hidden: Iterable[str]) -> dict[str, Any]:
    """A copy of an alert object (or any object with ``cards``, ``message``, ``remedy``) with
    the cards of ``hidden`` (hole cards, ``As`` notation) replaced by ``??``, in ``cards`` and in
    the texts: what a channel or a viewer not allowed to see hole cards gets (alerts.md)."""
    secret = {str(c) for c in hidden}
    out = dict(payload)
    cards = payload.get("cards")
    if isinstance(cards, list):
        out["cards"] = [HIDDEN_CARD if c in secret else c for c in cards]
    if secret:
        pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, sorted(secret)))
                             + r")(?![A-Za-z0-9])")
        for key in ("message", "remedy"):
            text = payload.get(key)
            if isinstance(text, str):
                out[key] = pattern.sub(HIDDEN_CARD, text)
    return out
