"""GPIO backends: the factory, the simulator's pins, the RPi.GPIO adapter (issue 3)."""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.gpio import (
    BackendUnavailable,
    Edge,
    GpioBackend,
    GpioError,
    Pull,
    open_backend,
)
from hw_sim.devices.gpio import Bounce, ManualClock, PinChange, SimGpio, bounce_burst


def test_sim_backend_by_name_never_imports_rpi() -> None:
    code = ("import sys\n"
            "from firmware_bridge.gpio import open_backend\n"
            "import firmware_bridge.button, firmware_bridge.outputs\n"
            "b = open_backend('sim')\n"
            "assert b.name == 'sim', b\n"
            "bad = sorted(m for m in sys.modules if m == 'RPi' or m.startswith('RPi.'))\n"
            "assert not bad, bad\n")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr


def test_rpi_backend_off_a_pi_names_the_missing_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "RPi", None)  # as on a machine without RPi.GPIO
    monkeypatch.setitem(sys.modules, "RPi.GPIO", None)
    with pytest.raises(BackendUnavailable) as info:
        open_backend("rpi")
    message = str(info.value)
    assert "needs the RPi.GPIO package" in message and "rpi-lgpio" in message
    assert "table-controller[pi]" in message


def test_rpi_backend_on_a_non_pi_with_rpi_gpio_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    class NotAPi(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            raise RuntimeError("This module can only be run on a Raspberry Pi!")

    monkeypatch.setitem(sys.modules, "RPi", types.ModuleType("RPi"))
    monkeypatch.setitem(sys.modules, "RPi.GPIO", NotAPi("RPi.GPIO"))
    with pytest.raises(BackendUnavailable, match="cannot open the GPIO chip"):
        open_backend("rpi")


def test_unknown_backend_lists_the_known_ones() -> None:
    with pytest.raises(GpioError, match="unknown GPIO backend 'gpiod'; choose one of: rpi, sim"):
        open_backend("gpiod")


# -- the RPi.GPIO adapter, against a stand-in module that records the calls ----------------------


class FakeRpiGpio(types.ModuleType):
    BCM, IN, OUT, HIGH, LOW = "BCM", "IN", "OUT", 1, 0
    PUD_UP, PUD_DOWN, PUD_OFF = "PUD_UP", "PUD_DOWN", "PUD_OFF"
    RISING, FALLING, BOTH = "RISING", "FALLING", "BOTH"

    def __init__(self) -> None:
        super().__init__("RPi.GPIO")
        self.calls: list[tuple[Any, ...]] = []
        self.levels: dict[int, int] = {}
        self.detectors: dict[int, Any] = {}

    def setwarnings(self, flag: bool) -> None:
        self.calls.append(("setwarnings", flag))

    def setmode(self, mode: str) -> None:
        self.calls.append(("setmode", mode))

    def setup(self, pin: int, direction: str, **kw: Any) -> None:
        self.calls.append(("setup", pin, direction, kw))
        if direction == self.OUT:
            self.levels[pin] = kw["initial"]
        else:
            self.levels.setdefault(pin, 1 if kw["pull_up_down"] == self.PUD_UP else 0)

    def input(self, pin: int) -> int:
        return self.levels[pin]

    def output(self, pin: int, value: int) -> None:
        self.calls.append(("output", pin, value))
        self.levels[pin] = value

    def add_event_detect(self, pin: int, edge: str, callback: Any) -> None:
        if pin in self.detectors:
            raise RuntimeError("Conflicting edge detection already enabled for this GPIO channel")
        self.calls.append(("add_event_detect", pin, edge))
        self.detectors[pin] = callback

    def remove_event_detect(self, pin: int) -> None:
        self.calls.append(("remove_event_detect", pin))
        del self.detectors[pin]

    def cleanup(self, pins: list[int]) -> None:
        self.calls.append(("cleanup", pins))


@pytest.fixture
def fake_rpi(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRpiGpio]:
    fake = FakeRpiGpio()
    package = types.ModuleType("RPi")
    package.GPIO = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "RPi", package)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", fake)
    yield fake


def test_rpi_adapter_drives_rpi_gpio(fake_rpi: FakeRpiGpio) -> None:
    gpio = open_backend("rpi")
    assert gpio.name == "rpi"
    assert fake_rpi.calls[:2] == [("setwarnings", False), ("setmode", "BCM")]
    gpio.setup_input(17, pull=Pull.UP)
    seen: list[tuple[int, bool]] = []
    falling: list[tuple[int, bool]] = []
    gpio.add_edge_callback(17, lambda p, lv: seen.append((p, lv)))
    gpio.add_edge_callback(17, lambda p, lv: falling.append((p, lv)), edge=Edge.FALLING)
    assert fake_rpi.calls.count(("add_event_detect", 17, "BOTH")) == 1  # one detector, fanned out
    fake_rpi.levels[17] = 0
    fake_rpi.detectors[17](17)
    fake_rpi.levels[17] = 1
    fake_rpi.detectors[17](17)
    assert seen == [(17, False), (17, True)] and falling == [(17, False)]
    assert gpio.read(17) is True
    gpio.setup_output(22, initial=False)
    gpio.write(22, True)
    assert ("setup", 22, "OUT", {"initial": 0}) in fake_rpi.calls
    assert ("output", 22, 1) in fake_rpi.calls
    with pytest.raises(GpioError, match="GPIO17 is not set up as an output"):
        gpio.write(17, True)
    with pytest.raises(GpioError, match="GPIO5 is not set up"):
        gpio.read(5)
    with pytest.raises(GpioError, match="not a BCM pin"):
        gpio.setup_output(40)
    gpio.cleanup()
    assert ("remove_event_detect", 17) in fake_rpi.calls
    assert fake_rpi.calls[-1] == ("cleanup", [17, 22])


def test_rpi_adapter_reports_driver_errors(fake_rpi: FakeRpiGpio) -> None:
    gpio = open_backend("rpi")
    gpio.setup_input(27, pull=Pull.DOWN)
    fake_rpi.detectors[27] = object()  # as when an old RPi.GPIO fails on a Pi 5
    with pytest.raises(GpioError, match="cannot watch edges of GPIO27: Conflicting"):
        gpio.add_edge_callback(27, lambda p, lv: None)


# -- the simulator's pins ------------------------------------------------------------------------


def test_sim_inputs_pulls_drive_and_edges() -> None:
    clock = ManualClock(10.0)
    gpio = SimGpio(clock=clock)
    gpio.setup_input(4, pull=Pull.UP)
    assert gpio.read(4) is True
    edges: list[tuple[int, bool]] = []
    rising: list[tuple[int, bool]] = []
    gpio.add_edge_callback(4, lambda p, lv: edges.append((p, lv)))
    gpio.add_edge_callback(4, lambda p, lv: rising.append((p, lv)), edge=Edge.RISING)
    clock.set(10.5)
    gpio.drive(4, False)
    gpio.drive(4, False)  # no change, no edge
    clock.set(11.0)
    gpio.release(4)
    assert edges == [(4, False), (4, True)] and rising == [(4, True)]
    assert gpio.history(4) == [PinChange(10.0, True), PinChange(10.5, False),
                               PinChange(11.0, True)]
    gpio.setup_input(5, pull=Pull.DOWN)
    assert gpio.read(5) is False
    with pytest.raises(GpioError, match="GPIO6 is not set up"):
        gpio.read(6)
    with pytest.raises(GpioError, match="not a BCM pin"):
        gpio.setup_input(99, pull=Pull.UP)


def test_sim_outputs_record_history_and_refuse_misuse() -> None:
    clock = ManualClock()
    gpio = SimGpio(clock=clock)
    gpio.setup_output(23)
    clock.set(1.0)
    gpio.write(23, True)
    gpio.write(23, True)  # unchanged: not a new entry
    clock.set(1.5)
    gpio.write(23, False)
    assert gpio.history(23) == [PinChange(0.0, False), PinChange(1.0, True),
                                PinChange(1.5, False)]
    assert gpio.read(23) is False
    with pytest.raises(GpioError, match="is an output"):
        gpio.drive(23, True)
    with pytest.raises(GpioError, match="not set up as an input"):
        gpio.add_edge_callback(23, lambda p, lv: None)
    gpio.setup_input(24, pull=Pull.UP)
    with pytest.raises(GpioError, match="not set up as an output"):
        gpio.write(24, True)


def test_bounce_bursts_are_seeded_and_end_on_the_contact() -> None:
    a = bounce_burst(start=1.0, to=False, away=None, bounce=Bounce(), rng=random.Random(7))
    b = bounce_burst(start=1.0, to=False, away=None, bounce=Bounce(), rng=random.Random(7))
    assert a == b
    assert a[0] == (1.0, False) and a[-1][1] is False
    assert all(1.0 <= t <= 1.004 for t, _ in a)
    assert [t for t, _ in a] == sorted(t for t, _ in a)
    assert 5 <= len(a) <= 17


def test_sim_press_plays_bursts_in_time_order() -> None:
    clock = ManualClock()
    gpio = SimGpio(clock=clock)
    gpio.setup_input(17, pull=Pull.UP)
    times: list[float] = []
    gpio.add_edge_callback(17, lambda p, lv: times.append(clock()))
    assert gpio.next_due() is None
    gpio.press(17, at=0.1, hold=0.2, rng=random.Random(3))
    assert gpio.run_until(0.05) == 0
    assert gpio.next_due() == 0.1
    applied = gpio.run_until(1.0)
    assert applied > 4 and gpio.pending == 0 and clock() == 1.0
    assert times == sorted(times) and times[0] >= 0.1 and times[-1] <= 0.3 + 0.004
    levels = [c.level for c in gpio.history(17)]
    assert levels[0] is True and levels[-1] is True
    assert all(x != y for x, y in itertools.pairwise(levels))


# -- configuration -------------------------------------------------------------------------------


def test_gpio_config_defaults_and_errors() -> None:
    from firmware_bridge.gpio.config import RESERVED_PINS, GpioConfig, GpioConfigError

    config = GpioConfig.from_dict({"backend": "sim"})
    assert (config.button, config.red, config.amber, config.buzzer) == (17, 22, 23, 24)
    assert not {config.button, config.red, config.amber, config.buzzer} & RESERVED_PINS
    assert GpioConfig().backend == "rpi"  # the simulator is never the default
    cases: list[tuple[dict[str, Any], str]] = [
        ({"backend": "gpiozero"}, "gpio.backend: 'gpiozero' is not one of rpi, sim"),
        ({"red": 40}, "gpio.red: 40 is not a BCM pin number"),
        ({"buzzer": 17}, "gpio.buzzer: pin 17 is also gpio.button"),
        ({"debounce": 2}, "gpio.debounce: 2 must be seconds"),
        ({"outputs_active_low": "yes"}, "gpio.outputs_active_low: 'yes' is not true/false"),
        ({"bell": 5}, "gpio: unknown key(s) ['bell']"),
    ]
    for table, message in cases:
        with pytest.raises(GpioConfigError) as info:
            GpioConfig.from_dict(table)
        assert str(info.value).startswith(message), (table, str(info.value))


# -- one contract, every backend (the RPi.GPIO adapter on the stand-in module) -------------------


@pytest.fixture(params=["sim", "rpi"])
def contract(request: pytest.FixtureRequest,
             monkeypatch: pytest.MonkeyPatch) -> tuple[GpioBackend, Callable[[int, bool], None]]:
    """(backend, drive(pin, level)): drive plays the outside world on an input pin."""
    if request.param == "sim":
        sim = SimGpio(clock=ManualClock())
        return sim, sim.drive
    fake = FakeRpiGpio()
    package = types.ModuleType("RPi")
    package.GPIO = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "RPi", package)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", fake)
    backend = open_backend("rpi")

    def drive(pin: int, level: bool) -> None:
        if fake.levels.get(pin) != int(level):
            fake.levels[pin] = int(level)
            if pin in fake.detectors:
                fake.detectors[pin](pin)

    return backend, drive


def test_backend_contract(contract: tuple[GpioBackend, Callable[[int, bool], None]]) -> None:
    backend, drive = contract
    backend.setup_input(17, pull=Pull.UP)
    assert backend.read(17) is True
    edges: list[tuple[int, bool]] = []
    backend.add_edge_callback(17, lambda p, lv: edges.append((p, lv)))
    drive(17, False)
    drive(17, True)
    assert edges == [(17, False), (17, True)]
    backend.remove_edge_callbacks(17)
    drive(17, False)
    assert len(edges) == 2 and backend.read(17) is False
    backend.setup_output(22, initial=True)
    assert backend.read(22) is True
    backend.write(22, False)
    assert backend.read(22) is False
    with pytest.raises(GpioError, match="not set up as an output"):
        backend.write(17, True)
    with pytest.raises(GpioError, match="GPIO9 is not set up"):
        backend.read(9)
    with pytest.raises(GpioError, match="not a BCM pin"):
        backend.setup_input(28, pull=Pull.UP)
    with pytest.raises(GpioError, match="not set up as an input"):
        backend.add_edge_callback(22, lambda p, lv: None)
    backend.cleanup()
    with pytest.raises(GpioError):
        backend.write(22, True)
