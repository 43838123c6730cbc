"""Frame sources: where the pictures come from.

- :class:`VideoCaptureSource`: ``cv2.VideoCapture`` on a USB camera index (``"0"``), a video file,
  or a stream URL (``rtsp://...``, ``http://...``).
- :class:`Picamera2Source`: the Raspberry Pi camera module through picamera2 (OpenCV cannot open
  it); picamera2 is imported only when this source is opened.
- The simulator's camera (``sim``, :data:`SOURCES`) implements the same interface.

Every source returns :class:`Frame` records stamped with ``time.monotonic()`` (or the clock it
was given), and ``None`` when no frame is available (end of a file, a camera that stopped).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from vision.arrays import Image

Clock = Callable[[], float]


class FrameSourceError(RuntimeError):
    """A source that cannot be opened or read; the message names it."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture (BGR, HxWx3 uint8), its capture time and its number in the stream."""

    image: Image
    t: float
    index: int


class FrameSource(Protocol):
    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


class VideoCaptureSource:
    """OpenCV capture: an int-like spec is a camera index, anything else a file or URL."""

    def __init__(self, spec: str | int, *, clock: Clock = time.monotonic) -> None:
        import cv2

        target: str | int = int(spec) if isinstance(spec, str) and spec.isdigit() else spec
        self._cap: Any = cv2.VideoCapture(target)
        if not self._cap.isOpened():
            raise FrameSourceError(f"cannot open video source {spec!r}")
        self._clock = clock
        self._index = 0
        self.spec = spec

    def read(self) -> Frame | None:
        ok, image = self._cap.read()
        if not ok or image is None:
            return None
        if image.ndim == 2:
            import cv2

            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        frame = Frame(image=np.ascontiguousarray(image, np.uint8), t=self._clock(),
                      index=self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self._cap.release()


class Picamera2Source:
    """The Pi camera module via picamera2, configured for BGR frames of ``size``."""

    def __init__(self, *, size: tuple[int, int] = (1280, 720),
                 clock: Clock = time.monotonic) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise FrameSourceError(
                "picamera2 is not installed (on Raspberry Pi OS: apt install python3-picamera2)"
            ) from exc
        self._cam: Any = Picamera2()
        # picamera2's "RGB888" is laid out B, G, R in memory: what OpenCV calls BGR.
        config = self._cam.create_video_configuration(main={"size": size, "format": "RGB888"})
        self._cam.configure(config)
        self._cam.start()
        self._clock = clock
        self._index = 0

    def read(self) -> Frame | None:
        image = self._cam.capture_array("main")
        if image is None:
            return None
        frame = Frame(image=np.ascontiguousarray(image[:, :, :3], np.uint8), t=self._clock(),
                      index=self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self._cam.stop()
        self._cam.close()


# Named sources: name -> "module:class", imported only when that source is opened (as the GPIO
# backends are), so the vision package never imports picamera2 or the simulator otherwise.
SOURCES: dict[str, str] = {
    "picamera2": "vision.sources:Picamera2Source",
    "sim": "hw_sim.devices.camera:VirtualCamera",
}


def open_source(spec: str, *, clock: Clock = time.monotonic) -> FrameSource:
    """Open a source by its configuration string: a name of :data:`SOURCES` (``picamera2``;
    ``sim``, the simulator's camera with an empty table, which scenarios drive directly), a
    camera index such as ``0``, a video file path or a stream URL."""
    target = SOURCES.get(spec)
    if target is None:
        return VideoCaptureSource(spec, clock=clock)
    module_name, class_name = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise FrameSourceError(f"camera source {spec!r} is not available: {exc}") from None
    source: FrameSource = getattr(module, class_name)(clock=clock)
    return source
