"""The indices kept of open alerts (issue 10): the monitor's ``RemedyBook``, the station's
``AlertBoard`` and the controller's ``PublishedAlerts`` answer from indices what they used to
find by walking every open alert; a seeded random run checks each against a whole pass."""

from __future__ import annotations

import random
from typing import Any

from table_controller.daemon.published import PublishedAlerts
from table_controller.monitor.remedies import RemedyBook, held_key
from table_controller.station.alerts import AlertBoard, ScannedHeld
from table_controller.vocabulary.alerts import CATALOGUE, Alert, Severity

GAME_CODES = sorted(c for c, s in CATALOGUE.items()
                    if s.severity in (Severity.STOP, Severity.FIX, Severity.WARN))[:4]
NOTICE_CODES = sorted(c for c, s in CATALOGUE.items()
                      if s.severity in (Severity.INFO, Severity.FAULT))[:2]


def _alert(rng: random.Random, ref: int, codes: list[str]) -> Alert:
    return Alert(code=rng.choice(codes), hand=rng.choice([None, 1, 2]), t=float(ref),
                 seat=rng.choice([None, 1, 2]), ref=ref)


def _payload(alert: Alert, ident: int | None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": alert.code, "hand": alert.hand, "seat": alert.seat,
                            "severity": alert.severity.value}
    return body if ident is None else {"id": ident, **body}


def _state(board: AlertBoard) -> list[tuple[Any, ...]]:
    return [(e.id, e.key, e.held, e.hand_at, e.updates, e.silenced) for e in board.shown]


def _same_published(fast: PublishedAlerts, whole: PublishedAlerts, opened: list[Alert]
                    ) -> None:
    for alert in opened[-60:]:
        assert fast.find(alert) == whole.find(alert)


def _check_book(book: RemedyBook) -> None:
    alerts = book.alerts
    for code in {a.code for a in alerts} | set(GAME_CODES):
        of_code = [a for a in alerts if a.code == code]
        latest = book.latest(code)
        assert (latest.alert if latest is not None else None) == (of_code[-1] if of_code
                                                                  else None)
        assert book.of_code(code) == tuple(of_code)
        assert book.has(code) == bool(of_code)
        for seat in (None, 1, 2):
            assert book.has(code, seat=seat) == any(
                seat is None or a.seat == seat for a in of_code)
    for key in {held_key(a) for a in alerts}:
        assert book.held(key) == sum(1 for a in alerts if held_key(a) == key)


def test_indexed_board_and_book_match_a_whole_pass() -> None:
    rng = random.Random(10)
    book = RemedyBook()
    fast = AlertBoard(held=book)
    slow = AlertBoard(held=ScannedHeld(lambda: book.alerts))
    published, whole = PublishedAlerts(), PublishedAlerts()
    ref = ident = 0
    opened: list[Alert] = []
    hand: int | None = None
    for _step in range(3000):
        roll = rng.random()
        if roll < 0.35:
            ref += 1
            alert = _alert(rng, ref, GAME_CODES + NOTICE_CODES)
            book.open(alert)
            opened.append(alert)
            with_id = rng.random() < 0.7
            ident += 1
            for board in (fast, slow):
                board.published(_payload(alert, ident if with_id else None), hand=hand)
            for p in (published, whole):
                p.add({"id": ident, **_payload(alert, None)})
            published.keep_held(book)
            whole.keep(book.alerts)
            _same_published(published, whole, opened)
        elif roll < 0.45 and book.alerts:
            entry = book.latest(rng.choice(book.alerts).code)
            assert entry is not None
            book.restate(entry, _alert(rng, ref, [entry.alert.code]))
        elif roll < 0.6:
            resolution = book.resolve(rng.choice(GAME_CODES), float(ref))
            assert resolution is None or resolution.done
            published.keep_held(book)
            whole.keep(book.alerts)
            _same_published(published, whole, opened)
        elif roll < 0.63:
            book.close_hand(float(ref))
        elif roll < 0.66:
            hand = rng.choice([None, 1, 2])
        elif roll < 0.69:
            code = rng.choice(NOTICE_CODES + GAME_CODES)
            fast.code_resolved(code)
            slow.code_resolved(code)
        elif roll < 0.72 and ident:
            gone = rng.randint(1, ident)
            assert fast.dismiss(gone) == slow.dismiss(gone)
        elif roll < 0.74:
            fast.acknowledged()
            slow.acknowledged()
        if rng.random() < 0.5:
            fast.reconcile(hand)
            slow.reconcile(hand)
            assert _state(fast) == _state(slow)
        _check_book(book)
    published.keep_held(book)
    whole.keep(book.alerts)
    for alert in book.alerts:
        assert published.find(alert) == whole.find(alert)
    assert published.count == whole.count and len(fast.shown) > 0


def test_lowered_since_names_what_went_down() -> None:
    book = RemedyBook()
    a = Alert(code=GAME_CODES[0], hand=1, t=0.0, seat=2, ref=1)
    b = Alert(code=GAME_CODES[1], hand=1, t=0.0, seat=None, ref=2)
    book.open(a)
    book.open(b)
    before = book.version
    assert book.lowered_since(before) == [] and book.held(held_key(a)) == 1
    assert book.resolve(GAME_CODES[0], 1.0) is not None
    assert book.lowered_since(before) == [held_key(a)] and book.held(held_key(a)) == 0
    assert book.alerts == (b,) and book.alerts is book.alerts  # one tuple per version
    book.close_hand(2.0)
    assert book.lowered_since(before) is None and not book.alerts


def test_dismiss_with_an_unhashable_id_finds_nothing() -> None:
    board = AlertBoard(held=ScannedHeld(tuple))
    board.published({"code": NOTICE_CODES[0], "severity": "info", "id": 3}, hand=None)
    assert board.dismiss([3]) is False and len(board.shown) == 1
