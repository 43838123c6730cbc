"""The controller's loop: sensors -> dealing monitor -> journal, event bus, lamps and buzzer.

::

    sensors (RFID reader, shuffler button, camera tracker; or the simulator's)
        | poll(now) -> observations, in time order
        v
    DealingMonitor (pure: rules engine inside)  <-- console requests (REP socket)
        | MonitorOutput per call: alerts, updates, resolutions, hand started, hand ended
        +--> Journal (SQLite, every observation, request, alert, hand + PHH)
        +--> EventBus (public channel without hole cards, floor channel with them)
        +--> AlertOutputs (red and amber lamps, buzzer)
        +--> on_output (whoever drives the controller: the scenario runner, continuous play,
                        the dealer station)

Time is ``clock()`` (monotonic seconds); wall time is derived from it for what is published.
Fault isolation: a sensor that raises is logged and polled again next time; an observation the
monitor refuses is journaled with the reason and skipped; the journal and the bus queue and
retry what they could not write; a console request that fails is answered with the reason and
the hand state is unchanged (the monitor's guarantee). Nothing of that stops the table.

The same class runs a table (``run --config``), the simulated table (``run --sim``), every
scenario (``sim``) and continuous play (``demo``); journal, bus, console and lamps are each
optional.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from firmware_bridge.outputs import AlertOutputs
from table_controller.daemon import catch_up, floor_feed, health, snapshot
from table_controller.daemon.acknowledgement import Unacknowledged
from table_controller.daemon.alert_delivery import AlertDelivery
from table_controller.daemon.bus import ConsoleServer, EventBus
from table_controller.daemon.console_input import (
    RequestError,
    RequestJournal,
    betting_word,
    check_fields,
)
from table_controller.daemon.journal import Journal
from table_controller.daemon.lag import said_through
from table_controller.daemon.published import PublishedAlerts
from table_controller.daemon.reconcile import Reconcile, ShiftedSensor
from table_controller.daemon.redact import redact
from table_controller.daemon.replay import Rebuilt
from table_controller.daemon.sequence import Sequences
from table_controller.engine import EngineError, Hand
from table_controller.monitor import ConsoleAction, DealingMonitor, HandEnd, MonitorError
from table_controller.monitor.output import NOTHING, MonitorOutput
from table_controller.monitor.records import AlertResolved
from table_controller.phh import Context, PhhError, dumps, export_hand
from table_controller.vocabulary.alerts import CATALOGUE, Alert, Severity
from table_controller.vocabulary.observations import CardObservation, Observation, SensorStatus

log = logging.getLogger(__name__)

LOOP_PERIOD = 0.02  # seconds between two looks at the sensors when nothing else happens
SENSOR_WAIT = 5.0
"""How far behind the loop's clock a sensor that says how far it has reported
(``reported_through``) may hold the monitor's time back (docs/monitor.md, "Fusion and settle
time"): longer than a loaded machine keeps a camera's analysis behind, short enough that a
sensor that stops saying so does not hold the table up for long."""


class Sensor(Protocol):
    """One sensor path: the RFID reader, the shuffler button, the camera (or simulated ones).

    A sensor whose observations may come out late (the camera, analysing frames on its own
    thread) also has ``reported_through() -> float | None``: the time up to which it has
    delivered everything it saw (the last frame it analysed), asked just before ``poll``;
    None, or no such method: up to date."""

    name: str

    def poll(self, now: float) -> list[Observation]:
        """The observations delivered since the last call (never blocks for long)."""

    def close(self) -> None: ...


def reported_through(sensor: Sensor, now: float) -> float:
    """How far ``sensor`` has reported (``now`` unless it says otherwise), never further
    back than :data:`SENSOR_WAIT`."""
    through = said_through(sensor)
    if through is None:
        return now
    return min(now, max(through, now - SENSOR_WAIT))


class ConsoleError(ValueError):
    """A console request the controller cannot carry out; the text says why."""


Command = Callable[[Mapping[str, Any], float], MonitorOutput]
"""A console command: the request and its monotonic time in, what the monitor did out."""


def _field(request: Mapping[str, Any], name: str, kind: type, *, required: bool = True) -> Any:
    value = request.get(name)
    if value is None:
        if required:
            raise ConsoleError(f"{request.get('cmd')}: {name!r} is required")
        return None
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise ConsoleError(f"{request.get('cmd')}: {name!r} must be {kind.__name__}, "
                           f"got {value!r}")
    return value


class Controller:
    """One table's controller: polls ``sensors``, feeds the ``monitor``, answers console
    requests, and sends what the monitor did to the journal, the bus and the lamps (each
    optional) and to ``on_output``. ``on_fault`` hears of every fault the controller carried
    on past (a sensor that raised, an observation the monitor refused, a failed tick), with a
    text naming it; a table logs them, the scenario runner stops the scenario there."""

    def __init__(self, *, monitor: DealingMonitor, sensors: Sequence[Sensor],
                 journal: Journal | None = None, bus: EventBus | None = None,
                 console: ConsoleServer | None = None, outputs: AlertOutputs | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
                 phh_context: Context | None = None,
                 commands: Mapping[str, tuple[Command, frozenset[str]]] | None = None,
                 also_close: Sequence[Callable[[], None]] = (),
                 extra_status: Callable[[], Mapping[str, Any]] | None = None,
                 on_output: Callable[[MonitorOutput], None] | None = None,
                 on_fault: Callable[[str], None] | None = None,
                 delivery: AlertDelivery | None = None) -> None:
        self.monitor = monitor
        self.table = monitor.table
        self.sensors = list(sensors)
        self.journal = journal
        self.bus = bus
        self.console = console
        self.outputs = outputs
        self.clock = clock
        self.phh_context = phh_context
        self.also_close = list(also_close)  # e.g. the GPIO backend, the deck registry
        self.extra_status = extra_status  # e.g. whether the simulated dealer is busy
        self.on_output = on_output
        self.on_fault = on_fault
        # alert ids (alerts.md "One error, one alert": the journal's, increasing across runs)
        # and their acknowledged delivery to the floor; without a floor channel, ids only
        self.delivery = delivery if delivery is not None else AlertDelivery(
            None, journal=journal, sequences=Sequences())
        # a floor's acknowledgement over the alert channel
        self.delivery.on_acknowledge = self.handle
        self.unacknowledged = Unacknowledged()
        self._extra: dict[str, Any] = {}  # fields a command adds to its answer
        self._wall_clock = wall_clock
        self._lamps: set[str] = set()
        # alerts.md "Lifecycle": Alert.ref -> the id it was published under, while open
        self._alert_ids: dict[int, int] = {}
        self._sensor_failing: set[str] = set()
        self._held: list[Observation] = []  # after a lagging sensor's time (:meth:`step`)
        self._upto = float("-inf")  # the monitor's time so far: it never goes back
        self._tick_failing = False
        # Extensions on the loop thread (the dealer station, docs/station.md): ``on_step`` at
        # the end of every step, ``on_request`` after each request carried out. One that
        # raises is logged, never fatal.
        self.on_step: Callable[[], None] | None = None
        self.on_request: Callable[[Mapping[str, Any], float], None] | None = None
        self._hook_failing = False
        self.published = PublishedAlerts()  # what snapshot and health say of the alerts
        # A hand resumed from an earlier run (docs/running.md "Restart after a crash"): its
        # number -> the run it started in, whose record its end completes; and the comparison
        # of the sensors' first picture with the rebuilt hand, until it is done.
        self.resumed_runs: dict[int, int] = {}
        self.reconcile: Reconcile | None = None
        self.requests = RequestJournal()  # console requests into the journal, bounded
        self.started = clock()
        self._commands: dict[str, tuple[Command, frozenset[str]]] = {
            "action": (self._action, frozenset({"seat", "kind", "amount"})),
            "resolve": (self._resolve, frozenset({"code"})),
            "acknowledge": (self._acknowledge, frozenset({"id", "by"})),
            "showdown": (self._showdown, frozenset()),
            "void": (self._void, frozenset({"cause"})),
            "status": (lambda _r, _t: NOTHING, frozenset()),
            "snapshot": (lambda _r, _t: NOTHING, frozenset()),
            "health": (lambda _r, _t: NOTHING, frozenset()),
            "messages": (self._messages, frozenset({"channel", "after", "limit"})),
            "sit": (self._sit, frozenset({"seat", "stack"})),
            "leave": (self._leave, frozenset({"seat"})),
            "sit_out": (self._sit_out, frozenset({"seat"})),
            "sit_in": (self._sit_in, frozenset({"seat"})),
            "add_chips": (self._add_chips, frozenset({"seat", "chips"})),
            "set_button": (self._set_button, frozenset({"seat"})),
        }
        self._commands.update(commands or {})

    # ------------------------------------------------------------------ time
    def wall(self, t: float) -> datetime:
        """The wall time of monotonic ``t``, reckoned back from now: a Pi without a clock
        battery sets its clock from the network after booting, and what is published from then
        on carries the corrected time."""
        return self._wall_clock() - timedelta(seconds=self.clock() - t)

    def _stamp(self, t: float) -> str:
        return self.wall(t).isoformat(timespec="milliseconds")

    # ------------------------------------------------------------------ the loop
    def run(self, stop: threading.Event, *, period: float = LOOP_PERIOD,
            heartbeat: Callable[[float], object] | None = None) -> None:
        """Loop until ``stop`` is set (the run command sets it on SIGINT/SIGTERM);
        ``heartbeat(now)`` after every loop (the systemd watchdog)."""
        log.info("controller running (%d sensor(s))", len(self.sensors))
        while not stop.is_set():
            self.step(wait=period)
            if heartbeat is not None:
                heartbeat(time.monotonic())
            if self.console is None:
                stop.wait(period)

    def step(self, *, wait: float = 0.0) -> None:
        """One look at everything: sensors, the monitor's clock, console requests (waiting up
        to ``wait`` seconds for one), lamps, and what the journal and bus still owe."""
        now = self.clock()
        # The monitor's time is how far every sensor has reported: observations after it wait
        # for a sensor that lags (a camera's analysis on a loaded machine), so the monitor
        # judges the two sensors on their own times, never a late one against the other's.
        observations, self._held = self._held, []
        upto = now
        for sensor in self.sensors:
            try:
                upto = min(upto, reported_through(sensor, now))
                observations.extend(sensor.poll(now))
            except Exception as exc:
                if sensor.name not in self._sensor_failing:
                    log.exception("sensor %s failed; polling it again", sensor.name)
                self._sensor_failing.add(sensor.name)
                self._fault(f"sensor {sensor.name} failed: {type(exc).__name__}: {exc}")
            else:
                self._sensor_failing.discard(sensor.name)
        # a sensor back from offline (None: up to date) may say an older time than it did:
        # the monitor's time stays where it was
        upto = self._upto = max(upto, self._upto)
        for obs in self.monitor.in_procedure_order(observations):
            if obs.t > upto:
                self._held.append(obs)
            else:
                self.observe(obs)
        if self.reconcile is not None:
            self._reconcile(now)
        self._call(lambda: self.monitor.tick(upto), upto)
        if self.console is not None:
            self.console.serve(self.handle, timeout=wait, refused=self._request_refused)
        if self.on_step is not None:
            self._step_hook(self.on_step)
        if self.outputs is not None:
            self.outputs.update(self.clock())
        if self.journal is not None and self.journal.pending:
            self.journal.flush()
        if self.bus is not None:
            self.bus.retry()
        now = self.clock()
        self.delivery.poll(now, self._stamp(now))

    # ------------------------------------------------------------------ resume
    def shift_clock(self, offset: float) -> None:
        """Run ``offset`` seconds ahead of the devices' clock, sensors' times included: a
        hand resumed from a killed run goes on at times after the journal's (the monotonic
        clock of the killed run does not carry over a reboot, nor a simulated one)."""
        if offset <= 0:
            return
        base = self.clock
        self.clock = lambda: base() + offset
        self.sensors = [ShiftedSensor(s, offset) for s in self.sensors]
        self.started += offset

    def adopt(self, rebuilt: Rebuilt) -> None:
        """Take on the hand :mod:`.replay` rebuilt into the monitor (after this run's start in
        the journal): the open alerts keep the ids they were published under (not raised again:
        lamps lit again, the buzzer waits for the dealer), what the killed run did not journal
        goes out now, the hand's end will complete its record, and the sensors' first picture
        is compared with the rebuilt one (:class:`.reconcile.Reconcile`)."""
        hand = rebuilt.hand
        self.resumed_runs[hand.number] = hand.run
        self._alert_ids.update(rebuilt.ids)
        for alert in self.monitor.open_alerts:
            ident = rebuilt.ids.get(alert.ref) if alert.ref is not None else None
            payload = rebuilt.published.get(ident) if ident is not None else None
            if ident is None or payload is None:
                continue
            self.published.add(payload)
            self.unacknowledged.raised(ident, alert.code, alert.severity)
            if self.outputs is not None:
                self.outputs.show_alert(alert, self.clock())
                self._lamps.add(alert.code)
        self._publish_output(rebuilt.tail, rebuilt.last_t)
        if self.monitor.hand is not None:
            self.reconcile = Reconcile.of(self.monitor)

    def raise_alert(self, alert: Alert) -> None:
        """Publish an alert the controller itself raises (a restart's, :mod:`.replay`)."""
        self._alert(alert)

    def _reconcile(self, now: float) -> None:
        assert self.reconcile is not None
        try:
            found = self.reconcile.check(self.sensors, self.monitor, now)
        except Exception as exc:  # a comparison that fails must not stop the table
            log.exception("comparing the sensors' picture with the resumed hand failed")
            self._fault(f"resume: comparing the sensors' picture failed: {exc}")
            self.reconcile = None
            return
        if found.done:
            self.reconcile = None
        for obs in found.removals:
            self.observe(obs)
        if found.alert is not None:
            self._alert(found.alert)
            self._sync_lamps(now)

    def _step_hook(self, hook: Callable[[], None]) -> None:
        try:
            hook()
        except Exception:
            if not self._hook_failing:  # once per outage: hooks run 50 times a second
                log.exception("on_step hook failed; calling it again every loop")
            self._hook_failing = True
        else:
            self._hook_failing = False

    def observe(self, obs: Observation) -> None:
        """One observation: journaled (with the reason if the monitor refuses it), then what
        the monitor did goes out."""
        try:
            out = self.monitor.observe(obs)
        except MonitorError as exc:
            self._refused(obs, str(exc))
            log.warning("observation refused: %s", exc)
            return
        except Exception as exc:  # a fault in the core must not stop the table
            log.exception("observation %r failed in the monitor", obs)
            self._refused(obs, f"internal error: {type(exc).__name__}: {exc}")
            return
        self._publish_output(out, obs.t, journal_first=obs)
        if isinstance(obs, SensorStatus):
            event = {"type": "sensor", "source": obs.source.value, "online": obs.online,
                     "detail": obs.detail, "time": self._stamp(obs.t)}
            self._publish("sensor", event, event)

    def _refused(self, obs: Observation, error: str) -> None:
        self._journal_obs(obs, error)
        self._fault(error)

    def _fault(self, text: str) -> None:
        if self.on_fault is not None:
            self.on_fault(text)

    def _journal_obs(self, obs: Observation, error: str | None) -> None:
        if self.journal is not None:
            hand = self.monitor.hand
            self.journal.record_observation(obs, hand=None if hand is None else hand.number,
                                            wall=self._stamp(obs.t), error=error)

    def _call(self, fn: Callable[[], MonitorOutput], t: float) -> None:
        try:
            out = fn()
        except Exception as exc:
            if not self._tick_failing:  # once per outage: the loop calls this 50 times a second
                log.exception("monitor tick failed; trying again every loop")
            self._tick_failing = True
            self._fault(f"monitor tick failed: {type(exc).__name__}: {exc}")
            return
        self._tick_failing = False
        self._publish_output(out, t)

    # ------------------------------------------------------------------ after the monitor
    def _publish_output(self, out: MonitorOutput, t: float, *,
                        journal_first: Observation | None = None) -> list[dict[str, Any]]:
        """Journal, publish and show what the monitor did, in its order (the hand's start, the
        observation that started it, the alerts, the hand's end). Returns the alerts in the
        floor's form."""
        if out.hand_started is not None:
            self._hand_started(out.hand_started, t)
        if journal_first is not None:
            self._journal_obs(journal_first, None)
            if isinstance(journal_first, CardObservation):  # before the alerts it raised
                hand = self.monitor.hand
                self._publish("card", None, floor_feed.card_message(
                    journal_first, hand=None if hand is None else hand.number,
                    time=self._stamp(journal_first.t)))
        floor = [self._alert(alert) for alert in out.alerts]
        floor += [self._alert(alert, update=True) for alert in out.updates]
        for resolved in out.resolved:
            self._alert_resolved(resolved)
        if floor or out.resolved:
            self.published.keep_held(self.monitor.book)
        if out.hand_ended is not None:
            self._hand_ended(out.hand_ended)
        self._sync_lamps(t)
        if self.on_output is not None and not out.empty:
            self.on_output(out)  # it may ask alert_id() of what ended here
        self._forget_ids(out)
        return floor

    def alert_id(self, ref: int | None) -> int | None:
        """The id the alert ``ref`` (``Alert.ref``) was published under, while it is open (and
        during the output that ends it); None if it never was."""
        return None if ref is None else self._alert_ids.get(ref)

    def _forget_ids(self, out: MonitorOutput) -> None:
        """Keep the ids of open alerts only, so a game of any length keeps only what is open:
        an ended alert is not restated, nor (after a hand) one the monitor no longer holds."""
        for end in out.resolved:
            self._alert_ids.pop(end.ref, None)
        if out.hand_ended is not None:
            still = {a.ref for a in self.monitor.open_alerts}
            self._alert_ids = {r: i for r, i in self._alert_ids.items() if r in still}

    def _alert(self, alert: Alert, *, update: bool = False) -> dict[str, Any]:
        """Publish a new alert under the next id (the delivery's, alerts.md "One error, one
        alert"), or an update under the id of its first publication (``"update": true``,
        alerts.md "Lifecycle"): the journal keeps one alert row per id, updates apart."""
        ident = self._alert_ids.get(alert.ref) if update and alert.ref is not None else None
        if ident is None:
            update = False  # never published (not in this run): it is new here
        if update:
            floor = {"type": "alert", "id": ident, **alert.to_dict(self.wall(alert.t)),
                     "update": True}
        else:
            floor = self.delivery.stamp(alert.to_dict(self.wall(alert.t)))
            if alert.ref is not None:
                self._alert_ids[alert.ref] = int(floor["id"])
            self.unacknowledged.raised(floor["id"], alert.code, alert.severity)
        secret = self.monitor.secret_cards()
        public = redact(floor, secret)  # before ``hidden``, which names the hole cards
        floor["hidden"] = floor_feed.hidden_cards(floor["cards"],
                                                  frozenset(str(c) for c in secret))
        self.published.add(floor, update=update)
        if self.journal is not None:
            if update:
                self.journal.record_alert_event(alert_id=int(floor["id"]), hand=alert.hand,
                                                t=alert.t, payload=floor)
            else:
                self.journal.record_alert(alert, floor)
        if self.bus is not None:
            self._publish("alert", public, floor)
        if not update:  # an update is not redelivered: the floor acknowledges the error once
            self.delivery.deliver(floor, alert.t)
        if self.outputs is not None:
            self.outputs.show_alert(alert, self.clock())
            self._lamps.add(alert.code)
            if alert.code == "SENSOR_RECOVERED":
                self.outputs.resolve("SENSOR_OFFLINE", self.clock())
                self._lamps.discard("SENSOR_OFFLINE")
        return floor

    def _alert_resolved(self, end: AlertResolved) -> None:
        """The end of an open alert: ``alert_resolved`` on the bus and in the journal."""
        ident = self._alert_ids.get(end.ref)
        if ident is None:
            return  # never published (the monitor's output did not reach us): nothing to end
        self.published.resolved(ident)
        event = {"type": "alert_resolved", "id": ident, "code": end.code, "hand": end.hand,
                 "by": end.by, "time": self._stamp(end.t)}
        if self.journal is not None:
            self.journal.record_alert_event(alert_id=ident, hand=end.hand, t=end.t,
                                            payload=event)
        self._publish("alert_resolved", event, event)

    def _sync_lamps(self, t: float) -> None:
        """A game alert's lamp stays lit while the monitor holds it open."""
        if self.outputs is None:
            return
        book = self.monitor.book  # by code: the same cost with 10 or 3,000 alerts open
        for code in list(self._lamps):
            severity = CATALOGUE[code].severity
            if severity in (Severity.STOP, Severity.FIX, Severity.WARN) and not book.has(code):
                self.outputs.resolve(code, self.clock())
                self._lamps.discard(code)

    def _hand_started(self, hand: Hand, t: float) -> None:
        stacks = dict(hand.starting_stacks)
        if self.journal is not None:
            self.journal.record_hand_start(number=hand.number, t=t, wall=self._stamp(t),
                                           button=hand.button, stacks=stacks)
        event = {"type": "hand_start", "hand": hand.number, "button": hand.button,
                 "deal_order": list(hand.deal_order),
                 "stacks": {str(s): v for s, v in sorted(stacks.items())},
                 "time": self._stamp(t)}
        self._publish("hand_start", event, event)

    def _hand_ended(self, end: HandEnd) -> None:
        phh, phh_error = self._history(end)
        if self.journal is not None:
            self.journal.record_hand_end(number=end.number, t=end.t, wall=self._stamp(end.t),
                                         voided=end.voided, cause=end.cause, stacks=end.stacks,
                                         phh=phh, phh_error=phh_error,
                                         run=self.resumed_runs.pop(end.number, None))
        event = {"type": "hand_end", "hand": end.number, "voided": end.voided,
                 "cause": end.cause,
                 "stacks": {str(s): v for s, v in sorted(end.stacks.items())},
                 "pot": floor_feed.hand_pot(end), "time": self._stamp(end.t)}
        self._publish("hand_end", event, {**event, "phh": phh})  # PHH: hole cards, floor only

    def _history(self, end: HandEnd) -> tuple[str | None, str | None]:
        """The hand's PHH text, or why there is none."""
        if end.voided:
            return None, f"hand {end.number} was void ({end.cause}): nothing to export"
        if end.hand is None:
            return None, f"hand {end.number}: its record is not available"
        try:
            return dumps(export_hand(end.hand, config=self.table.config,
                                     context=self.phh_context)), None
        except PhhError as exc:
            return None, str(exc)
        except Exception as exc:  # exporting must never cost the hand's record
            log.exception("PHH export of hand %d failed", end.number)
            return None, f"internal error: {type(exc).__name__}: {exc}"

    def _publish(self, topic: str, public: Mapping[str, Any] | None,
                 floor: Mapping[str, Any] | None) -> None:
        if self.bus is None:
            return
        try:
            self.bus.publish(topic, public=public, floor=floor)
        except Exception:  # the bus queues and retries; anything else is logged, never fatal
            log.exception("event bus: %s not published", topic)

    # ------------------------------------------------------------------ the console
    def handle(self, request: Any) -> dict[str, Any]:
        """Answer one console request (a JSON object, see docs/running.md)."""
        t = self.clock()
        error: str | None = None
        out = NOTHING
        self._extra = {}
        live = self.monitor.hand
        number = None if live is None else live.number  # the hand the request was made in
        try:
            out = self.carry_out(request, t)
        except (ConsoleError, RequestError, MonitorError, EngineError) as exc:
            error = str(exc)
        if number is None and out.hand_started is not None:
            number = out.hand_started.number  # the request started it
        self.requests.record(self.journal, request, t=t, wall=self._stamp(t), hand=number,
                             error=error)
        if error is not None:
            return {"ok": False, "error": error}
        if request.get("cmd") not in ("status", "snapshot", "health", "messages"):
            event = {"type": "action", **request, "time": self._stamp(t), "hand": number,
                     **floor_feed.after_action(self.monitor.hand)}
            self._publish("action", event, event)
        if self.on_request is not None:
            try:
                self.on_request(request, t)
            except Exception:  # an extension must not cost the table its answer
                log.exception("on_request hook failed for %r", request.get("cmd"))
        alerts = self._publish_output(out, t)
        answer = {"ok": True, "alerts": alerts, **self.status(), **self._extra}
        if request.get("cmd") == "snapshot":
            answer["snapshot"] = snapshot.take(
                monitor=self.monitor, published=self.published, wall=self.wall,
                now=self.clock(), seq=snapshot.seqs(self.bus, self.delivery))
        if request.get("cmd") == "health":
            answer["health"] = health.take(
                monitor=self.monitor, sensors=[s.name for s in self.sensors],
                failing=self._sensor_failing, journal=self.journal, bus=self.bus,
                delivery=self.delivery, requests=self.requests, published=self.published,
                started=self.started, now=self.clock(), wall=self.wall,
                table=None if self.phh_context is None else str(self.phh_context.table))
        return answer

    def carry_out(self, request: Any, t: float) -> MonitorOutput:
        """Check and carry out one console request at monotonic ``t``; what the monitor did
        comes back, nothing is journaled or published (:meth:`handle` does that; the replay of
        a killed run's hand, :mod:`.replay`, calls this alone). Raises the request's error."""
        if not isinstance(request, dict):
            raise ConsoleError(f"a request is a JSON object, not {type(request).__name__}")
        check_fields(request, seats=self.table.seats, stacks=self.table.stacks)
        cmd = request.get("cmd")
        entry = self._commands.get(cmd) if isinstance(cmd, str) else None
        if entry is None:
            raise ConsoleError(f"unknown cmd {cmd!r}; known: "
                               f"{', '.join(sorted(self._commands))}")
        fn, keys = entry
        unknown = sorted(set(request) - keys - {"cmd"})
        if unknown:
            raise ConsoleError(f"{cmd}: unknown field {unknown[0]!r}"
                               + (f" (known: {', '.join(sorted(keys))})" if keys else ""))
        return fn(request, t)

    def _request_refused(self, summary: str, error: str) -> None:
        """A request the console server refused before parsing it (size, frames, not JSON)."""
        t = self.clock()
        hand = self.monitor.hand
        self.requests.record(self.journal, summary, t=t, wall=self._stamp(t),
                             hand=None if hand is None else hand.number, error=error)

    def status(self) -> dict[str, Any]:
        hand = self.monitor.hand
        return {
            "hand": None if hand is None else hand.number,
            "last_hand": self.monitor.hand_number,
            "to_act": None if hand is None else hand.to_act,
            "halted": self.monitor.halted,
            "open_alerts": [a.code for a in self.monitor.open_alerts],
            "unacknowledged": self.unacknowledged.ids,
            "stacks": {str(s): v for s, v in sorted(self.table.stacks.items())},
            **(self.extra_status() if self.extra_status is not None else {}),
        }

    def _action(self, r: Mapping[str, Any], t: float) -> MonitorOutput:
        halted = self.monitor.halted
        if halted is not None:  # the monitor would ignore it: tell the dealer instead
            raise ConsoleError(f"action: the hand is halted by {halted}; carry out its remedy "
                               "and resolve it first")
        action = ConsoleAction(_field(r, "seat", int), _field(r, "kind", str),
                               _field(r, "amount", int, required=False), t)
        betting_word(self.monitor.hand, action.seat, action.kind)
        return self.monitor.console(action)

    def _resolve(self, r: Mapping[str, Any], t: float) -> MonitorOutput:
        code = _field(r, "code", str)
        if code not in CATALOGUE:
            raise ConsoleError(f"resolve: {code!r} is not an alert code (alerts.md)")
        if CATALOGUE[code].severity in (Severity.FAULT, Severity.INFO):
            if self.outputs is not None:  # not a game alert: the floor has seen to it
                self.outputs.resolve(code, t)
            self._lamps.discard(code)
            return NOTHING
        return self.monitor.resolve(code, t)

    def _acknowledge(self, r: Mapping[str, Any], t: float) -> MonitorOutput:
        """Without ``id``: the dealer silences the buzzer of every alert showing now. With
        ``id`` (and ``by``, the person): that alert alone, e.g. from the floor."""
        alert_id = _field(r, "id", int, required=False)
        _field(r, "by", str, required=False)
        if alert_id is None:
            self.unacknowledged.take_all()
            if self.outputs is not None:
                self.outputs.acknowledge(t)
            return NOTHING
        last = 0 if self.delivery is None else self.delivery.last_id
        if not 0 < alert_id <= last:
            raise ConsoleError(f"acknowledge: no alert {alert_id} at this table")
        code = self.unacknowledged.take(alert_id)
        if code is not None and self.outputs is not None \
                and not self.unacknowledged.waiting(code):
            self.outputs.acknowledge(t, key=code)
        return NOTHING

    def _messages(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        self._extra = catch_up.answer(self.journal, r, snapshot.seqs(self.bus, self.delivery))
        return NOTHING

    def _showdown(self, _r: Mapping[str, Any], t: float) -> MonitorOutput:
        return self.monitor.showdown(t)

    def _void(self, r: Mapping[str, Any], t: float) -> MonitorOutput:
        cause = _field(r, "cause", str, required=False) or "void by the floor"
        return self.monitor.void(cause, t)

    def _between_hands(self, what: str) -> None:
        if self.monitor.hand is not None:
            raise ConsoleError(f"{what}: hand {self.monitor.hand.number} is in progress; "
                               "wait until it ends")

    def _sit(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        self.table.sit(_field(r, "seat", int), _field(r, "stack", int))
        return NOTHING

    def _leave(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        self.table.leave(_field(r, "seat", int))
        return NOTHING

    def _sit_out(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        """The player is away: the blinds that pass him are owed (rules.md §2, [000, 003])."""
        self.table.sit_out(_field(r, "seat", int))
        return NOTHING

    def _sit_in(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        self.table.sit_in(_field(r, "seat", int))
        return NOTHING

    def _add_chips(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        self.table.add_chips(_field(r, "seat", int), _field(r, "chips", int))
        return NOTHING

    def _set_button(self, r: Mapping[str, Any], _t: float) -> MonitorOutput:
        self._between_hands("set_button")
        self.table.set_button(_field(r, "seat", int))
        return NOTHING

    # ------------------------------------------------------------------ shutdown
    def close(self) -> None:
        """Close sensors, lamps, the console, the bus and the journal (each on its own: one
        that fails does not keep the others open)."""
        for sensor in self.sensors:
            _quietly(sensor.close, f"sensor {sensor.name}")
        if self.outputs is not None:
            _quietly(self.outputs.close, "alert outputs")
        if self.console is not None:
            _quietly(self.console.close, "console")
        if self.bus is not None:
            _quietly(self.bus.close, "event bus")
        _quietly(self.delivery.close, "alert delivery")
        if self.journal is not None:
            _quietly(self.journal.close, "journal")
        for close in reversed(self.also_close):
            _quietly(close, "device")


def _quietly(fn: Callable[[], None], what: str) -> None:
    try:
        fn()
    except Exception:
        log.exception("closing %s failed", what)
