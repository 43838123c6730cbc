"""The page tests' browser works: Debian's Chromium, launched by Playwright, renders a page served
on loopback by a real HTTP server and runs its script."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import VIEWPORTS, screenshot

PAGE = b"""<!doctype html><html><body><button id=b onclick="this.dataset.clicked='yes'">
press</button><p id=t></p><script>document.getElementById('t').textContent = 6 * 7;</script>
</body></html>"""


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def served() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_chromium_renders_runs_script_and_clicks(browser: Any, served: str) -> None:
    page = browser.new_page(viewport=VIEWPORTS["touch"])
    try:
        page.goto(served)
        assert page.text_content("#t") == "42"
        page.click("#b")
        assert page.get_attribute("#b", "data-clicked") == "yes"
        assert screenshot(page, "browser-setup").stat().st_size > 0
    finally:
        page.close()
