"""Alert lamps and buzzer: patterns per severity, checked on the simulated pins' history."""

from __future__ import annotations

import pytest

from firmware_bridge.outputs import PATTERNS, AlertOutputs, Pattern, blink, steady
from hw_sim.devices.gpio import ManualClock, PinChange, SimGpio
from table_controller.vocabulary.alerts import Alert, Severity

RED, AMBER, BUZZER = 22, 23, 24


def rig(*, active_low: bool = False) -> tuple[ManualClock, SimGpio, AlertOutputs]:
    clock = ManualClock(0.0)
    gpio = SimGpio(clock=clock)
    return clock, gpio, AlertOutputs(gpio, red=RED, amber=AMBER, buzzer=BUZZER,
                                     active_low=active_low)


def play(clock: ManualClock, outputs: AlertOutputs, until: float, step: float = 0.05) -> None:
    """The daemon loop: update every ``step`` seconds until ``until``."""
    n = round((until - clock()) / step)
    start = clock()
    for i in range(1, n + 1):
        clock.set(start + i * step)
        outputs.update(clock())


def showing(outputs: AlertOutputs) -> Severity | None:
    return outputs.showing  # read again: not narrowed by an earlier assert


def changes(gpio: SimGpio, pin: int) -> list[tuple[float, bool]]:
    return [(round(c.t, 6), c.level) for c in gpio.history(pin)]


def test_stop_red_steady_buzzer_until_acknowledged() -> None:
    clock, gpio, outputs = rig()
    clock.set(1.0)
    outputs.show_alert(Alert(code="DUPLICATE_CARD", hand=3, t=1.0), clock())
    assert outputs.showing is Severity.STOP
    play(clock, outputs, 2.6)
    outputs.acknowledge(clock())
    play(clock, outputs, 4.0)
    assert changes(gpio, RED) == [(0.0, False), (1.0, True)]
    assert changes(gpio, AMBER) == [(0.0, False)]
    assert changes(gpio, BUZZER) == [(0.0, False), (1.0, True), (1.5, False), (2.0, True),
                                     (2.5, False)]
    outputs.resolve("DUPLICATE_CARD", 4.0)
    assert gpio.history(RED)[-1] == PinChange(4.0, False) and outputs.showing is None


def test_acknowledge_silences_a_sounding_buzzer_at_once() -> None:
    clock, gpio, outputs = rig()
    outputs.show("FOREIGN_CARD", Severity.STOP, 0.0)
    play(clock, outputs, 0.2)
    outputs.acknowledge(clock())
    assert changes(gpio, BUZZER) == [(0.0, False), (0.0, True), (0.2, False)]
    play(clock, outputs, 3.0)
    assert changes(gpio, BUZZER)[-1] == (0.2, False)
    outputs.show("DUPLICATE_CARD", Severity.STOP, clock())  # a new alert sounds again
    assert changes(gpio, BUZZER)[-1] == (3.0, True)


def test_acknowledging_one_alert_leaves_the_others_sounding() -> None:
    """The floor acknowledges one alert by its code: only that one's buzzer goes quiet."""
    clock, gpio, outputs = rig()
    outputs.show("FOREIGN_CARD", Severity.STOP, 0.0)
    outputs.show("DUPLICATE_CARD", Severity.STOP, 0.0)  # the newest shows
    outputs.acknowledge(0.2, key="FOREIGN_CARD")
    play(clock, outputs, 0.6)
    assert changes(gpio, BUZZER)[-1] == (0.5, False)  # still the stop pattern
    play(clock, outputs, 1.1)
    assert changes(gpio, BUZZER)[-1] == (1.0, True)
    outputs.acknowledge(clock(), key="DUPLICATE_CARD")
    assert changes(gpio, BUZZER)[-1] == (1.1, False)
    outputs.resolve("DUPLICATE_CARD", clock())  # back to the one acknowledged before
    play(clock, outputs, 3.0)
    assert changes(gpio, BUZZER)[-1] == (1.1, False) and outputs.showing is Severity.STOP
    outputs.acknowledge(clock(), key="JOKER")  # not showing: nothing changes


def test_fix_amber_steady_two_beeps() -> None:
    clock, gpio, outputs = rig()
    outputs.show("FOUR_CARD_FLOP", Severity.FIX, 0.0)
    play(clock, outputs, 5.0)
    assert changes(gpio, AMBER) == [(0.0, False), (0.0, True)]
    assert changes(gpio, BUZZER) == [(0.0, False), (0.0, True), (0.15, False), (0.3, True),
                                     (0.45, False)]
    assert changes(gpio, RED) == [(0.0, False)]
    assert outputs.showing is Severity.FIX  # stays until the controller resolves it
    outputs.resolve("FOUR_CARD_FLOP", 5.0)
    assert changes(gpio, AMBER)[-1] == (5.0, False)


def test_warn_blinks_then_goes_out_by_itself() -> None:
    clock, gpio, outputs = rig()
    outputs.show("MISSING_BURN", Severity.WARN, 0.0)
    play(clock, outputs, 12.0)
    amber = changes(gpio, AMBER)
    assert amber[:5] == [(0.0, False), (0.0, True), (0.5, False), (1.0, True), (1.5, False)]
    assert amber[-1] == (9.5, False) and len(amber) == 21
    assert changes(gpio, BUZZER) == [(0.0, False), (0.0, True), (0.15, False)]
    assert outputs.showing is None


def test_fault_alternates_and_info_flashes_once() -> None:
    clock, gpio, outputs = rig()
    outputs.show("SENSOR_OFFLINE", Severity.FAULT, 0.0)
    play(clock, outputs, 2.0)
    assert changes(gpio, RED) == [(0.0, False), (0.0, True), (0.5, False), (1.0, True),
                                  (1.5, False), (2.0, True)]
    assert changes(gpio, AMBER) == [(0.0, False), (0.5, True), (1.0, False), (1.5, True),
                                    (2.0, False)]
    assert changes(gpio, BUZZER) == [(0.0, False), (0.0, True), (1.0, False)]
    outputs.clear(2.0)
    gpio.clear_history()
    outputs.show("SENSOR_RECOVERED", Severity.INFO, 2.0)
    play(clock, outputs, 3.0)
    assert changes(gpio, AMBER) == [(2.0, True), (2.3, False)]
    assert changes(gpio, RED) == [] and changes(gpio, BUZZER) == []
    assert outputs.showing is None


def test_most_serious_alert_wins_and_resolving_falls_back() -> None:
    clock, gpio, outputs = rig()
    outputs.show("SENSOR_OFFLINE", Severity.FAULT, 0.0)
    clock.set(0.2)
    outputs.show("EXPOSED_CARD_REPLACE", Severity.FIX, 0.2)
    clock.set(0.3)
    outputs.show("CARD_EXPOSED_BY_PLAYER", Severity.INFO, 0.3)  # below fix: not shown
    assert outputs.showing is Severity.FIX
    play(clock, outputs, 1.0)
    assert changes(gpio, RED)[-1] == (0.2, False) and changes(gpio, AMBER)[-1] == (0.2, True)
    outputs.resolve("EXPOSED_CARD_REPLACE", 1.0)
    assert showing(outputs) is Severity.FAULT
    assert changes(gpio, RED)[-1] == (1.0, True)  # the fault's own phase at t=1.0
    outputs.resolve("NOT_ACTIVE", 1.0)  # harmless


def test_active_low_driver_board() -> None:
    _, gpio, outputs = rig(active_low=True)
    assert gpio.read(RED) is True  # off on an active-low board
    outputs.show("FOREIGN_CARD", Severity.STOP, 0.0)
    assert gpio.read(RED) is False and gpio.read(BUZZER) is False
    outputs.close()
    assert gpio.read(RED) is True and gpio.read(BUZZER) is True and gpio.read(AMBER) is True


def test_next_change_steps_exactly() -> None:
    clock, _, outputs = rig()
    outputs.show("FOUR_CARD_FLOP", Severity.FIX, 10.0)
    times: list[float] = []
    when = outputs.next_change(10.0)
    while when is not None and len(times) < 10:
        times.append(round(when, 6))
        clock.set(when)
        outputs.update(when)
        when = outputs.next_change(when)
    assert times == [10.15, 10.3, 10.45, 10.6]


def test_patterns() -> None:
    assert steady().level_at(1e9) and steady().next_change(5.0) is None
    once = blink(0.1, 0.2, times=2)
    assert [once.level_at(t) for t in (0.0, 0.15, 0.35, 0.45, 0.7)] == [
        True, False, True, False, False]
    assert Pattern().level_at(0.0) is False
    assert set(PATTERNS) == set(Severity)


def test_bad_configuration() -> None:
    gpio = SimGpio(clock=ManualClock())
    with pytest.raises(ValueError, match="three different pins"):
        AlertOutputs(gpio, red=1, amber=1, buzzer=2)
    with pytest.raises(ValueError, match="no output pattern for severity"):
        AlertOutputs(gpio, red=1, amber=2, buzzer=3,
                     patterns={Severity.STOP: PATTERNS[Severity.STOP]})
