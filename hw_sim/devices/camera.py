"""The simulator's camera: renders the felt seen from above from a simple scene description.

A scene is a list of :class:`SceneCard` (a card or None for an unknown card, its zone, its slot
in the zone, face up or down, and whether it is a joker). Each card lies in its slot of the
default layout (:func:`vision.layout.default_layout`) turned and shifted a little, by an amount
seeded from the camera's seed and the card's place, so a card that stays put stays put from
frame to frame. Frames get uneven light and sensor noise. The camera serves frames through the
vision package's frame-source interface (``read() -> Frame``) and can write a video file that
``cv2.VideoCapture`` reads back.

It does not emulate: motion blur, hands over the table, overlapping cards, lens distortion.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from hw_sim.devices import card_art
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.zones import check_zone
from vision import render
from vision.arrays import Image, Vector
from vision.layout import TableLayout, default_layout
from vision.sources import Frame


@dataclass(frozen=True, slots=True)
class SceneCard:
    """A card on the felt. ``card`` None: a card whose identity the model does not know (it is
    drawn face down), or with ``joker`` a joker (its face drawn when ``face_up``; rules.md §5).
    ``rotation``/``offset`` override the seeded jitter when given."""

    card: Card | None
    zone: str
    slot: int
    face_up: bool = False
    rotation: float | None = None
    offset: tuple[float, float] | None = None
    joker: bool = False

    def __post_init__(self) -> None:
        if self.joker and self.card is not None:
            raise ValueError(f"a joker has no rank or suit (got card {self.card})")

    def art(self) -> Image:
        """The picture the camera sees of this card: its face, the joker's, or the back."""
        if not self.face_up:
            return card_art.back()
        if self.joker:
            return card_art.joker()
        return card_art.face(self.card) if self.card is not None else card_art.back()


class VirtualCamera:
    """Renders scenes; a frame source (``read``/``close``) over the scene last set."""

    def __init__(self, *, layout: TableLayout | None = None, seed: int = 0,
                 noise_sigma: float = 2.0, max_rotation: float = 3.0, max_offset: float = 2.0,
                 felt: tuple[int, int, int] = render.FELT_BGR,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.layout = layout or default_layout()
        self.seed = seed
        self.noise_sigma = noise_sigma
        self.max_rotation = max_rotation
        self.max_offset = max_offset
        self._clock = clock
        self._scene: tuple[SceneCard, ...] = ()
        self._index = 0
        self._felt = render.felt(self.layout.width, self.layout.height,
                                 np.random.default_rng(seed), felt)
        self._light = render.light(np.full_like(self._felt, 200), np.random.default_rng(seed + 1),
                                   gain=0.08).astype(np.float32) / 200.0

    def set_scene(self, scene: Sequence[SceneCard]) -> None:
        """Replace what lies on the felt; raises ValueError naming a bad zone or slot."""
        for sc in scene:
            check_zone(sc.zone)
            self.layout.slot(sc.zone, sc.slot)
        self._scene = tuple(scene)

    def quad_of(self, sc: SceneCard) -> Vector:
        """Where ``sc`` lies: its corners in frame pixels (card image top-left first)."""
        slot = self.layout.slot(sc.zone, sc.slot)
        rng = np.random.default_rng(zlib.crc32(f"{self.seed}:{sc.zone}:{sc.slot}".encode()))
        rot = float(rng.uniform(-self.max_rotation, self.max_rotation))
        dx, dy = (float(v) for v in rng.uniform(-self.max_offset, self.max_offset, 2))
        if sc.rotation is not None:
            rot = sc.rotation
        if sc.offset is not None:
            dx, dy = sc.offset
        h = self.layout.card_height
        return render.card_quad(slot.x + dx, slot.y + dy, h * card_art.WIDTH / card_art.HEIGHT,
                                h, slot.angle + rot)

    def render(self, scene: Sequence[SceneCard] | None = None, *, frame_index: int = 0) -> Image:
        """One frame of ``scene`` (default: the scene set last). Noise is seeded by the camera's
        seed and ``frame_index``, so a frame is reproducible."""
        cards = self._scene if scene is None else tuple(scene)
        frame = self._felt.copy()
        for sc in cards:
            render.paste(frame, sc.art(), self.quad_of(sc))
        lit = np.clip(frame.astype(np.float32) * self._light, 0, 255).astype(np.uint8)
        rng = np.random.default_rng((self.seed, frame_index))
        return render.noise(lit, rng, self.noise_sigma)

    def read(self) -> Frame:
        image = self.render(frame_index=self._index)
        frame = Frame(image=image, t=self._clock(), index=self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self._scene = ()

    def write_video(self, path: str | Path, scenes: Sequence[Sequence[SceneCard]], *,
                    fps: float = 30.0, frames_per_scene: int = 1) -> Path:
        """Write ``scenes`` (each held for ``frames_per_scene`` frames) as an MJPG AVI file that
        ``cv2.VideoCapture`` reads back; returns the path."""
        path = Path(path)
        size = (self.layout.width, self.layout.height)
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, size)
        if not writer.isOpened():
            raise OSError(f"cannot write video {path}")
        try:
            index = 0
            for scene in scenes:
                for _ in range(frames_per_scene):
                    writer.write(self.render(scene, frame_index=index))
                    index += 1
        finally:
            writer.release()
        return path
