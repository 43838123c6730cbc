"""The dealing monitor's public records: its configuration, console actions, hand-end records.

Pure data, no behaviour beyond validation: a bad value raises :class:`MonitorError` naming the
field, so a broken config or a malformed console record never reaches the state machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from table_controller.engine import Hand

RulesProfile = Literal["tda", "house"]
SENSOR_NAMES: frozenset[str] = frozenset({"rfid", "camera"})

BETTING_KINDS: frozenset[str] = frozenset({"fold", "check", "call", "bet", "raise", "allin"})
"""Console kinds that are betting actions (scenario.md spelling; ``all_in`` is accepted too)."""

OTHER_KINDS: frozenset[str] = frozenset({"time_expired", "button"})
"""``time_expired``: the clock called on ``seat`` ran out (rules.md §3, [002 #24]).
``button``: the dealer console (or camera) reports the dealer button on ``seat``."""


class MonitorError(ValueError):
    """A request the monitor cannot honour (bad config, malformed console record, resolve of an
    alert that is not open). The monitor's state is unchanged when it is raised."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MonitorConfig:
    """How the monitor judges a table.

    ``rules``: ``"tda"`` (default) or ``"house"``, the two readings of rules.md where the sources
    differ (only the four-card-flop remedy differs for the monitor, rules.md §5).
    ``sensors``: which sensors the table has, ``{"rfid"}``, ``{"camera"}`` or both.
    ``settle_time``: seconds a sensor may disagree with itself (a card lifted and put back, a
    missed read) or with the other sensor before it counts (see docs/monitor.md, fusion).
    ``sensor_lag``: seconds the RFID reader and the camera may report the same card at different
    times (the reader reports a removal only after its hold time, the camera a card only after
    its confirmation frames); a disagreement between them counts after ``settle_time +
    sensor_lag`` (:func:`table_controller.monitor.fusion.sensor_lag` derives it).
    ``stub_visible``: an antenna or the camera covers the shuffler tray, so the stub can be
    checked at each green button (DECK_INCOMPLETE, [003]).
    ``peek_time``: seconds a player may hold his hole cards up off the felt to look at them
    (out of the antenna's field, while the camera still has them: in view, or under his hand)
    before the reader's missing them counts as a disagreement with the camera; it comes on top
    of ``settle_time + sensor_lag`` for a card on a seat that the reader lost and the camera
    still has (docs/monitor.md, fusion).
    """

    rules: RulesProfile = "tda"
    sensors: frozenset[str] = SENSOR_NAMES
    settle_time: float = 0.3
    stub_visible: bool = False
    sensor_lag: float = 0.0
    peek_time: float = 4.0

    def __post_init__(self) -> None:
        if self.rules not in ("tda", "house"):
            raise MonitorError(f"MonitorConfig.rules: {self.rules!r} is not 'tda' or 'house'")
        sensors = frozenset(self.sensors)
        if not sensors or not sensors <= SENSOR_NAMES:
            raise MonitorError(
                f"MonitorConfig.sensors: {sorted(sensors)!r} must be a non-empty subset of "
                "{'rfid', 'camera'}")
        object.__setattr__(self, "sensors", sensors)
        if not isinstance(self.settle_time, (int, float)) or not 0 <= self.settle_time <= 60:
            raise MonitorError(
                f"MonitorConfig.settle_time: {self.settle_time!r} must be 0..60 seconds")
        if (isinstance(self.sensor_lag, bool) or not isinstance(self.sensor_lag, (int, float))
                or not 0 <= self.sensor_lag <= 60):
            raise MonitorError(
                f"MonitorConfig.sensor_lag: {self.sensor_lag!r} must be 0..60 seconds")
        if (isinstance(self.peek_time, bool) or not isinstance(self.peek_time, (int, float))
                or not 0 <= self.peek_time <= 60):
            raise MonitorError(
                f"MonitorConfig.peek_time: {self.peek_time!r} must be 0..60 seconds")


@dataclass(frozen=True, slots=True)
class ConsoleAction:
    """One record from the dealer console.

    ``kind``: a betting action (``fold check call bet raise allin``), ``time_expired`` or
    ``button``. ``amount`` is the total the player has bet in this round after a ``bet`` or
    ``raise`` ("raise to", as in scenario.md); None otherwise. ``t`` is monotonic seconds.
    """

    seat: int
    kind: str
    amount: int | None = None
    t: float = 0.0

    def __post_init__(self) -> None:
        kind = "allin" if self.kind == "all_in" else self.kind
        object.__setattr__(self, "kind", kind)
        if kind not in BETTING_KINDS | OTHER_KINDS:
            raise MonitorError(
                f"ConsoleAction.kind: {self.kind!r} is not one of "
                f"{sorted(BETTING_KINDS | OTHER_KINDS)}")
        seat = self.seat
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 10:
            raise MonitorError(f"ConsoleAction.seat: {self.seat!r} is not a seat 1..10")
        if kind in ("bet", "raise"):
            amount = self.amount
            if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
                raise MonitorError(
                    f"ConsoleAction: {kind} needs a positive amount, got {self.amount!r}")
        elif self.amount is not None:
            raise MonitorError(f"ConsoleAction: {kind} takes no amount, got {self.amount!r}")


@dataclass(frozen=True, slots=True)
class HandEnd:
    """A hand that ended: played out, or void (misdeal, fouled deck).

    ``number``: the hand number (every green button starts a new number, scenario.md).
    ``voided``: every chip was returned; ``cause``: the alert code that voided it, if any.
    ``stacks``: seat -> chips after the hand. ``result``: the engine's HandResult. ``hand``:
    the engine's hand itself (its log is what a hand history is exported from).
    """

    number: int
    voided: bool
    cause: str | None
    stacks: dict[int, int]
    t: float
    result: Any = field(default=None, compare=False)
    hand: Hand | None = field(default=None, compare=False, repr=False)


ResolvedBy = Literal["verified", "floor", "hand_end"]
"""How an open alert ended (alerts.md, "Lifecycle"): ``verified``, the floor resolved it and the
sensors confirmed the remedy; ``floor``, a person resolved it and there was nothing for the
sensors to check; ``hand_end``, its hand ended (or, between hands, the next one began) with it
open."""


@dataclass(frozen=True, slots=True)
class AlertResolved:
    """The end of the alert whose ``ref`` (its identity, ``Alert.ref``) and ``code`` are given,
    in hand ``hand`` (None between hands), at monotonic time ``t``."""

    ref: int
    code: str
    hand: int | None
    by: ResolvedBy
    t: float
