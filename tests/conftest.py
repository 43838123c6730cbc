"""Suite-wide hooks.

PHH round trip of every engine hand (issue 2, part 4): every hand any test starts through
``Table.start_hand`` is recorded; when the test ends, each of its hands that finished is exported
to PHH and replayed by our engine and by pokerkit, and all three must end with the same stacks.
A difference fails that very test (an error at its teardown, naming the hand and showing the
PHH text), so the check works in any test order, with ``-k`` selections and under xdist. Hands
started outside a test (session or module fixtures) are checked at the end of the session, and a
difference there sets the exit status to 1. The conventions in which pokerkit legitimately
differs (house odd-chip rules, rake) are listed in docs/hand-histories.md; those hands are still
replayed by our engine. ``PHH_ROUND_TRIP=0`` switches the check off (for profiling the suite).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    import numpy as np

    from vision.recognise import Recogniser

# Deterministic property tests: the same examples on every run and every machine (no example
# database, no random seed, no deadline: how long an example takes on a loaded machine is not
# the test's business, benchmarks measure speed). A run with more examples:
# HYPOTHESIS_PROFILE=thorough.
settings.register_profile("deterministic", derandomize=True, database=None, deadline=None)
settings.register_profile("thorough", settings.get_profile("deterministic"), max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

SCENARIO_FIXTURES = Path(__file__).parent / "scenarios" / "fixtures"
LETELE = Path(__file__).resolve().parent / "data" / "vision" / "letele" / "cards"
"""The development deck's scans (the letele design), which the vision tests draw scenes with."""


@pytest.fixture(scope="session")
def letele_deck() -> dict[str, np.ndarray]:
    """The letele deck's pictures (``As``..``Kc`` and ``back``, BGRA), for drawing scenes."""
    from vision import synth

    return synth.load_deck_images(LETELE)


@pytest.fixture(scope="session")
def letele_recogniser() -> Recogniser:
    """A :class:`vision.recognise.Recogniser` of the letele deck, enrolled from its scans."""
    from vision.recognise import Recogniser as Reader
    from vision.templates import enroll_from_folder

    return Reader(enroll_from_folder(LETELE, "letele"))


@pytest.fixture
def scenario_file() -> Callable[[str], Path]:
    """The scenario file a test reads, by name: ``scenario_file("runner-faults")`` is
    ``tests/scenarios/fixtures/runner-faults.toml``. Scenario text lives in files, never inline
    in test code; the files under ``fixtures/`` are each read by the tests that name them (the
    files directly under ``tests/scenarios/`` are all run with ``sim --check``)."""
    def find(name: str) -> Path:
        path = SCENARIO_FIXTURES / f"{name}.toml"
        if not path.is_file():
            raise FileNotFoundError(f"no scenario fixture {path}")
        return path
    return find


_ENABLED = os.environ.get("PHH_ROUND_TRIP", "1") != "0"
_pending: list[tuple[Any, Any]] = []  # (hand, config) started since the last check
_tally: Counter[str] = Counter()
_reasons: Counter[str] = Counter()
_session_failures: list[str] = []
_checking = False  # the check replays hands itself; those are not recorded


def _install_recorder() -> Any:
    """Wrap ``Table.start_hand`` so every hand started is remembered; returns an undo callable,
    or None when the engine cannot be imported (its own tests will say why)."""
    try:
        from table_controller.engine import Table
    except Exception:  # the engine is broken or absent: nothing to record
        return None
    original = Table.start_hand

    def start_hand(self: Any, *args: Any, **kwargs: Any) -> Any:
        hand = original(self, *args, **kwargs)
        if not _checking:
            _pending.append((hand, self.config))
        return hand

    Table.start_hand = start_hand  # type: ignore[method-assign]

    def undo() -> None:
        Table.start_hand = original  # type: ignore[method-assign]

    return undo


def _check_pending() -> list[str]:
    """Round-trip the finished hands recorded so far; returns the failure messages."""
    global _checking
    from tests.phh_pokerkit import round_trip

    hands = list(_pending)
    _pending.clear()
    failures = []
    _checking = True
    try:
        for hand, config in hands:
            if getattr(hand, "result", None) is None:
                _tally["unfinished"] += 1
                continue
            outcome = round_trip(hand, config)
            _tally[outcome.status] += 1
            if outcome.status in ("ours-only", "not-exportable"):
                _reasons[outcome.detail] += 1
            elif outcome.status == "mismatch":
                failures.append(f"hand {hand.number}: {outcome.detail}")
    finally:
        _checking = False
    return failures


@pytest.fixture(scope="session", autouse=True)
def _phh_recorder() -> Iterator[None]:
    undo = _install_recorder() if _ENABLED else None
    yield
    if undo is not None:
        undo()


@pytest.fixture(autouse=True)
def _phh_round_trip(_phh_recorder: None) -> Iterator[None]:
    if _pending:  # hands started outside any test (fixtures): checked at session end
        _session_failures.extend(_check_pending())
    yield
    if not _pending:
        return
    failures = _check_pending()
    if failures:
        pytest.fail(
            "PHH round trip: engine, our replay and pokerkit disagree\n" + "\n\n".join(failures),
            pytrace=False,
        )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _pending:
        _session_failures.extend(_check_pending())
    if _session_failures:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _tally and not _session_failures:
        return
    write = terminalreporter.write_line
    counts = ", ".join(f"{n} {status}" for status, n in sorted(_tally.items()))
    write(f"PHH round trip of engine hands: {counts}")
    for reason, n in _reasons.most_common():
        write(f"  {n} x {reason}")
    for failure in _session_failures:
        write(f"PHH round trip FAILED outside a test: {failure}", red=True)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (tests/browser.py); one per worker."""
    from playwright.sync_api import sync_playwright

    from tests.browser import launch

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def postgresql_server() -> Iterator[str]:
    """A real PostgreSQL server (tests/postgres.py) for the session; skipped, saying why, only
    where no server binary exists."""
    from tests.postgres import NoServer, running_server

    try:
        server = running_server()
        url = server.__enter__()
    except NoServer as exc:
        pytest.skip(str(exc))
    try:
        yield url
    finally:
        server.__exit__(None, None, None)


@pytest.fixture
def postgresql_url(postgresql_server: str, request: pytest.FixtureRequest) -> str:
    """A new, empty database on the session's server, for one test."""
    import re

    import psycopg

    name = "t_" + re.sub(r"\W", "_", request.node.name.lower())[:40] + f"_{os.getpid()}"
    with psycopg.connect(postgresql_server, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}"')
        db.execute(f'CREATE DATABASE "{name}"')
    return postgresql_server.replace("/postgres?", f"/{name}?")
