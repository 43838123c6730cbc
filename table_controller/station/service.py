"""The dealer station inside the controller process: its commands, its place in the loop, its
web server (docs/station.md).

::

    station = Station(config.station, sim=True)
    controller = build_controller(config, sim=True, commands=station.commands())
    url = station.attach(controller)      # hooks into the loop, starts serving
    ...
    station.close()

On the loop thread: what the monitor did (``Controller.on_output``: the alerts raised, the hand
ended) goes to the alert board and the last hand's result; each request carried out
(``Controller.on_request``, the console's and the page's alike) tells the board of a silenced
buzzer or a resolved fault. At the end of every step (``Controller.on_step``) the page's queued
requests go through ``Controller.handle`` (journaled and published like the console's), the
called clock and the next blind level are looked after, the alert board catches up with the
monitor, and the view is rebuilt and published to the web side when it changed. The web server
(uvicorn on its own thread, :mod:`table_controller.webserve`) only reads published views and
queues requests.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from table_controller.config import StationSettings
from table_controller.daemon.controller import Command
from table_controller.monitor.output import MonitorOutput
from table_controller.station.alerts import AlertBoard, Key
from table_controller.station.bridge import BridgeClosed, RequestBridge, ViewHub
from table_controller.station.desk import Desk
from table_controller.station.view import Facts, build_view, hand_result
from table_controller.vocabulary.alerts import CATALOGUE, Severity

if TYPE_CHECKING:
    from table_controller.daemon.controller import Controller
    from table_controller.webserve import WebServer

log = logging.getLogger(__name__)


class StationError(RuntimeError):
    """The station cannot be served; the text says why (the address, mostly)."""


class Station:
    def __init__(self, settings: StationSettings, *, sim: bool = False) -> None:
        self.settings = settings
        self.boot = secrets.token_hex(8)  # a new one at each start: pages know to start over
        self.board = AlertBoard(held=_MonitorHeld(self))
        self.desk = Desk(self.board, clock_time=settings.clock_time,
                         clock_count=settings.clock_count)
        self.facts = Facts(desk=self.desk, sim=sim)
        self.hub = ViewHub(self.boot)
        self.requests = RequestBridge()
        self.controller: Controller | None = None
        self.server: WebServer | None = None
        self._views = True

    def commands(self) -> dict[str, tuple[Command, frozenset[str]]]:
        """The station's console commands, for ``build_controller(commands=...)``."""
        return self.desk.commands()

    # ------------------------------------------------------------------ start and stop
    def attach(self, controller: Controller, *, serve: bool = True,
               views: bool = True) -> str | None:
        """Hook into ``controller``'s loop (its ``on_step`` and ``on_request``, and its
        ``on_output`` after whoever already hears it) and (``serve``, with an address
        configured) start the web server; returns its URL. ``views``: build the view after each
        step (no page to show it to: only the commands). Raises :class:`StationError` when the
        address cannot be served."""
        self.controller = controller
        self._views = views
        self.desk.attach(controller)
        if controller.on_step is not None or controller.on_request is not None:
            raise StationError("station: the controller already has a station attached")
        controller.on_output = _after(controller.on_output, self._output)
        controller.on_request = self._request
        controller.on_step = self.step
        self.refresh()
        if not serve or self.settings.listen is None:
            return None
        from table_controller.station.web import create_app
        from table_controller.webserve import WebServer, WebServerError, parse_listen

        host, port = parse_listen(self.settings.listen, where="station.listen")
        try:
            app = create_app(hub=self.hub, submit=self.submit, token=self.settings.token)
            self.server = WebServer(app, host, port).start()
        except WebServerError as exc:
            raise StationError(f"station: {exc}") from None
        return self.server.url

    @property
    def url(self) -> str | None:
        return None if self.server is None else self.server.url

    def close(self) -> None:
        self.requests.close()
        if self.server is not None:
            self.server.stop()
            self.server = None

    # ------------------------------------------------------------------ on the loop thread
    def _output(self, out: MonitorOutput) -> None:
        """What one call of the monitor did: its alerts and their updates (published in floor
        form, with the id and wall time the controller gives them) and the hand it ended."""
        controller = self.controller
        if controller is None:
            return
        try:
            hand = controller.monitor.hand
            for alert in out.published:  # raised, then restated: an update keeps its id
                ident = controller.alert_id(alert.ref)
                body = alert.to_dict(controller.wall(alert.t))
                self.board.published(body if ident is None else {"id": ident, **body},
                                     hand=None if hand is None else hand.number)
                if alert.code == "SENSOR_RECOVERED":
                    self.board.recovered()
            end = out.hand_ended
            if end is not None:
                self.facts.last_hand = hand_result(end.hand, end,
                                                   controller.table.config.chip_unit)
        except Exception:  # the station must not cost the table its loop
            log.exception("station: the monitor's output could not be shown")

    def _request(self, request: Mapping[str, Any], _t: float) -> None:
        """A request carried out (from the console's socket or the page)."""
        cmd = request.get("cmd")
        if cmd == "acknowledge":
            self.board.acknowledged()
        elif cmd == "resolve" and isinstance(request.get("code"), str):
            spec = CATALOGUE.get(request["code"])
            if spec is not None and spec.severity in (Severity.FAULT, Severity.INFO):
                self.board.code_resolved(request["code"])

    def step(self) -> None:
        """After each step of the controller's loop."""
        controller = self.controller
        if controller is None:
            return
        served = self._serve()
        try:
            self.desk.clock_step()
            self.refresh()
        finally:  # every request served gets its answer, whatever happens after it
            for future, answer in served:
                future.set_result({**answer, "seq": self.hub.seq})

    def _serve(self) -> list[tuple[Any, dict[str, Any]]]:
        assert self.controller is not None
        out = []
        for request, future in self.requests.take():
            if not future.set_running_or_notify_cancel():
                continue  # the page gave up waiting: the request is not carried out
            try:
                answer = self.controller.handle(request)
            except Exception as exc:  # as the console socket does: the table goes on
                log.exception("station: request %r failed", request)
                answer = {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
            out.append((future, answer))
        return out

    def refresh(self) -> int:
        """Bring the station's state up to date and publish the view; returns its seq."""
        controller = self.controller
        assert controller is not None
        hand = controller.monitor.hand
        self.desk.blinds_step()
        self.desk.names_step()
        self.desk.sync_marks()
        self.board.reconcile(None if hand is None else hand.number)
        if not self._views:
            return self.hub.seq
        return self.hub.publish(build_view(controller, self.facts))

    # ------------------------------------------------------------------ from the web side
    def submit(self, request: dict[str, Any]) -> Future[dict[str, Any]]:
        """Queue a page's request; returns the future of its answer (raises
        :class:`BridgeClosed` when the controller is stopping)."""
        return self.requests.submit(request)


class _MonitorHeld:
    """The board's view of the open alerts of the attached controller's monitor (its
    ``RemedyBook``: constant time whatever the number open); none before it is attached."""

    def __init__(self, station: Station) -> None:
        self._station = station

    @property
    def version(self) -> int:
        controller = self._station.controller
        return 0 if controller is None else controller.monitor.book.version

    def held(self, key: Key) -> int:
        controller = self._station.controller
        return 0 if controller is None else controller.monitor.book.held(key)

    def lowered_since(self, version: int) -> Iterable[Key] | None:
        controller = self._station.controller
        return None if controller is None else controller.monitor.book.lowered_since(version)


def _after(first: Callable[[MonitorOutput], None] | None,
           then: Callable[[MonitorOutput], None]) -> Callable[[MonitorOutput], None]:
    """``then`` after ``first`` (if any): one ``on_output`` for both."""
    if first is None:
        return then

    def both(out: MonitorOutput) -> None:
        first(out)
        then(out)
    return both


__all__ = ["BridgeClosed", "Station", "StationError"]
