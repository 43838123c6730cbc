"""What the dealer station adds to the controller: console commands and the state behind them.

Every command is an ordinary console request (``Controller.handle``): the dealer console's
socket accepts it as well as the station's page, the journal records it and the bus publishes
it (docs/running.md). All of them run on the controller's loop thread.

- ``{"cmd": "undo"}``: undo the hand's last decision while no card moved since (undo.py);
- ``{"cmd": "call_clock", "seat": 3}``: the clock on the player to act: a minute, then a
  ten-second count, then his hand is dead (rules.md §3 [002 #24]; the lengths are
  ``[station] clock_time`` and ``clock_count``); ``{"cmd": "cancel_clock"}`` takes it off;
- ``{"cmd": "set_blinds", "small_blind": 2, "big_blind": 4, "ante": 0}``: the next blind
  level, from the next hand on (rules.md §2 [002 #19]); also ``small_bet``, ``big_bet``;
- ``{"cmd": "seat_player", "seat": 4, "stack": 200, "name": "Ann"}``: ``sit`` with a name;
  ``{"cmd": "name_player", "seat": 4, "name": "Ann"}`` names (``""``: unnames) a player;
- ``{"cmd": "dismiss", "id": 7}``: take a notice (an alert that asks for nothing) off the
  station.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from table_controller.daemon.controller import Command, ConsoleError
from table_controller.engine import EngineError, GameConfig, OutOfTurnHeld
from table_controller.monitor.output import NOTHING, MonitorOutput
from table_controller.phh import Context
from table_controller.station.alerts import AlertBoard
from table_controller.station.undo import (
    UndoError,
    decision_indexes,
    describe,
    restore,
    without_last_decision,
)

if TYPE_CHECKING:
    from table_controller.daemon.controller import Controller

log = logging.getLogger(__name__)

NAME_LENGTH = 24
BLIND_KEYS = ("small_blind", "big_blind", "ante", "small_bet", "big_bet")
Picture = tuple[tuple[int, str, str, int], ...]


@dataclass(frozen=True, slots=True)
class CalledClock:
    """The clock called on ``seat`` in ``hand``: controller times (monotonic seconds) when it
    was called, when the final count starts and when the time is up."""

    seat: int
    hand: int
    started: float
    count_at: float
    deadline: float
    wall_ms: tuple[int, int, int]  # the same three as wall-clock milliseconds, for the page


def _int(r: Mapping[str, Any], name: str, *, required: bool = True) -> int | None:
    value = r.get(name)
    if value is None:
        if required:
            raise ConsoleError(f"{r.get('cmd')}: {name!r} is required")
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConsoleError(f"{r.get('cmd')}: {name!r} must be a whole number, got {value!r}")
    return value


def _name(r: Mapping[str, Any], *, required: bool) -> str | None:
    value = r.get("name")
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise ConsoleError(f"{r.get('cmd')}: 'name' must be a text, got {value!r}")
    value = value.strip()
    if len(value) > NAME_LENGTH or not value.isprintable():
        raise ConsoleError(f"{r.get('cmd')}: a name is at most {NAME_LENGTH} printable "
                           "characters")
    return value


class Desk:
    """The station's commands and what they keep: player names, the called clock, the next
    blind level, the marks that say whether a card moved since each decision."""

    def __init__(self, board: AlertBoard, *, clock_time: float, clock_count: float) -> None:
        self.board = board
        self.clock_time = clock_time
        self.clock_count = clock_count
        self.names: dict[int, str] = {}
        self.clock: CalledClock | None = None
        self.pending_blinds: GameConfig | None = None
        self._controller: Controller | None = None
        self._marks: list[tuple[int, Picture]] = []  # (decision index, picture at the time)
        self._marks_hand: int | None = None

    def attach(self, controller: Controller) -> None:
        self._controller = controller

    @property
    def controller(self) -> Controller:
        if self._controller is None:
            raise ConsoleError("the dealer station is not attached to a controller yet")
        return self._controller

    def commands(self) -> dict[str, tuple[Command, frozenset[str]]]:
        return {
            "undo": (self._undo, frozenset()),
            "call_clock": (self._call_clock, frozenset({"seat"})),
            "cancel_clock": (self._cancel_clock, frozenset()),
            "set_blinds": (self._set_blinds, frozenset(BLIND_KEYS)),
            "seat_player": (self._seat_player, frozenset({"seat", "stack", "name"})),
            "name_player": (self._name_player, frozenset({"seat", "name"})),
            "dismiss": (self._dismiss, frozenset({"id"})),
        }

    # ------------------------------------------------------------------ undo
    def picture(self) -> Picture:
        """Where every card lies, which way up, and in which order it arrived: a card that
        moves changes it."""
        cards = self.controller.monitor.fusion.picture
        return tuple(sorted((tc.pid, tc.zone, tc.face.value, tc.seq) for tc in cards))

    def sync_marks(self) -> None:
        """Remember the picture at each new decision of the hand in progress (called after
        every step and before an undo: no card moves between a decision and that step's end,
        the sensors being read before the console)."""
        hand = self.controller.monitor.hand
        if hand is None:
            self._marks, self._marks_hand = [], None
            return
        if self._marks_hand != hand.number:
            self._marks, self._marks_hand = [], hand.number
        decisions = decision_indexes(hand.log)
        present = set(decisions)
        self._marks = [m for m in self._marks if m[0] in present]
        last = self._marks[-1][0] if self._marks else -1
        new = [i for i in decisions if i > last]
        if new:
            now = self.picture()
            self._marks.extend((i, now) for i in new)

    def undo_refusal(self) -> str | None:
        """Why the last decision cannot be undone now (None: it can)."""
        monitor = self.controller.monitor
        hand = monitor.hand
        if hand is None:
            return "no hand in progress"
        if monitor.halted is not None:
            return f"the hand is halted by {monitor.halted}; carry out its remedy first"
        self.sync_marks()
        if not self._marks:
            return f"hand {hand.number}: no action to undo"
        index, then = self._marks[-1]
        if self.picture() != then:
            return f"a card moved since {describe(hand.log[index])}"
        return None

    def last_decision(self) -> str | None:
        hand = self.controller.monitor.hand
        if hand is None or not self._marks:
            return None
        return describe(hand.log[self._marks[-1][0]])

    def _undo(self, _r: Mapping[str, Any], t: float) -> MonitorOutput:
        why = self.undo_refusal()
        if why is not None:
            raise ConsoleError(f"undo: {why}")
        monitor = self.controller.monitor
        hand = monitor.hand
        assert hand is not None
        record = hand.log[self._marks[-1][0]]
        try:
            restore(hand, without_last_decision(hand))
        except UndoError as exc:
            raise ConsoleError(str(exc)) from None
        self._marks.pop()
        out = NOTHING
        if isinstance(record, OutOfTurnHeld):  # its warning goes with it
            # the monitor resolves the latest open alert of a code: is it this seat's?
            latest = next((a for a in reversed(monitor.open_alerts)
                           if a.code == "ACTION_OUT_OF_TURN"), None)
            if latest is not None and latest.seat == record.action.seat:
                out = monitor.resolve("ACTION_OUT_OF_TURN", t)
        log.info("undo: %s", describe(record))
        return out

    # ------------------------------------------------------------------ the clock
    def _call_clock(self, r: Mapping[str, Any], t: float) -> MonitorOutput:
        seat = _int(r, "seat")
        monitor = self.controller.monitor
        hand = monitor.hand
        if hand is None:
            raise ConsoleError("call_clock: no hand in progress")
        if monitor.halted is not None:
            raise ConsoleError(f"call_clock: the hand is halted by {monitor.halted}")
        if hand.to_act is None or seat != hand.to_act:
            raise ConsoleError(f"call_clock: the clock is called on the player to act "
                               f"(seat {hand.to_act}), not seat {seat} (rules.md §3 "
                               "[002 #24])")
        if self.clock is not None:
            raise ConsoleError(f"call_clock: the clock already runs on seat {self.clock.seat}")
        count_at, deadline = t + self.clock_time, t + self.clock_time + self.clock_count
        wall = self.controller.wall
        self.clock = CalledClock(
            seat=seat, hand=hand.number, started=t, count_at=count_at, deadline=deadline,
            wall_ms=(round(wall(t).timestamp() * 1000), round(wall(count_at).timestamp() * 1000),
                     round(wall(deadline).timestamp() * 1000)))
        return NOTHING

    def _cancel_clock(self, _r: Mapping[str, Any], _t: float) -> MonitorOutput:
        if self.clock is None:
            raise ConsoleError("cancel_clock: no clock is running")
        self.clock = None
        return NOTHING

    def clock_step(self) -> None:
        """The clock ends when its player acts (or the hand ends, or stops); at the deadline
        his hand is dead: a ``time_expired`` action through the console path."""
        clock = self.clock
        if clock is None:
            return
        controller = self.controller
        hand = controller.monitor.hand
        if hand is None or hand.number != clock.hand or hand.to_act != clock.seat \
                or controller.monitor.halted is not None:
            self.clock = None
            return
        if controller.clock() < clock.deadline:
            return
        self.clock = None
        answer = controller.handle({"cmd": "action", "seat": clock.seat,
                                    "kind": "time_expired"})
        if not answer.get("ok"):
            log.warning("the clock on seat %d ran out but: %s", clock.seat, answer.get("error"))

    # ------------------------------------------------------------------ blinds
    def _set_blinds(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        given: dict[str, Any] = {k: _int(r, k, required=False) for k in BLIND_KEYS if k in r}
        if not given:
            raise ConsoleError(f"set_blinds: give at least one of {', '.join(BLIND_KEYS)}")
        table = self.controller.table
        base = self.pending_blinds or table.config
        try:
            level = dataclasses.replace(base, **given)
        except (EngineError, TypeError) as exc:
            raise ConsoleError(f"set_blinds: {exc}") from None
        self.pending_blinds = level
        self.blinds_step()
        return NOTHING

    def blinds_step(self) -> None:
        """A new level takes effect from the next hand (rules.md §2 [002 #19]): between hands
        it goes to the table at once, during a hand when it ends."""
        if self.pending_blinds is not None and self.controller.monitor.hand is None:
            self.controller.table.config = self.pending_blinds
            self.pending_blinds = None

    # ------------------------------------------------------------------ names
    def _seat_player(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        seat, stack = _int(r, "seat"), _int(r, "stack")
        name = _name(r, required=False)
        assert seat is not None and stack is not None
        self.controller.table.sit(seat, stack)
        self._set_name(seat, name)
        return NOTHING

    def _name_player(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        seat = _int(r, "seat")
        assert seat is not None
        if seat not in self.controller.table.stacks:
            raise ConsoleError(f"name_player: seat {seat} is empty")
        self._set_name(seat, _name(r, required=True))
        return NOTHING

    def _set_name(self, seat: int, name: str | None) -> None:
        if name:
            self.names[seat] = name
        else:
            self.names.pop(seat, None)
        self._names_to_histories()

    def names_step(self) -> None:
        """A player who left takes his name with him."""
        seated = self.controller.table.stacks
        gone = [s for s in self.names if s not in seated]
        for seat in gone:
            del self.names[seat]
        if gone:
            self._names_to_histories()

    def _names_to_histories(self) -> None:
        """The hand histories name the players (PHH ``players``)."""
        controller = self.controller
        context = controller.phh_context or Context()
        controller.phh_context = dataclasses.replace(
            context, players=dict(self.names) if self.names else None)

    # ------------------------------------------------------------------ notices
    def _dismiss(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        alert_id = r.get("id")
        if isinstance(alert_id, bool) or not isinstance(alert_id, int | str):
            raise ConsoleError(f"dismiss: 'id' must be an alert id, got {alert_id!r}")
        if not self.board.dismiss(alert_id):
            raise ConsoleError(f"dismiss: no notice {alert_id!r} (an alert the monitor holds "
                               "open ends when its remedy is verified)")
        return NOTHING
