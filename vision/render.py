"""Drawing cards on felt: shared by the simulator's camera and the benchmark's test set.

Cards come as BGRA images (transparent outside their rounded corners) and are warped onto a
quadrilateral of the frame; the photographic effects (uneven light, glare, blur, sensor noise,
JPEG) are separate steps so each caller picks its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.arrays import Image, Quad, Vector

FELT_BGR = (38, 112, 30)


def felt(width: int, height: int, rng: np.random.Generator,
         colour: tuple[int, int, int] = FELT_BGR) -> Image:
    """A green cloth with a faint woven texture and a slight colour drift."""
    base = np.empty((height, width, 3), np.float32)
    base[:] = colour
    texture = rng.normal(0.0, 4.0, (height // 4 + 1, width // 4 + 1)).astype(np.float32)
    smooth = cv2.resize(texture, (width, height), interpolation=cv2.INTER_LINEAR)
    base += smooth[:, :, None]
    drift = rng.uniform(-8, 8, 3).astype(np.float32)
    base += drift
    return np.clip(base, 0, 255).astype(np.uint8)


def card_quad(cx: float, cy: float, width: float, height: float, angle: float) -> Quad:
    """Corners of an upright card of the given size centred on (cx, cy), turned ``angle`` degrees
    counter-clockwise as seen in the image (y down)."""
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    half = [(-width / 2, -height / 2), (width / 2, -height / 2),
            (width / 2, height / 2), (-width / 2, height / 2)]
    return np.array([(cx + x * c + y * s, cy - x * s + y * c) for x, y in half], np.float32)


def transform_points(points: Quad, homography: Vector) -> Quad:
    """Apply a 3x3 homography to (N, 2) points."""
    pts = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), homography)
    return np.asarray(pts.reshape(-1, 2), np.float32)


def tilt_homography(width: int, height: int, rng: np.random.Generator,
                    strength: float) -> Vector:
    """A random mild perspective (camera not quite square to the felt): corners moved by up to
    ``strength`` times the frame size, keeping the frame centre in place."""
    src = np.array([(0, 0), (width, 0), (width, height), (0, height)], np.float32)
    jitter = rng.uniform(-strength, strength, (4, 2)) * np.array([width, height])
    dst = (src + jitter).astype(np.float32)
    h = cv2.getPerspectiveTransform(src, dst)
    centre = transform_points(np.array([[width / 2, height / 2]], np.float32), h)[0]
    shift = np.array([[1, 0, width / 2 - centre[0]], [0, 1, height / 2 - centre[1]], [0, 0, 1]])
    return np.asarray(shift @ h, np.float64)


@dataclass(frozen=True, slots=True)
class Sprite:
    """A card warped onto its quadrilateral, ready to lay on a frame (:func:`sprite`,
    :func:`lay`): the box ``x0, y0, x1, y1`` of the frame it covers and, over that box, what
    its soft drop shadow leaves of the felt (``shade``), what the card leaves of what lies
    below (``through``) and the card's own part (``own``). None of it depends on the frame,
    so a card lying still can be laid again and again from one sprite."""

    x0: int
    y0: int
    x1: int
    y1: int
    shade: Image | None
    through: Image
    own: Image


def sprite(card: Image, quad: Quad, size: tuple[int, int], *, shadow: float = 0.35
           ) -> Sprite | None:
    """The BGRA ``card`` warped onto ``quad`` of a frame of ``size`` (height, width), with a
    soft drop shadow; None if it lies outside the frame."""
    h, w = size
    x0 = max(math.floor(float(quad[:, 0].min())) - 4, 0)
    y0 = max(math.floor(float(quad[:, 1].min())) - 4, 0)
    x1 = min(math.ceil(float(quad[:, 0].max())) + 5, w)
    y1 = min(math.ceil(float(quad[:, 1].max())) + 5, h)
    if x1 <= x0 or y1 <= y0:
        return None
    ch, cw = card.shape[:2]
    src = np.array([(0, 0), (cw, 0), (cw, ch), (0, ch)], np.float32)
    dst = quad - np.array([x0, y0], np.float32)
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    box = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(card, m, box, flags=cv2.INTER_AREA if cw > box[0] else
                                 cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    shade = None
    if shadow > 0:
        sh = cv2.GaussianBlur(alpha[:, :, 0], (0, 0), 1.6)
        sh = np.roll(sh, (1, 1), axis=(0, 1))[:, :, None]
        shade = 1.0 - shadow * sh
    return Sprite(x0, y0, x1, y1, shade, 1.0 - alpha,
                  warped[:, :, :3].astype(np.float32) * alpha)


def lay(frame: Image, card: Sprite | None) -> None:
    """Lay a :func:`sprite` on ``frame`` (in place)."""
    if card is None:
        return
    roi = frame[card.y0:card.y1, card.x0:card.x1].astype(np.float32)
    if card.shade is not None:
        roi *= card.shade
    roi = roi * card.through + card.own
    frame[card.y0:card.y1, card.x0:card.x1] = np.clip(roi, 0, 255).astype(np.uint8)


def paste(frame: Image, card: Image, quad: Quad, *, shadow: float = 0.35) -> None:
    """Warp the BGRA ``card`` onto ``quad`` of ``frame`` (in place), with a soft drop shadow."""
    lay(frame, sprite(card, quad, (frame.shape[0], frame.shape[1]), shadow=shadow))


def light(frame: Image, rng: np.random.Generator, *, gain: float = 0.15) -> Image:
    """Uneven lighting: a smooth gain field of ±``gain`` across the frame."""
    h, w = frame.shape[:2]
    coarse = rng.uniform(1 - gain, 1 + gain, (3, 4)).astype(np.float32)
    field = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    out = frame.astype(np.float32) * field[:, :, None]
    return np.asarray(np.clip(out, 0, 255), np.uint8)


def glare(frame: Image, rng: np.random.Generator, *, spots: int = 1,
          strength: float = 90.0) -> Image:
    """Additive white highlights (a lamp reflected by the cloth and the cards)."""
    h, w = frame.shape[:2]
    add = np.zeros((h, w), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(spots):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx, sy = rng.uniform(30, 140), rng.uniform(30, 140)
        add += float(rng.uniform(0.4, 1.0)) * strength * np.exp(
            -(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2) / 2)
    out = frame.astype(np.float32) + add[:, :, None]
    return np.asarray(np.clip(out, 0, 255), np.uint8)


def blur(frame: Image, sigma: float) -> Image:
    """Defocus: a Gaussian of ``sigma`` pixels."""
    if sigma <= 0:
        return frame
    return np.asarray(cv2.GaussianBlur(frame, (0, 0), sigma), np.uint8)


def noise(frame: Image, rng: np.random.Generator, sigma: float) -> Image:
    """Sensor noise: Gaussian, ``sigma`` grey levels."""
    if sigma <= 0:
        return frame
    out = frame.astype(np.float32) + rng.normal(0.0, sigma, frame.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def jpeg(frame: Image, quality: int) -> Image:
    """Round-trip through JPEG at ``quality`` (1..100)."""
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
