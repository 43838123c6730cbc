"""What the camera learns from the installed table once: the empty cloth and the table's plane.

- **The empty cloth** (:class:`EmptyTable`): the median of a few frames of the empty table, at
  half resolution, under the room's light: any colour and any print (a betting line, a logo,
  boxes) is part of it, so a card, a chip or a hand is whatever differs from it. A frame's
  overall brightness may drift (auto exposure): it is matched first by one gain. A shadow (a
  pixel darker than the cloth by the same factor in every channel) is cloth too.
- **The table's plane** (:func:`plane_from_cards`): a homography from image pixels to the table
  plane measured in card heights, from a frame of a few cards laid apart (their corners, on
  the picture's edges where the cards then agree on one plane, :func:`plane_error`): cards
  are rectangles of one known shape, so the perspective (a camera up to 40 degrees off vertical)
  is what makes them look different across the frame. With it, a card's expected outline is
  known everywhere; without it, a single card height (the layout's) stands for the whole frame.
- **The room's light on the cards** (``laid``): the cards laid for the plane are backs of the
  deck in play; their pictures, kept straightened, show what the room's light and the camera's
  white balance do to the deck's back (:meth:`vision.recognise.Recogniser.room_light`): a red
  back under a cool light looks grey, and is told from a face only once that light is undone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.arrays import Image, Quad, Vector
from vision.edges import snap
from vision.recognise import CANON

SCALE = 2
"""The cloth is compared at this many times less resolution than the frame."""
LAID = (CANON[0] // 2, CANON[1] // 2)
"""Width, height at which the cards laid for the plane are kept, straightened: the half-size
straightening on which the recogniser decides face or back."""


class TableCalibrationError(ValueError):
    """Calibration frames that cannot be used; the message says what is wrong."""


def half(frame: Image) -> Image:
    h, w = frame.shape[:2]
    return np.asarray(cv2.resize(frame, (w // SCALE, h // SCALE),
                                 interpolation=cv2.INTER_AREA), np.uint8)


@dataclass(frozen=True, slots=True)
class EmptyTable:
    """The calibrated table: ``background`` (half-resolution float32 BGR, the empty cloth),
    ``noise`` (grey levels of frame-to-frame noise), ``plane`` (3x3: full-resolution image
    pixels to table plane in card heights; None: not calibrated with cards), ``laid`` (the
    cards laid for the plane, straightened at :data:`LAID`, stacked top to bottom: (N * 50, 36,
    3) uint8; None: not calibrated with cards)."""

    width: int
    height: int
    background: Image
    noise: float
    plane: Vector | None = None
    laid: Image | None = None

    def gain(self, small: Image) -> float:
        """The frame's overall brightness against the cloth's (auto exposure drifts): the
        median ratio over a sparse grid of ``small`` (a frame at half resolution)."""
        bg = self.background
        sample = (slice(None, None, 7), slice(None, None, 7))
        # Channel by channel (numpy's reductions over a last axis of three are slow); the
        # sums are of whole numbers, and the cloth's in the same order as a reduction's.
        seen = small[sample].astype(np.float32)
        cloth = bg[sample]
        ratio = (seen[..., 0] + seen[..., 1] + seen[..., 2] + 1) / (
            cloth[..., 0] + cloth[..., 1] + cloth[..., 2] + 1)
        return float(np.median(ratio))

    def foreground(self, small: Image, gain: float | None = None) -> Image:
        """Half-resolution mask (uint8 0/255) of what is not the empty cloth in ``small`` (a
        frame at half resolution): cards, chips, hands. ``gain``: :meth:`gain` of ``small``,
        if already known."""
        if gain is None:
            gain = self.gain(small)
        mask = self._differs(small, cv2.convertScaleAbs(self.background, alpha=gain), gain)
        return np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)),
                          np.uint8)

    def fine_mask(self, frame: Image, box: tuple[int, int, int, int], gain: float) -> Image:
        """The same at full resolution, in a window of ``frame``: ``box`` (x0, y0, x1, y1) in
        half-resolution pixels, the window twice that; ``gain`` the frame's (:meth:`gain`).
        The cloth there is the half-resolution cloth enlarged: a sliver a pixel or two wide at
        half resolution (the lower card of a squared pair) is then a few pixels wide, and not
        opened away. uint8 0/255."""
        x0, y0, x1, y1 = box
        window = frame[2 * y0:2 * y1, 2 * x0:2 * x1]
        cloth = cv2.resize(self.background[y0:y1, x0:x1], (window.shape[1], window.shape[0]),
                           interpolation=cv2.INTER_LINEAR)
        mask = self._differs(window, cv2.convertScaleAbs(cloth, alpha=gain), gain)
        return np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)),
                          np.uint8)

    def _differs(self, seen: Image, expected: Image, gain: float) -> Image:
        """Where ``seen`` differs from the ``expected`` cloth by more than its noise (uint8
        0/255), its shadows left out."""
        d0, d1, d2 = cv2.split(cv2.absdiff(seen, expected))
        diff = cv2.max(cv2.max(d0, d1), d2)
        threshold = max(12.0, 4.5 * self.noise * max(gain, 0.3))
        # 255 where the difference is above the threshold (whole grey levels: above its floor).
        _, mask = cv2.threshold(diff, math.floor(threshold), 255, cv2.THRESH_BINARY)
        # A shadow darkens every channel by about the same factor, by at most half: cloth, not
        # a card (black ink on a grey cloth is darker still). Only the pixels that differ and
        # are darker need the test.
        darker = cv2.compare(cv2.cvtColor(seen, cv2.COLOR_BGR2GRAY),
                             cv2.cvtColor(expected, cv2.COLOR_BGR2GRAY), cv2.CMP_LT)
        at = np.flatnonzero(cv2.bitwise_and(mask, darker) > 0)  # (on booleans: fast)
        if len(at):
            f = np.take(seen.reshape(-1, 3), at, axis=0).astype(np.float32)
            r = f / (np.take(expected.reshape(-1, 3), at, axis=0).astype(np.float32) + 4.0)
            hi = np.maximum(np.maximum(r[:, 0], r[:, 1]), r[:, 2])
            lo = np.minimum(np.minimum(r[:, 0], r[:, 1]), r[:, 2])
            shadow = (hi < 0.95) & (lo > 0.5) & ((hi - lo) < 0.16)
            mask.reshape(-1)[at[shadow]] = 0
        return np.asarray(mask, np.uint8)

    def ignored(self) -> Image:
        """Full-size picture of what the camera takes for cloth: the learned empty table, with
        its print (everything that stands out from the plain cloth and would look like a card
        to a camera that did not know it) tinted."""
        bg = np.clip(self.background, 0, 255).astype(np.uint8)
        plain = np.median(bg.reshape(-1, 3), axis=0).astype(np.float32)
        print_mask = np.abs(bg.astype(np.float32) - plain).max(axis=2) > 40
        out = bg.copy()
        tint = np.array([255, 0, 255], np.float32)
        out[print_mask] = (0.4 * out[print_mask] + 0.6 * tint).astype(np.uint8)
        return np.asarray(cv2.resize(out, (self.width, self.height),
                                     interpolation=cv2.INTER_NEAREST), np.uint8)

    def save(self, path: str | Path) -> None:
        np.savez_compressed(str(path), background=self.background.astype(np.float32),
                            size=np.array([self.width, self.height]),
                            noise=np.array([self.noise]),
                            plane=self.plane if self.plane is not None else np.zeros((0,)),
                            laid=self.laid if self.laid is not None else np.zeros((0,), np.uint8))

    @staticmethod
    def load(path: str | Path) -> EmptyTable:
        try:
            with np.load(str(path)) as data:
                width, height = (int(v) for v in data["size"])
                plane = data["plane"]
                # Calibrations saved before the laid cards were kept have none.
                laid = data["laid"] if "laid" in data.files else np.zeros((0,), np.uint8)
                table = EmptyTable(width=width, height=height,
                                   background=np.asarray(data["background"], np.float32),
                                   noise=float(data["noise"][0]),
                                   plane=None if plane.size == 0 else np.asarray(plane,
                                                                                 np.float64),
                                   laid=None if laid.size == 0 else np.asarray(laid, np.uint8))
        except (OSError, KeyError, ValueError) as exc:
            raise TableCalibrationError(f"{path}: not a table calibration ({exc})") from None
        if table.background.shape != (height // SCALE, width // SCALE, 3):
            raise TableCalibrationError(f"{path}: background does not match {width}x{height}")
        if table.laid is not None and (table.laid.ndim != 3 or table.laid.shape[1:] != (
                LAID[0], 3) or table.laid.shape[0] % LAID[1]):
            raise TableCalibrationError(f"{path}: laid cards of shape {table.laid.shape} are "
                                        f"not pictures of {LAID[0]}x{LAID[1]}")
        return table


def learn_empty(frames: Sequence[Image]) -> EmptyTable:
    """The empty cloth from one or more frames of the empty table (more frames: less noise)."""
    if not frames:
        raise TableCalibrationError("no frame of the empty table")
    h, w = frames[0].shape[:2]
    if any(f.shape != frames[0].shape for f in frames):
        raise TableCalibrationError("calibration frames differ in size")
    smalls = np.stack([half(f).astype(np.float32) for f in frames])
    background = np.median(smalls, axis=0) if len(frames) > 1 else smalls[0]
    if len(frames) > 1:
        noise = float(np.median(np.abs(smalls - background).max(axis=3))) * 1.5
    else:
        # One frame: the noise is what a slight blur takes away.
        blurred = cv2.GaussianBlur(smalls[0], (0, 0), 1.0)
        noise = float(np.median(np.abs(smalls[0] - blurred).max(axis=2))) * 1.5
    return EmptyTable(width=w, height=h, background=np.asarray(background, np.float32),
                      noise=max(noise, 1.0))


def _rigid_fit(model: Vector, points: Vector) -> Vector:
    """``model`` (4, 2) turned and moved (no scaling) to fit ``points`` best (least squares)."""
    mc, pc = model.mean(axis=0), points.mean(axis=0)
    a, b = model - mc, points - pc
    angle = math.atan2(float((a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]).sum()),
                       float((a * b).sum()))
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[c, -s], [s, c]])
    return np.asarray(a @ rot.T + pc, np.float64)


def _card_fits(h: Vector, image_pts: Vector, aspect: float) -> tuple[list[Vector], list[float]]:
    """Each card's corners (``image_pts``: four per card, in turn) carried into the plane ``h``,
    the card's rectangle fitted to them, and how far its farthest corner lies from them (card
    heights). Seen at a slant a card may look wider than long, so which side is short is
    decided in that plane: the rectangle is fitted both ways round, the better kept."""
    model = np.array([(0, 0), (aspect, 0), (aspect, 1), (0, 1)], np.float64)
    turned = np.array([(0, 0), (1, 0), (1, aspect), (0, aspect)], np.float64)
    mapped = cv2.perspectiveTransform(image_pts.reshape(-1, 1, 2), h).reshape(-1, 2)
    fits: list[Vector] = []
    errors: list[float] = []
    for i in range(len(mapped) // 4):
        seen = mapped[4 * i:4 * i + 4]
        both = [_rigid_fit(m, seen) for m in (model, turned)]
        best = min(both, key=lambda f: float(np.abs(f - seen).sum()))
        fits.append(best)
        errors.append(float(np.linalg.norm(best - seen, axis=1).max()))
    return fits, errors


def plane_from_cards(quads: Sequence[Quad], aspect: float, *, rounds: int = 30) -> Vector:
    """Image pixels to table plane (card heights) from the ordered corners
    (:func:`vision.detect.order_corners`) of two or more single cards lying flat: every card is
    an ``aspect`` x 1 rectangle there. Alternates between fitting each card's rectangle to its
    corners carried into the plane and fitting the homography to all the rectangles."""
    if len(quads) < 2:
        raise TableCalibrationError(f"the table's plane needs at least 2 cards, got {len(quads)}")
    model = np.array([(0, 0), (aspect, 0), (aspect, 1), (0, 1)], np.float64)
    image_pts = np.concatenate([np.asarray(q, np.float64).reshape(4, 2) for q in quads])
    # Start from the card nearest the middle of the others: its own perspective.
    centres = np.array([np.asarray(q).reshape(4, 2).mean(axis=0) for q in quads])
    ref = int(np.argmin(np.linalg.norm(centres - centres.mean(axis=0), axis=1)))
    h = cv2.getPerspectiveTransform(np.asarray(quads[ref], np.float32).reshape(4, 2),
                                    model.astype(np.float32)).astype(np.float64)
    weights = np.ones(len(quads))
    for _ in range(rounds):
        fits, errors = _card_fits(h, image_pts, aspect)
        # A card that fits far worse than the others (lying on something, misfound) is left out.
        typical = float(np.median(errors)) + 0.01
        weights = np.array([1.0 if e <= 3 * typical else 0.0 for e in errors])
        keep = np.repeat(weights > 0, 4)
        targets = np.concatenate(fits)
        # Fitted the other way round (plane to image), so that what is made small is the
        # corners' error in pixels, which is alike for every card: in the plane a far card's
        # pixel counts for more, and its corners would pull the fit the most.
        back, _ = cv2.findHomography(targets[keep], image_pts[keep], 0)
        if back is None or abs(float(np.linalg.det(back))) < 1e-12:
            break
        h = np.asarray(np.linalg.inv(back), np.float64)
    return h


def lone_cards(frame: Image, table: EmptyTable, aspect: float) -> list[Quad]:
    """The corners of every card lying alone on the calibrated cloth in ``frame`` (blobs that
    are about rectangles of about the card's shape, of any size: the table's perspective is not
    known yet)."""
    from vision.detect import fit_quad, order_corners

    mask = table.foreground(half(frame))
    found, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out: list[Quad] = []
    for contour in found:
        area = cv2.contourArea(cv2.convexHull(contour))  # ragged edges of small cards
        if area < 60:
            continue
        rect = cv2.minAreaRect(contour)
        (_, _), (rw, rh), _ = rect
        short, long = min(rw, rh), max(rw, rh)
        # Perspective foreshortens a card by up to a third either way.
        if long <= 0 or area < 0.86 * rw * rh or not 0.6 * aspect <= short / long <= min(
                aspect / 0.6, 1.0):
            continue
        quad = fit_quad(contour, cv2.boxPoints(rect).astype(np.float32))
        if quad is not None:
            out.append(order_corners((quad + 0.5) * SCALE - 0.5))
    return out


def on_edges(frame: Image, quads: list[Quad]) -> list[Quad]:
    """Lone cards' corners moved onto the picture's edges (:func:`vision.edges.snap`): the
    mask's outline is a pixel or so off the card's edge, and not by the same amount all round
    (blur, the cloth's contrast). A snap that moves a corner by more than 2.5 pixels (a card
    against the cloth's print, pulled onto the print's edge) is not taken."""
    from vision.detect import order_corners

    if not quads:
        return quads
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    moved = [order_corners(q) for q in snap(grey, quads)]
    return [q if float(np.abs(q - o).max()) <= 2.5 else o
            for q, o in zip(moved, quads, strict=True)]


def plane_error(h: Vector, quads: Sequence[Quad], aspect: float) -> float:
    """How far the cards' corners carried into the plane ``h`` lie from the card's rectangle
    fitted to each (:func:`_card_fits`): the mean over the cards of the farthest corner (card
    heights)."""
    image_pts = np.concatenate([np.asarray(q, np.float64).reshape(4, 2) for q in quads])
    return float(np.mean(_card_fits(h, image_pts, aspect)[1]))


def calibrate_table(empty: Sequence[Image], cards: Image | None = None, *,
                    aspect: float) -> EmptyTable:
    """The installed table from frames of it empty and, optionally, one frame of a few cards
    (at least three, of the deck of ``aspect``) laid apart on it: that gives the plane."""
    table = learn_empty(empty)
    if cards is None:
        return table
    if cards.shape != empty[0].shape:
        raise TableCalibrationError("the cards' frame differs in size from the empty table's")
    quads = lone_cards(cards, table, aspect)
    if len(quads) < 3:
        raise TableCalibrationError(
            f"lay at least 3 cards apart on the table for the plane; found {len(quads)}")
    from vision.templates import warp_cards

    # The corners on the picture's edges give the cards their true size in the plane (on the
    # mask's outline every card of a table came out 2 to 4% large or small); where a snap went
    # wrong (a card against the print) the cards no longer agree on one plane, and the mask's
    # corners, which do, are kept.
    plane = plane_from_cards(quads, aspect)
    snapped = on_edges(cards, quads)
    fine = plane_from_cards(snapped, aspect)
    if plane_error(fine, snapped, aspect) <= plane_error(plane, quads, aspect):
        plane, quads = fine, snapped
    return EmptyTable(width=table.width, height=table.height, background=table.background,
                      noise=table.noise, plane=plane, laid=warp_cards(cards, quads, LAID))
