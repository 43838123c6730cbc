"""Rebuild the hand a killed controller left live, by replaying what the journal says it took in.

The pure monitor and its engine are rebuilt from the table as it was when the hand started
(its journaled stacks and button) by feeding them, in the order the controller took them
(:meth:`~table_controller.daemon.journal.Journal.hand_inputs`), the hand's accepted inputs with
their journaled times: the green button that started it, every observation the monitor took,
every console request it carried out (a request is preceded by a tick at its time, as the
loop's tick preceded it; where the hand went on in a later run, the camera's tracks are
forgotten there, as that run's start forgot them). Console requests that drive devices (the
simulator's dealer) or only read are not replayed. The one choice the monitor makes at random,
the burn card of a four-card flop (TDA 39-A), is read back from the journaled FOUR_CARD_FLOP
alert (:class:`JournaledBurns`).

The journal is a prefix of what the killed run did (each record is committed before the next
one is made), so what the replay raises must begin with what the journal holds: the alerts are
matched in order by code; a replay that raises a different alert, or fewer than the journal
holds, is a journal the monitor does not agree with (:class:`ReplayError`: the hand is voided).
What the replay raises beyond the journal was never journaled nor published (the process died
first): the controller publishes it once the new run has started (:attr:`Rebuilt.tail`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from table_controller.daemon.journal import (
    ConsoleRecord,
    HandRecord,
    Journal,
    JournalError,
    ObservationRecord,
)
from table_controller.engine import EngineError
from table_controller.monitor import DealingMonitor, MonitorError, secure_burn_choice
from table_controller.monitor.output import NOTHING, MonitorOutput
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import Card, CardError, parse_card
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardEvent,
    CardObservation,
    Face,
    Observation,
    SensorStatus,
    Source,
)

NOT_REPLAYED = frozenset({"status", "snapshot", "health", "messages", "acknowledge"})
"""Console requests that change nothing the monitor holds (``acknowledge`` silences the buzzer
and is the floor's business; the delivery keeps its acknowledgements in the journal)."""
CONTROLLER_CODES = frozenset({"HAND_NOT_RESUMED", "CARDS_MOVED_WHILE_DOWN"})
"""Alerts the controller raises itself around a restart: no replay makes them again."""
_BURN = re.compile(r"\b([2-9TJQKA][shdc]) is the burn card")


class ReplayError(Exception):
    """The hand cannot be rebuilt from the journal; the text says why."""


class JournaledBurns:
    """The four-card flop's burn card (TDA 39-A [002 #33]): while a replay runs, the one the
    killed run chose (named in its journaled FOUR_CARD_FLOP alert); otherwise a secure random
    pick (:func:`~table_controller.monitor.secure_burn_choice`)."""

    def __init__(self) -> None:
        self.queue: list[Card] = []

    def __call__(self, cards: Sequence[Card]) -> Card:
        if self.queue:
            chosen = self.queue.pop(0)
            if chosen in cards:
                return chosen
            raise MonitorError(f"the journaled burn card {chosen} is not one of the four")
        return secure_burn_choice(cards)


@dataclass(slots=True)
class Rebuilt:
    """A live hand rebuilt. ``ids``: ``Alert.ref`` -> journaled id of the alerts the killed
    run published; ``published``: their journaled form, by id; ``tail``: what the replay did
    that the journal lacks (published once the run has started); ``last_t``: the latest time
    the journal holds for the hand (the new run's clock goes on from there)."""

    hand: HandRecord
    ids: dict[int, int] = field(default_factory=dict)
    published: dict[int, dict[str, Any]] = field(default_factory=dict)
    tail: MonitorOutput = NOTHING
    last_t: float = 0.0


def observation(rec: ObservationRecord) -> Observation:
    """The observation a journal row records."""
    f = rec.fields
    try:
        if rec.kind == "button":
            return ButtonPressed(rec.t)
        if rec.kind == "sensor":
            return SensorStatus(Source(f["source"]), bool(f.get("online")), rec.t,
                                str(f.get("detail", "")))
        if rec.kind == "card":
            card = f.get("card")
            return CardObservation(
                event=CardEvent(f["event"]), zone=str(f["zone"]), t=rec.t,
                source=Source(f["source"]), key=str(f["key"]),
                card=None if card is None else parse_card(str(card)),
                face=Face(f.get("face", "unknown")), deck=f.get("deck"),
                foreign=bool(f.get("foreign")), joker=bool(f.get("joker")))
    except (KeyError, ValueError, CardError) as exc:
        raise ReplayError(f"observation {rec.id} of the journal cannot be read: {exc}") from None
    raise ReplayError(f"observation {rec.id} of the journal is of kind {rec.kind!r}")


def replay_hand(monitor: DealingMonitor, hand: HandRecord, journal: Journal, *,
                carry_out: Callable[[Mapping[str, Any], float], MonitorOutput],
                skip: frozenset[str], burns: JournaledBurns) -> Rebuilt:
    """Replay ``hand`` into ``monitor`` (its table as the hand found it, no hand running).
    ``carry_out``: runs one console request as the controller does (without journal or bus);
    ``skip``: commands not replayed besides :data:`NOT_REPLAYED`."""
    try:
        inputs = journal.hand_inputs(hand.number)
        alerts = [a for a in journal.hand_alerts(hand.number)
                  if a.get("code") not in CONTROLLER_CODES]
    except JournalError as exc:
        raise ReplayError(str(exc)) from None
    if not inputs or not (isinstance(inputs[0], ObservationRecord)
                          and inputs[0].kind == "button"):
        # the hand's start is journaled before the press that made it (the process may have
        # died in between): the start's time is the press's
        if hand.start_t is None:
            raise ReplayError(f"hand {hand.number}: the journal holds no start for it")
        inputs.insert(0, ObservationRecord(id=0, run=hand.run, hand=hand.number,
                                           t=hand.start_t, wall=hand.start_wall or "",
                                           kind="button", fields={}, accepted=True,
                                           error=None))
    burns.queue = [c for a in alerts if a.get("code") == "FOUR_CARD_FLOP"
                   for c in _burn_named(a)]
    out = NOTHING
    last_t = 0.0
    checked = False
    run = inputs[0].run
    for rec in inputs:
        last_t = max(last_t, rec.t)
        if rec.run != run:  # the hand went on in a later run, as its restart left it
            monitor.fusion.forget_camera()
            run = rec.run
        try:
            if isinstance(rec, ObservationRecord):
                out += monitor.observe(observation(rec))
            else:
                request = json.loads(rec.request)
                if not isinstance(request, dict):
                    raise ReplayError(f"console request {rec.id} is not an object")
                if request.get("cmd") in NOT_REPLAYED | skip:
                    continue
                out += monitor.tick(rec.t)
                out += carry_out(request, rec.t)
        except ReplayError:
            raise
        except (MonitorError, EngineError, ValueError) as exc:
            raise ReplayError(f"hand {hand.number}: the monitor refuses the journal's "
                              f"{_what(rec)}: {exc}") from None
        except Exception as exc:  # a fault in the core must not stop the table starting
            raise ReplayError(f"hand {hand.number}: internal error replaying the journal's "
                              f"{_what(rec)}: {type(exc).__name__}: {exc}") from None
        if out.hand_started is not None and not checked:
            _same_start(out, hand)
            checked = True
        if out.hand_ended is not None:
            break  # it ended, and the killed run died before journaling the end
    # A tick of the loop may have raised an alert after the last input: the replay ticks to
    # the latest time the journal knows of the hand, so it raises it too.
    if out.hand_started is None:
        raise ReplayError(f"hand {hand.number}: the green button started no hand")
    if out.hand_ended is None:
        last_t = max([last_t, *journal.alert_times(hand.number)])
        out += monitor.tick(last_t)
    burns.queue = []
    return _match(hand, journal, out, alerts, last_t)


def _what(rec: ObservationRecord | ConsoleRecord) -> str:
    if isinstance(rec, ConsoleRecord):
        return f"console request {rec.request}"
    return f"observation {rec.id} ({rec.kind} {rec.fields})"


def _burn_named(alert: Mapping[str, Any]) -> list[Card]:
    found = _BURN.search(str(alert.get("remedy", "")))
    return [] if found is None else [parse_card(found.group(1))]


def _same_start(out: MonitorOutput, hand: HandRecord) -> None:
    started = out.hand_started
    assert started is not None
    if started.number != hand.number:
        raise ReplayError(f"the replay started hand {started.number}, the journal hand "
                          f"{hand.number}")
    if hand.button is not None and started.button != hand.button:
        raise ReplayError(f"hand {hand.number}: the replay put the button on seat "
                          f"{started.button}, the journal on seat {hand.button}")
    if dict(started.starting_stacks) != hand.stacks_before:
        raise ReplayError(f"hand {hand.number}: the replay dealt in {started.starting_stacks}, "
                          f"the journal {hand.stacks_before}")


def _match(hand: HandRecord, journal: Journal, out: MonitorOutput,
           journaled: list[dict[str, Any]], last_t: float) -> Rebuilt:
    """Pair the replay's alerts with the journaled ones (in order, by code)."""
    raised = list(out.alerts)
    if len(journaled) > len(raised):
        extra = journaled[len(raised)]
        raise ReplayError(f"hand {hand.number}: the journal holds alert {extra.get('id')} "
                          f"({extra.get('code')}) that the replay does not raise")
    ids: dict[int, int] = {}
    published: dict[int, dict[str, Any]] = {}
    for alert, payload in zip(raised, journaled, strict=False):
        if alert.code != payload.get("code"):
            raise ReplayError(f"hand {hand.number}: the journal's alert {payload.get('id')} "
                              f"is {payload.get('code')}, the replay raises {alert.code}")
        if alert.ref is not None:
            ids[alert.ref] = int(payload["id"])
        published[int(payload["id"])] = payload
    new: list[Alert] = raised[len(journaled):]
    ended = journal.ended_alerts(list(published))
    unended = tuple(r for r in out.resolved
                    if (r.ref in ids and ids[r.ref] not in ended)
                    or (r.ref not in ids and any(a.ref == r.ref for a in new)))
    tail = MonitorOutput(alerts=tuple(new), resolved=unended, hand_ended=out.hand_ended)
    return Rebuilt(hand=hand, ids=ids, published=published, tail=tail, last_t=last_t)
