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

import math
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hw_sim.devices import card_art
from table_controller.vocabulary.cards import Card
from table_controller.vocabulary.zones import check_zone
from vision import props, render, scenes
from vision.arrays import Image, Vector
from vision.layout import TableLayout, default_layout
from vision.render import Sprite
from vision.sources import Frame

LIGHTS: dict[str, tuple[tuple[float, float, float], float]] = {
    # the room's light: white balance gains (BGR, vision.scenes.WHITE_BALANCE) and level
    "neutral": (scenes.WHITE_BALANCE["neutral"], 1.0),
    "cool": (scenes.WHITE_BALANCE["cool"], 1.0),
    "warm": (scenes.WHITE_BALANCE["warm"], 1.0),
    "low": (scenes.WHITE_BALANCE["neutral"], 0.5),
}
SPRITES_KEPT = 64
"""Cards warped onto where they lie that a caching camera keeps (about 0.25 MB each)."""
HAND_MM = 1.15  # a hand over the felt is a little nearer the camera than the cloth


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
    lifted: bool = False

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


@dataclass(frozen=True, slots=True)
class Cover:
    """Something over a zone's cards: ``kind`` ``chip``, ``protector`` (lying on them) or
    ``hand`` (a hand reaching over the zone, its arm from the nearer edge of the frame)."""

    zone: str
    kind: str


class VirtualCamera:
    """Renders scenes; a frame source (``read``/``close``) over the scene last set.

    ``felt``: a cloth of :data:`vision.props.FELTS` by name, or a BGR colour; ``light``: one of
    :data:`LIGHTS`.

    ``cache``: how many frames, and how many felts with cards laid on them, to keep (0: none).
    Rendering is deterministic, so a frame rendered before is returned again (a copy), and a
    new one starts from the longest run of its first cards already laid on the felt (cards are
    drawn one over the other in order: the felt after the first k cards depends on those k
    only) and draws the rest, its covers and its light: a card dealt costs one card's
    drawing, not the whole table's. Each card is warped onto where it lies once
    (:data:`SPRITES_KEPT` kept). The frames are equal to those rendered afresh."""

    def __init__(self, *, layout: TableLayout | None = None, seed: int = 0,
                 noise_sigma: float = 2.0, max_rotation: float = 3.0, max_offset: float = 2.0,
                 felt: str | tuple[int, int, int] = render.FELT_BGR, light: str = "neutral",
                 clock: Callable[[], float] = time.monotonic, cache: int = 0) -> None:
        self.layout = layout or default_layout()
        self.cache = cache
        self._canvases: OrderedDict[tuple[SceneCard, ...], Image] = OrderedDict()
        self._frames: OrderedDict[tuple[object, ...], Image] = OrderedDict()
        self._sprites: OrderedDict[SceneCard, Sprite | None] = OrderedDict()
        self.seed = seed
        self.noise_sigma = noise_sigma
        self.max_rotation = max_rotation
        self.max_offset = max_offset
        self._clock = clock
        self._scene: tuple[SceneCard, ...] = ()
        self._covers: tuple[Cover, ...] = ()
        self._index = 0
        if isinstance(felt, str) and felt not in props.FELTS:
            raise ValueError(f"unknown felt {felt!r}; one of {', '.join(props.FELTS)}")
        if light not in LIGHTS:
            raise ValueError(f"unknown light {light!r}; one of {', '.join(LIGHTS)}")
        colour = props.FELTS[felt] if isinstance(felt, str) else felt
        self._felt = render.felt(self.layout.width, self.layout.height,
                                 np.random.default_rng(seed), colour)
        if felt == "printed":
            scenes.print_cloth(self._felt, self._plane_to_image(),
                               np.random.default_rng(seed + 2))
        gains, level = LIGHTS[light]
        field_ = render.light(np.full_like(self._felt, 200), np.random.default_rng(seed + 1),
                              gain=0.08).astype(np.float32) / 200.0
        # the light as a fixed-point gain (1/128 steps): cv2.multiply applies it in one pass
        gain = field_ * np.array(gains, np.float32) * level
        self._light = np.clip(np.round(gain * 128), 0, 255).astype(np.uint8)
        self._px_per_mm = self.layout.card_height / scenes.CARD_MM

    def _plane_to_image(self) -> Vector:
        """Table plane millimetres (vision.scenes' plane) to this camera's pixels: it looks
        straight down on the default layout, scaled to the frame."""
        s = self.layout.width / 1280.0
        k = s / scenes.MM_PER_PX
        return np.array([[k, 0, 640.0 * s], [0, k, 360.0 * s], [0, 0, 1]], np.float64)

    def set_scene(self, scene: Sequence[SceneCard], covers: Sequence[Cover] = ()) -> None:
        """Replace what lies on the felt; raises ValueError naming a bad zone or slot."""
        for sc in scene:
            check_zone(sc.zone)
            self.layout.slot(sc.zone, sc.slot)
        for cover in covers:
            self._zone_centre(cover.zone)
        self._scene = tuple(scene)
        self._covers = tuple(covers)

    def _zone_centre(self, zone: str) -> tuple[float, float]:
        check_zone(zone)
        slots = self.layout.slots.get(zone)
        if not slots:
            raise ValueError(f"zone {zone!r} is not in the camera's view")
        return (sum(s.x for s in slots) / len(slots), sum(s.y for s in slots) / len(slots))

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
        quad = render.card_quad(slot.x + dx, slot.y + dy, h * card_art.WIDTH / card_art.HEIGHT,
                                h, slot.angle + rot)
        if sc.lifted:
            # raised at its far end, towards the camera: the far edge looks nearer the
            # near one and a little wider (seen from above, a card tilted about 40 degrees)
            near = (quad[2] + quad[3]) / 2
            far = quad[:2] - near
            quad[:2] = near + far * 0.75 + (quad[:2] - quad[:2].mean(axis=0)) * 0.12
        return quad

    def _draw_cover(self, frame: Image, ids: Image, cover: Cover, k: int) -> None:
        rng = np.random.default_rng(zlib.crc32(f"{self.seed}:{cover.zone}:{cover.kind}"
                                               .encode()))
        cx, cy = self._zone_centre(cover.zone)
        mm = self._px_per_mm
        if cover.kind == "chip":
            centre = (cx + float(rng.uniform(-12, 12)) * mm, cy + float(rng.uniform(-8, 8)) * mm)
            colour = props.CHIP_COLOURS[int(rng.integers(len(props.CHIP_COLOURS)))]
            props.chip(frame, ids, props.disc(centre, 19.5 * mm), k, colour, (0.0, 0.0))
        elif cover.kind == "protector":
            centre = (cx + float(rng.uniform(-10, 10)) * mm, cy + float(rng.uniform(-6, 6)) * mm)
            props.protector(frame, ids, props.disc(centre, float(rng.uniform(20, 27)) * mm), k,
                            rng)
        else:
            height, width = frame.shape[:2]
            palm = (cx + float(rng.uniform(-15, 15)) * mm, cy + float(rng.uniform(-10, 10)) * mm)
            edge = (palm[0] + float(rng.uniform(-0.1, 0.1)) * width,
                    height + 60.0 if palm[1] > height * 0.35 else -60.0)
            towards = math.atan2(palm[1] - edge[1], palm[0] - edge[0])
            towards += float(rng.uniform(-0.4, 0.4))
            scale = mm * HAND_MM
            hand, arm = props.hand_shapes(palm, towards, scale, np.array(edge), rng)
            skin = props.SKIN[int(rng.integers(len(props.SKIN)))]
            sleeve = props.SLEEVES[int(rng.integers(len(props.SLEEVES)))]
            props.draw_reach(frame, ids, hand, arm, k, skin, sleeve,
                             np.array([8.0, 10.0]) * scale)

    def render(self, scene: Sequence[SceneCard] | None = None, *, frame_index: int = 0,
               covers: Sequence[Cover] | None = None) -> Image:
        """One frame of ``scene`` and ``covers`` (default: those set last). Noise is seeded by
        the camera's seed and ``frame_index``, so a frame is reproducible."""
        cards = self._scene if scene is None else tuple(scene)
        over = self._covers if covers is None else tuple(covers)
        key = (cards, over, frame_index if self.noise_sigma > 0 else None)
        if self.cache:
            known = self._frames.get(key)
            if known is not None:
                self._frames.move_to_end(key)
                return known.copy()
        frame = self._lay(cards)
        if over:
            ids = np.zeros(frame.shape[:2], np.int16)
            # chips and protectors lie on the cards, hands are above everything
            for k, cover in enumerate(sorted(over, key=lambda c: c.kind == "hand"), 1):
                self._draw_cover(frame, ids, cover, k)
        lit = np.asarray(cv2.multiply(frame, self._light, scale=1 / 128), np.uint8)
        rng = np.random.default_rng((self.seed, frame_index))
        out = render.noise(lit, rng, self.noise_sigma)
        if self.cache:
            _keep(self._frames, key, out.copy(), self.cache)
        return out

    def _lay(self, cards: tuple[SceneCard, ...]) -> Image:
        """The felt with ``cards`` drawn on it in order (a new array), from the longest run of
        first cards kept (:attr:`cache`); keeps the felt with all of them, and with all but
        the last (the stub's top card comes last: the next card dealt is drawn after the
        others)."""
        start, base = 0, self._felt
        if self.cache:
            for k in range(len(cards), 0, -1):
                known = self._canvases.get(cards[:k])
                if known is not None:
                    self._canvases.move_to_end(cards[:k])
                    start, base = k, known
                    break
        frame = base.copy()
        for i in range(start, len(cards)):
            if self.cache and i == len(cards) - 1 and i > start:
                _keep(self._canvases, cards[:i], frame.copy(), self.cache)
            render.lay(frame, self._sprite(cards[i]))
        if self.cache and cards and start < len(cards):
            _keep(self._canvases, cards, frame.copy(), self.cache)
        return frame

    def _sprite(self, sc: SceneCard) -> Sprite | None:
        """``sc`` warped onto where it lies (kept with :attr:`cache`: a card lies where its
        scene card says, the same in every frame)."""
        if not self.cache:
            return render.sprite(sc.art(), self.quad_of(sc), self._felt.shape[:2])
        if sc in self._sprites:
            self._sprites.move_to_end(sc)
            return self._sprites[sc]
        made = render.sprite(sc.art(), self.quad_of(sc), self._felt.shape[:2])
        _keep(self._sprites, sc, made, SPRITES_KEPT)
        return made

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


def _keep(kept: OrderedDict[Any, Any], key: Any, image: Any, size: int) -> None:
    """Keep ``image`` under ``key``, the least recently used dropped beyond ``size``."""
    kept[key] = image
    kept.move_to_end(key)
    while len(kept) > size:
        kept.popitem(last=False)
