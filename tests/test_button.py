"""The green button through the real debouncer, on simulated pins with seeded bounce (issue 3)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.button import DEBOUNCE_S, ShufflerButton
from firmware_bridge.gpio import Pull
from hw_sim.devices.gpio import Bounce, ManualClock, SimGpio
from table_controller.vocabulary.observations import ButtonPressed

PIN = 17
TICK = 0.005  # the daemon loop's period


def rig(start: float = 100.0) -> tuple[ManualClock, SimGpio, ShufflerButton]:
    clock = ManualClock(start)
    gpio = SimGpio(clock=clock)
    return clock, gpio, ShufflerButton(gpio, pin=PIN, clock=clock)


def run(clock: ManualClock, gpio: SimGpio, button: ShufflerButton, until: float,
        tick: float | None = TICK) -> list[ButtonPressed]:
    """Play the simulation to ``until``, calling update every ``tick`` (None: once at the end)."""
    presses: list[ButtonPressed] = []
    if tick is not None:
        t = clock()
        while t < until:
            t = min(t + tick, until)
            gpio.run_until(t)
            presses += button.update()
    else:
        gpio.run_until(until)
    presses += button.update()
    return presses


@pytest.mark.parametrize("seed", range(40))
def test_a_bouncy_press_is_one_press_at_its_first_contact(seed: int) -> None:
    clock, gpio, button = rig()
    rng = random.Random(seed)
    bounce = Bounce(duration=rng.uniform(0.001, 0.012), min_extra=1, max_extra=15)
    gpio.press(PIN, at=100.2, hold=rng.uniform(0.06, 0.4), rng=rng, bounce=bounce)
    assert len(gpio.history(PIN)) == 1
    presses = run(clock, gpio, button, 101.0)
    assert presses == [ButtonPressed(t=100.2)]
    assert len(gpio.history(PIN)) > 5  # the bursts really reached the pin
    assert not button.pressed


@pytest.mark.parametrize("tick", [0.001, 0.010, 0.050, None])
def test_press_count_does_not_depend_on_how_often_update_runs(tick: float | None) -> None:
    clock, gpio, button = rig()
    rng = random.Random(11)
    for n in range(5):
        gpio.press(PIN, at=100.5 + n, hold=0.15, rng=rng, bounce=Bounce(duration=0.008))
    presses = run(clock, gpio, button, 106.0, tick)
    assert presses == [ButtonPressed(t=100.5 + n) for n in range(5)]


def test_short_spikes_are_not_presses() -> None:
    clock, gpio, button = rig()
    gpio.schedule(PIN, [(100.1, False), (100.1 + DEBOUNCE_S * 0.6, None),
                        (100.3, False), (100.305, None), (100.31, False), (100.32, None)])
    assert run(clock, gpio, button, 101.0) == []


def test_release_bounce_and_a_second_press() -> None:
    clock, gpio, button = rig()
    rng = random.Random(5)
    gpio.press(PIN, at=100.1, hold=0.1, rng=rng, bounce=Bounce(duration=0.01, max_extra=20))
    gpio.press(PIN, at=100.3, hold=0.1, rng=rng, bounce=Bounce(duration=0.01, max_extra=20))
    assert run(clock, gpio, button, 101.0) == [ButtonPressed(t=100.1), ButtonPressed(t=100.3)]


def test_a_button_held_at_start_is_not_a_press() -> None:
    clock = ManualClock(50.0)
    gpio = SimGpio(clock=clock)
    gpio.setup_input(PIN, pull=Pull.UP)
    gpio.drive(PIN, False)  # stuck down before the controller starts
    button = ShufflerButton(gpio, pin=PIN, clock=clock)
    assert button.pressed
    clock.set(51.0)
    assert button.update() == []
    gpio.release(PIN)
    clock.set(51.5)
    assert button.update() == []
    clock.set(52.0)
    gpio.drive(PIN, False)
    clock.set(52.1)
    assert button.update() == [ButtonPressed(t=52.0)]


def test_active_high_wiring() -> None:
    clock = ManualClock()
    gpio = SimGpio(clock=clock)
    button = ShufflerButton(gpio, pin=PIN, clock=clock, active_low=False)
    gpio.press(PIN, at=0.5, hold=0.1, rng=random.Random(1), active_low=False)
    assert run(clock, gpio, button, 1.0) == [ButtonPressed(t=0.5)]


def test_missed_edges_are_caught_by_polling() -> None:
    clock, gpio, button = rig()
    button.close()  # no edge callbacks any more: as if the kernel dropped them
    gpio.press(PIN, at=100.1, hold=0.2, rng=random.Random(2))
    presses = run(clock, gpio, button, 101.0, tick=0.005)
    assert len(presses) == 1
    assert 100.1 <= presses[0].t <= 100.1 + 0.005 + 0.004  # seen by a poll, within one tick


def test_bad_debounce() -> None:
    with pytest.raises(ValueError, match="debounce"):
        ShufflerButton(SimGpio(clock=ManualClock()), pin=PIN, debounce=0)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1),
       presses=st.lists(st.tuples(st.floats(0.06, 0.5), st.floats(0.06, 0.5)), min_size=1,
                        max_size=6),
       bounce_ms=st.floats(0.5, 15.0),
       tick=st.sampled_from([0.001, 0.005, 0.02, 0.1]))
def test_any_bouncy_sequence_gives_exactly_its_presses(
        seed: int, presses: list[tuple[float, float]], bounce_ms: float, tick: float) -> None:
    """Presses held and released for at least 60 ms, bouncing for up to 15 ms, are each reported
    exactly once at their first contact, however often the loop polls."""
    clock, gpio, button = rig()
    rng = random.Random(seed)
    bounce = Bounce(duration=bounce_ms / 1000, min_extra=0, max_extra=12)
    t = 100.1
    starts = []
    for hold, gap in presses:
        gpio.press(PIN, at=t, hold=hold, rng=rng, bounce=bounce)
        starts.append(t)
        t += hold + gap
    reported = run(clock, gpio, button, t + 0.2, tick)
    assert [p.t for p in reported] == starts
