"""``table-controller demo`` and continuous play (hw_sim.harness.autoplay) through the real
controller."""

from __future__ import annotations

import pytest

from hw_sim.harness.autoplay import AutoTable
from table_controller.cli import main


def test_demo_plain_output_when_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--hands", "3", "--sensors", "rfid", "--seed", "2",
                 "--error-rate", "0.5"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert sum(line.startswith("hand ") for line in lines) == 3
    assert lines[-1].startswith("demo: 3 hand(s)")


def test_demo_refuses_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--sensors", "sonar"]) == 2
    assert main(["demo", "--error-rate", "2"]) == 2
    assert "--error-rate" in capsys.readouterr().err


def test_ctrl_c_stops_cleanly(monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    played: list[int] = []
    closed: list[bool] = []
    real_play, real_close = AutoTable.play_hand, AutoTable.close

    def play_then_interrupt(self: AutoTable) -> object:
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(1)
        return real_play(self)

    def close(self: AutoTable) -> None:
        closed.append(True)
        real_close(self)

    monkeypatch.setattr(AutoTable, "play_hand", play_then_interrupt)
    monkeypatch.setattr(AutoTable, "close", close)
    assert main(["demo", "--sensors", "rfid", "--plain"]) == 130
    out = capsys.readouterr().out
    assert closed == [True]
    assert out.splitlines()[-1].startswith("demo: 2 hand(s)")
    assert out.rstrip().endswith("(stopped)")


def test_a_sensor_failing_at_the_start_is_named(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The controller carries on past a failing sensor at a table; the simulated table does
    not start on one: demo exits 1 naming it."""
    from hw_sim.devices.wiring import SimButton

    def broken(self: SimButton, now: float) -> list[object]:
        raise OSError("pin 17 is gone")

    monkeypatch.setattr(SimButton, "poll", broken)
    assert main(["demo", "--hands", "1", "--plain", "--sensors", "rfid"]) == 1
    err = capsys.readouterr().err
    assert "demo: the simulated table did not start" in err
    assert "sensor button failed: OSError: pin 17 is gone" in err


def test_live_view_shows_each_alert_once_updated_in_place_until_resolved() -> None:
    """alerts.md "Lifecycle": the demo's live view keys alerts by id."""
    from hw_sim.harness.expectations import RaisedAlert
    from table_controller.commands.demo import _LiveView
    from table_controller.vocabulary.alerts import Alert

    view = _LiveView()
    view.refresh = lambda: None  # type: ignore[method-assign]
    first = Alert(code="PREMATURE_BOARD_CARD", hand=1, t=1.0, message="one card", ref=1)
    later = Alert(code="PREMATURE_BOARD_CARD", hand=1, t=2.0, message="two cards", ref=1)
    view.alert(RaisedAlert(first, 3, id=7))
    view.update(RaisedAlert(later, 4, id=7, update=True))
    assert [a.message for a in view.alerts.values()] == ["two cards"]
    view.resolved({"type": "alert_resolved", "id": 7, "by": "verified"})
    assert view.alerts == {}
