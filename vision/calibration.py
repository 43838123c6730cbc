"""Camera settings and zone polygons from the table's configuration, and the check picture.

The table's configuration is a TOML file; the camera reads its ``[vision]`` table::

    [vision]
    source = "0"            # camera index, video file, stream URL, "picamera2" or "sim"
    deck = "casino-red"     # enrolled deck name
    width = 1280            # frame size the zones are drawn for
    height = 720
    card_height = 100       # a card's height in pixels as the camera sees it
    confirm_frames = 3      # frames a card must be seen in before it counts
    table = "table.npz"     # the calibrated empty table (vision calibrate --empty ...)

    [vision.zones]          # any zone not given keeps the default layout's polygon
    board = [[426, 252], [854, 252], [854, 396], [426, 396]]

``table-controller vision calibrate`` draws the zones on a frame and saves it as a PNG for the
installer to check; ``--print-zones`` prints the current zones in this format to edit.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.analyse import SeenCard
from vision.arrays import Image
from vision.layout import TableLayout, default_layout, parse_zones


class CalibrationError(ValueError):
    """A configuration the camera cannot use; the message names the file and key."""


@dataclass(frozen=True, slots=True)
class VisionConfig:
    source: str
    deck: str | None
    layout: TableLayout
    confirm_frames: int = 3
    table: str | None = None
    """The table's calibration file (``vision calibrate --empty ... --save-table FILE``)."""


def config_from_mapping(data: Mapping[str, Any], *, where: str = "configuration"
                        ) -> VisionConfig:
    """Build from the parsed ``[vision]`` table (possibly empty)."""
    try:
        width = int(data.get("width", 1280))
        height = int(data.get("height", 720))
        layout = default_layout(width=width, height=height)
        card_height = float(data.get("card_height", layout.card_height))
        confirm = int(data.get("confirm_frames", 3))
    except (TypeError, ValueError) as exc:
        raise CalibrationError(f"{where}: [vision] has a bad number ({exc})") from None
    if card_height <= 0 or confirm < 1:
        raise CalibrationError(f"{where}: card_height must be > 0 and confirm_frames >= 1")
    zones = dict(layout.zones)
    given = data.get("zones", {})
    if not isinstance(given, Mapping):
        raise CalibrationError(f"{where}: [vision.zones] must be a table of polygons")
    try:
        zones.update(parse_zones(given))
    except ValueError as exc:
        raise CalibrationError(f"{where}: [vision.zones] {exc}") from None
    layout = TableLayout(width=width, height=height, card_height=card_height, zones=zones,
                         slots=layout.slots)
    source = str(data.get("source", "0"))
    deck = data.get("deck")
    table = data.get("table")
    return VisionConfig(source=source, deck=None if deck is None else str(deck), layout=layout,
                        confirm_frames=confirm, table=None if table is None else str(table))


def load_config(path: str | Path | None) -> VisionConfig:
    """Read ``[vision]`` from the table's TOML configuration; None: all defaults."""
    if path is None:
        return config_from_mapping({})
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise CalibrationError(f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CalibrationError(f"{path}: not valid TOML ({exc})") from None
    vision = data.get("vision", {})
    if not isinstance(vision, Mapping):
        raise CalibrationError(f"{path}: 'vision' must be a table")
    return config_from_mapping(vision, where=str(path))


def zones_toml(layout: TableLayout) -> str:
    """The zones as a ``[vision.zones]`` TOML table, to paste into the configuration."""
    lines = ["[vision.zones]"]
    for name, polygon in layout.zones.items():
        pts = ", ".join(f"[{round(x)}, {round(y)}]" for x, y in polygon)
        lines.append(f"{name} = [{pts}]")
    return "\n".join(lines) + "\n"


def draw_zones(frame: Image, layout: TableLayout, seen: list[SeenCard] | None = None) -> Image:
    """A copy of ``frame`` with each zone outlined and named, and the cards seen, if given."""
    out = frame.copy()
    sx = out.shape[1] / layout.width
    sy = out.shape[0] / layout.height
    for name, polygon in layout.zones.items():
        pts = np.array([(x * sx, y * sy) for x, y in polygon], np.float32)
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, (0, 255, 255), 2, cv2.LINE_AA)
        x0, y0 = pts.min(axis=0)
        cv2.putText(out, name, (int(x0) + 4, int(y0) + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                    (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, name, (int(x0) + 4, int(y0) + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                    (0, 255, 255), 1, cv2.LINE_AA)
    for card in seen or []:
        pts = np.round(card.corners).astype(np.int32)
        colour = (255, 120, 0) if card.face_up else (255, 0, 255)
        cv2.polylines(out, [pts], True, colour, 2, cv2.LINE_AA)
        cx, cy = card.centre
        cv2.putText(out, card.label, (int(cx) - 14, int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                    colour, 2, cv2.LINE_AA)
    return out
