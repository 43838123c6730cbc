"""The floor's dashboard and API (Starlette, served by uvicorn).

Pages: ``/`` the floor plan (every table, its state, open alerts by severity, sensor health),
search and hand review; static files from the package (no build step, no CDN).

API (JSON; the public view, hole cards masked, unless the request carries a floor staff
session; docs/floor.md):

- ``GET /api/tables``: every table's state.
- ``GET /api/alerts?table=ID&open=1``: alerts, each with ``table``, ``id``, ``code``.
- ``POST /api/alerts/{table}/{id}/ack``: acknowledge (staff only); sent back to the table.
- ``GET /api/hands?table=&since=&until=&seat=&code=&min_pot=&max_pot=``: search.
- ``GET /api/hands/{table}/{hand}``: the hand's record, message by message, for review.
- ``GET /api/hands/{table}/{hand}/phh``: its hand history (staff only: it names hole cards).
- ``POST /api/login`` ``{"username", "password"}``, ``POST /api/logout``, ``GET /api/me``.
- ``GET /api/events``: server-sent events, one per change (``table``, ``message``,
  ``acknowledged``), in the viewer's view.

POST requests must be JSON (``Content-Type: application/json``) and the session cookie is
``SameSite=Strict`` and ``HttpOnly``, so another site cannot make a signed-in browser act.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from table_controller.floor.auth import Auth, AuthError, Staff
from table_controller.floor.hub import FloorHub
from table_controller.floor.views import public

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "floor_session"
MAX_BODY = 4096
EVENT_QUEUE = 1000


def _error(status: int, text: str) -> JSONResponse:
    return JSONResponse({"ok": False, "error": text}, status_code=status)


def create_app(hub: FloorHub, auth: Auth, *, secure_cookie: bool = False,
               now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> Starlette:
    """The dashboard for ``hub``; ``secure_cookie`` when it is served over TLS."""

    def staff(request: Request) -> Staff | None:
        return auth.staff_for(request.cookies.get(COOKIE))

    def view(message: dict[str, Any], who: Staff | None) -> dict[str, Any]:
        return dict(message) if who is not None and who.sees_hole_cards else public(message)

    async def body(request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise ValueError("send JSON (Content-Type: application/json)")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise ValueError(f"request too large ({len(raw)} bytes, at most {MAX_BODY})")
        data = json.loads(raw or b"{}")
        if not isinstance(data, dict):
            raise ValueError("send a JSON object")
        return data

    async def index(_request: Request) -> Response:
        return FileResponse(STATIC / "floor.html")

    async def tables(_request: Request) -> Response:
        return JSONResponse(hub.table_views())

    async def alerts(request: Request) -> Response:
        who = staff(request)
        table = request.query_params.get("table")
        if table is not None and table not in hub.tables:
            return _error(404, f"no table {table!r}; known: {', '.join(sorted(hub.tables))}")
        open_only = request.query_params.get("open") in ("1", "true")
        out = []
        for a in hub.store.alerts(table, open_only=open_only):
            item = view({**a.body, "table": a.table, "id": a.id, "code": a.code}, who)
            item.update(resolved_by=a.resolved_by, resolved=a.resolved, acked_by=a.acked_by,
                        acked=a.acked, updates=a.updates)
            out.append(item)
        return JSONResponse(out)

    async def acknowledge(request: Request) -> Response:
        who = staff(request)
        if who is None or not who.sees_hole_cards:
            return _error(401, "sign in as floor staff to acknowledge alerts")
        try:
            alert_id = int(request.path_params["alert_id"])
        except ValueError:
            return _error(400, "an alert id is an integer")
        table = request.path_params["table"]
        stamp = now().isoformat(timespec="milliseconds")
        if not hub.acknowledge(table, alert_id, who.username, stamp):
            return _error(404, f"no alert {alert_id} at table {table!r}")
        return JSONResponse({"ok": True, "table": table, "id": alert_id, "by": who.username})

    async def hands(request: Request) -> Response:
        q = request.query_params
        try:
            ints = {k: int(q[k]) for k in ("seat", "min_pot", "max_pot") if q.get(k)}
        except ValueError as exc:
            return _error(400, f"seat, min_pot and max_pot are integers: {exc}")
        found = hub.store.hands(table=q.get("table") or None, since=q.get("since") or None,
                                until=q.get("until") or None, code=q.get("code") or None,
                                **ints)
        return JSONResponse([{"table": h.table, "hand": h.hand, "started": h.started,
                              "ended": h.ended, "button": h.button, "seats": list(h.seats),
                              "start_stacks": h.start_stacks, "end_stacks": h.end_stacks,
                              "pot": h.pot, "voided": h.voided} for h in found])

    def _hand_args(request: Request) -> tuple[str, int]:
        return request.path_params["table"], int(request.path_params["hand"])

    async def hand(request: Request) -> Response:
        who = staff(request)
        table, number = _hand_args(request)
        messages = hub.store.hand_messages(table, number)
        if not messages:
            return _error(404, f"no hand {number} at table {table!r}")
        return JSONResponse({"table": table, "hand": number,
                             "messages": [view(m, who) for m in messages]})

    async def phh(request: Request) -> Response:
        who = staff(request)
        if who is None or not who.sees_hole_cards:
            return _error(401, "sign in as floor staff: a hand history names hole cards")
        table, number = _hand_args(request)
        for m in hub.store.hand_messages(table, number):
            if m.get("type") == "hand_end" and isinstance(m.get("phh"), str):
                return PlainTextResponse(m["phh"], headers={
                    "Content-Disposition": f'attachment; filename="{table}-{number}.phh"'})
        return _error(404, f"hand {number} at table {table!r} has no hand history")

    async def login(request: Request) -> Response:
        try:
            data = await body(request)
        except ValueError as exc:
            return _error(400, str(exc))
        user, password = data.get("username"), data.get("password")
        if not isinstance(user, str) or not isinstance(password, str):
            return _error(400, "username and password are strings")
        try:
            token = await asyncio.to_thread(auth.sign_in, user, password)
        except AuthError as exc:
            return _error(401, str(exc))
        response = JSONResponse({"ok": True, "username": user})
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict",
                            secure=secure_cookie, max_age=8 * 3600, path="/")
        return response

    async def logout(request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        if token:
            auth.sign_out(token)
        response = JSONResponse({"ok": True})
        response.delete_cookie(COOKIE, path="/")
        return response

    async def me(request: Request) -> Response:
        who = staff(request)
        return JSONResponse(None if who is None else {"username": who.username,
                                                      "role": who.role})

    async def events(request: Request) -> Response:
        who = staff(request)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(EVENT_QUEUE)

        def push(event: dict[str, Any]) -> None:
            def put() -> None:
                if queue.full():  # a stalled browser: it reloads the state when it sees this
                    queue.get_nowait()
                    queue.put_nowait({"type": "resync"})
                queue.put_nowait(event)
            loop.call_soon_threadsafe(put)

        stop = hub.listen(push)

        async def stream() -> AsyncIterator[dict[str, str]]:
            try:
                yield {"event": "hello", "data": json.dumps({"tables": hub.table_views()})}
                while True:
                    event = await queue.get()
                    if event.get("type") == "message":
                        event = {**event, "message": view(event["message"], who)}
                    yield {"event": str(event.get("type")), "data": json.dumps(event)}
            finally:
                stop()

        return EventSourceResponse(stream(), ping=10)

    return Starlette(routes=[
        Route("/", index),
        Route("/api/tables", tables),
        Route("/api/alerts", alerts),
        Route("/api/alerts/{table}/{alert_id}/ack", acknowledge, methods=["POST"]),
        Route("/api/hands", hands),
        Route("/api/hands/{table}/{hand:int}", hand),
        Route("/api/hands/{table}/{hand:int}/phh", phh),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/events", events),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
