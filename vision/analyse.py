"""One frame in, every card out: detection, zone, and recognition together."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from table_controller.cards import Card, parse_card
from vision.arrays import Image, Vector
from vision.detect import DetectorConfig, check_frame, detect_cards
from vision.layout import TableLayout
from vision.recognise import Recogniser
from vision.templates import BACK


@dataclass(frozen=True, slots=True)
class SeenCard:
    """A card in one frame. ``label``: ``"As"`` style or ``"back"``; ``corners``: (4, 2) frame
    pixels, clockwise from a corner of a short side; ``zone``: None when off every zone."""

    label: str
    corners: Vector
    zone: str | None
    score: float
    margin: float

    @property
    def face_up(self) -> bool:
        return self.label != BACK

    @property
    def card(self) -> Card | None:
        return None if self.label == BACK else parse_card(self.label)

    @property
    def centre(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return float(c[0]), float(c[1])

    def to_json(self) -> dict[str, object]:
        return {"card": self.label,
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners]}


class FrameAnalyser:
    """Finds and reads every card of a frame against one deck, placing each in a zone."""

    def __init__(self, recogniser: Recogniser, *, layout: TableLayout | None = None,
                 detector: DetectorConfig | None = None) -> None:
        self.recogniser = recogniser
        self.layout = layout
        self.detector = detector or DetectorConfig(
            card_height=layout.card_height if layout is not None else None)

    def analyse(self, frame: Image) -> list[SeenCard]:
        frame = check_frame(frame)
        out = []
        for quad in detect_cards(frame, self.detector):
            rec = self.recogniser.classify(frame, quad)
            cx, cy = (float(v) for v in np.asarray(quad).mean(axis=0))
            zone = self.layout.zone_at(cx, cy) if self.layout is not None else None
            out.append(SeenCard(label=rec.label, corners=quad, zone=zone, score=rec.score,
                                margin=rec.margin))
        return out
