"""What the controller keeps of its published alerts for ``snapshot`` and ``status``: the open
ones in their published form (with the id the floor acknowledges), how many, the last one;
an alert no longer open is forgotten, so a long game does not grow the controller."""

from __future__ import annotations

from table_controller.daemon.alert_delivery import AlertDelivery
from table_controller.daemon.controller import Controller
from table_controller.daemon.published import PublishedAlerts
from table_controller.daemon.sequence import Sequences
from table_controller.engine import GameConfig, Table
from table_controller.monitor import DealingMonitor
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.observations import ButtonPressed


def controller() -> Controller:
    table = Table(GameConfig(small_blind=1, big_blind=2), seats=6)
    for seat in (1, 2, 3):
        table.sit(seat, 100)
    table.set_button(1)
    return Controller(monitor=DealingMonitor(table), sensors=[],
                      delivery=AlertDelivery(None, journal=None, sequences=Sequences()))


def test_a_snapshot_shows_the_open_alert_as_published_then_forgets_it() -> None:
    c = controller()
    c.observe(ButtonPressed(0.0))
    answer = c.handle({"cmd": "action", "seat": 2, "kind": "call"})  # no card dealt yet
    [raised] = answer["alerts"]
    assert raised["code"] == "MISDEAL_WRONG_CARD_COUNT" and raised["id"] == 1
    assert c.handle({"cmd": "snapshot"})["snapshot"]["open_alerts"] == [raised]

    assert c.handle({"cmd": "resolve", "code": "MISDEAL_WRONG_CARD_COUNT"})["ok"]
    assert c.handle({"cmd": "snapshot"})["snapshot"]["open_alerts"] == []
    health = c.handle({"cmd": "health"})["health"]
    assert health["counters"]["alerts"] == 1 and health["last_alert"] == raised


def test_published_alerts_keep_only_the_open_ones() -> None:
    published = PublishedAlerts()
    first = Alert("JOKER", t=1.0, hand=1, seat=None)
    second = Alert("FOREIGN_CARD", t=2.0, hand=1, seat=3)
    for n, alert in enumerate((first, second), start=1):
        published.add({"id": n, **alert.to_dict()})
    assert published.find(first) is not None and published.find(second) is not None
    published.keep([second])
    assert published.find(first) is None
    found = published.find(second)
    assert found is not None and found["id"] == 2
    assert published.count == 2 and published.last is not None and published.last["id"] == 2


def test_an_update_replaces_the_published_alert_and_its_end_drops_it() -> None:
    published = PublishedAlerts()
    alert = Alert("PREMATURE_BOARD_CARD", t=1.0, hand=1, seat=None)
    published.add({"id": 4, **alert.to_dict(), "message": "first"})
    published.add({"id": 4, **alert.to_dict(), "message": "restated", "update": True},
                  update=True)
    found = published.find(alert)
    assert found is not None and found["message"] == "restated"
    assert published.count == 1 and published.last == found
    published.resolved(4)
    assert published.find(alert) is None and published.count == 1
