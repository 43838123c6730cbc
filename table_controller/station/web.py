"""The dealer station's page and API (Starlette on uvicorn, in the controller process).

- ``GET /``: the page (``static/station.html``; the script draws the table and the cards
  itself, no build step, no CDN). ``GET /?token=T`` signs a browser in when a token is set.
- ``GET /api/view``: the current view (JSON, with ``boot`` and ``seq``).
- ``GET /api/events``: server-sent events, one ``view`` event per change, each with the id
  ``BOOT.SEQ``. A browser that reconnects (its ``Last-Event-ID``, or ``?since=BOOT.SEQ``) gets
  every view after that one, in order, none twice; after a restart of the controller (another
  boot) or a gap longer than the hub keeps, the latest view as a ``resync`` event.
- ``POST /api/request``: one console request as JSON (``{"cmd": "action", ...}``); the answer
  is the console's answer plus the ``seq`` of the first view that shows its effect.

Access: with no token (loopback only, the configuration sees to it) the server answers only
requests whose ``Host`` is a loopback name (a web page elsewhere cannot rebind a name to it);
with a token every API call needs it, from the cookie set by ``/?token=`` or an
``Authorization: Bearer`` header. POST bodies must be JSON (``Content-Type:
application/json``: another site cannot send one without the browser asking first) and at most
:data:`MAX_BODY` bytes.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from table_controller.station.bridge import BridgeClosed, ViewHub

Submit = Callable[[dict[str, Any]], "Future[dict[str, Any]]"]

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "station_token"
MAX_BODY = 4096
ANSWER_TIMEOUT = 10.0  # seconds for the loop to serve a request
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
RETRY_MS = 1000  # how soon a browser reconnects after losing the stream


def _error(status: int, text: str) -> JSONResponse:
    return JSONResponse({"ok": False, "error": text}, status_code=status)


class _NoCache:
    """Static files are revalidated on every load: after an update the kiosk gets the new
    page without clearing its cache."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"cache-control", b"no-cache")]
            await send(message)
        await self.app(scope, receive, sending)


def _host(header: str) -> str:
    """The name in a ``Host`` header, without the port (``[::1]`` keeps its brackets)."""
    if header.startswith("["):
        return header.split("]", 1)[0] + "]"
    return header.rsplit(":", 1)[0]


def _since(text: str | None, boot: str) -> int:
    """The seq a reconnecting page has (``BOOT.SEQ``); -1: none, or another boot's."""
    if not text:
        return -1
    got_boot, _, seq = text.partition(".")
    if got_boot != boot or not seq.isdigit():
        return -1
    return int(seq)


def create_app(*, hub: ViewHub, submit: Submit, token: str | None) -> Starlette:
    """The station's app: views from ``hub``, requests handed to ``submit`` (which queues them
    for the controller's loop and returns the future of the answer), ``token`` if one is
    required."""

    def refusal(request: Request) -> Response | None:
        if token is None:
            host = _host(request.headers.get("host") or "")
            if host not in LOOPBACK_HOSTS:
                return _error(403, f"this station answers on loopback only, not as {host!r}")
            return None
        given = request.cookies.get(COOKIE) or ""
        auth = request.headers.get("authorization", "")
        if auth.startswith("Bearer "):
            given = auth[len("Bearer "):]
        if not hmac.compare_digest(given.encode(), token.encode()):
            return _error(401, "open the station with its token: /?token=...")
        return None

    async def index(request: Request) -> Response:
        offered = request.query_params.get("token")
        if token is not None and offered is not None:
            if not hmac.compare_digest(offered.encode(), token.encode()):
                return _error(401, "wrong token")
            response = RedirectResponse("/", status_code=303)
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict",
                                max_age=30 * 24 * 3600, path="/")
            return response
        refused = refusal(request)
        if refused is not None:
            return refused
        return FileResponse(STATIC / "station.html", headers={"cache-control": "no-cache"})

    async def view(request: Request) -> Response:
        refused = refusal(request)
        if refused is not None:
            return refused
        latest = hub.latest()
        return Response(latest[1] if latest else "{}", media_type="application/json")

    async def post(request: Request) -> Response:
        refused = refusal(request)
        if refused is not None:
            return refused
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return _error(415, "send JSON (Content-Type: application/json)")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            return _error(413, f"request too large ({len(raw)} bytes, at most {MAX_BODY})")
        try:
            data = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return _error(400, f"not a JSON request: {exc}")
        if not isinstance(data, dict):
            return _error(400, "a request is a JSON object such as {\"cmd\": \"status\"}")
        try:
            future = submit(data)
            answer = await asyncio.wait_for(asyncio.wrap_future(future), ANSWER_TIMEOUT)
        except BridgeClosed as exc:
            return _error(503, str(exc))
        except TimeoutError:
            return _error(504, f"the controller did not answer within {ANSWER_TIMEOUT:g} s")
        return JSONResponse(answer)

    async def events(request: Request) -> Response:
        refused = refusal(request)
        if refused is not None:
            return refused
        since = _since(request.headers.get("last-event-id")
                       or request.query_params.get("since"), hub.boot)
        loop = asyncio.get_running_loop()
        changed = asyncio.Event()

        def wake() -> None:  # on the controller's loop thread
            loop.call_soon_threadsafe(changed.set)

        stop = hub.listen(wake)

        async def stream() -> AsyncIterator[dict[str, Any]]:
            sent = since
            try:
                while True:
                    views, resync = hub.after(sent)
                    for seq, text in views:
                        now = round(time.time() * 1000)
                        yield {"event": "resync" if resync else "view", "id": f"{hub.boot}.{seq}",
                               "data": f'{{"now":{now},"view":{text}}}', "retry": RETRY_MS}
                        sent = seq
                    changed.clear()
                    if hub.after(sent)[0]:
                        continue
                    await changed.wait()
            finally:
                stop()

        return EventSourceResponse(stream(), ping=5)

    routes = [
        Route("/", index),
        Route("/api/view", view),
        Route("/api/request", post, methods=["POST"]),
        Route("/api/events", events),
        Mount("/static", _NoCache(StaticFiles(directory=STATIC)), name="static"),
    ]
    return Starlette(routes=routes)
