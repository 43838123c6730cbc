"""Find every card in a frame: its outline (four corners) on the cloth.

Cards are told from the cloth by colour, not brightness: the cloth is strongly coloured (green,
blue, red: its colour is taken from the frame), a card face (white, black and red ink) is not,
and a card back is either grey-ish or of another colour. Glare adds white light to everything,
so it changes brightness but not colour, and a glare spot on the cloth does not look like a
card. The segmentation runs at half resolution (speed). A lone card's corners
come from fitting a straight line to each side of its outline (sub-pixel corners despite the
rounded card corners and the coarser grid); any other blob is traced again at full resolution.

Cards that touch merge into one blob. Its area, or for a neat row its length against one card's
width (its height times 63/88), says how many cards it holds. A neat row is cut along the row's
own quadrilateral into card widths and gaps; cards touching only at a corner are parted by an
erosion of a tenth of a card; anything else is cut across its long axis at the notches where
two cards meet or at equal steps, whichever leaves the most card-like pieces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.arrays import Contour, Image, Quad, Vector
from vision.layout import CARD_ASPECT

_SCALE = 2  # segmentation runs on a frame this many times smaller


class FrameError(ValueError):
    """A frame that is not an image the detector can read (wrong shape or type)."""


@dataclass(frozen=True, slots=True)
class DetectorConfig:
    """``card_height``: nominal card height in full-frame pixels, None to estimate it per frame
    from the blobs that look like single cards. ``felt_ratio``, ``felt_high``: a pixel is cloth
    when its feltness lies between these multiples of the cloth's. ``min_felt_chroma``: below
    this the cloth is taken as uncoloured and cards are found by brightness instead.
    ``min_card_height``: smaller blobs (full-frame pixels) are never taken for cards (print on
    the cloth, chips' edges); ``max_candidates``: at most this many outlines are examined, the
    largest first (a table holds a few dozen cards; a busy print must not make a frame cost
    seconds). ``aspect``: the deck's card width over height (poker 63/88, bridge 56/87)."""

    card_height: float | None = None
    felt_ratio: float = 0.5
    felt_high: float = 1.8
    min_felt_chroma: float = 12.0
    min_card_height: float = 16.0
    max_candidates: int = 160
    aspect: float = CARD_ASPECT


def check_frame(frame: object) -> Image:
    """The frame as an HxWx3 uint8 array; raises :class:`FrameError` saying what is wrong."""
    if not isinstance(frame, np.ndarray):
        raise FrameError(f"a frame must be a numpy array, got {type(frame).__name__}")
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise FrameError(f"a frame must be HxWx3 uint8 (BGR), got {frame.shape} {frame.dtype}")
    if frame.shape[0] < 32 or frame.shape[1] < 32:
        raise FrameError(f"frame too small: {frame.shape[1]}x{frame.shape[0]}")
    return frame


def _felt_direction(small: Image) -> tuple[Vector, float]:
    """The cloth's colour as a unit direction in chroma space (zero-sum BGR weights) and how
    far the cloth lies along it, from the median colour of the frame (cards cover a minority
    of the cloth). A pixel's *feltness* is its colour projected on that direction: the cloth's
    level on the cloth, about 0 on white card, black ink or anything grey, negative on colours
    unlike the cloth's; white light (glare) adds grey and leaves it alone."""
    median = np.median(small[::8, ::8].reshape(-1, 3), axis=0).astype(np.float32)
    chroma = median - float(median.mean())
    level = float(np.linalg.norm(chroma))
    if level < 1e-3:
        return np.zeros(3, np.float32), 0.0
    return np.asarray(chroma / level, np.float32), level


def _feltness(image: Image, weights: Vector) -> Image:
    """Feltness per pixel, float32 (not rounded or clipped). OpenCV's transform is three times
    faster on float pixels than on uint8 ones, conversion included."""
    return np.asarray(cv2.transform(image.astype(np.float32), weights.reshape(1, 3)), np.float32)


def _half(frame: Image) -> Image:
    """The frame at half size, each pixel the mean of a 2x2 block. For even sizes bilinear
    resizing gives exactly that (its samples fall midway between pixels) at half the cost of
    INTER_AREA; odd sizes keep INTER_AREA."""
    h, w = frame.shape[:2]
    even = h % _SCALE == 0 and w % _SCALE == 0 and _SCALE == 2
    return np.asarray(cv2.resize(frame, (w // _SCALE, h // _SCALE),
                                 interpolation=cv2.INTER_LINEAR if even else cv2.INTER_AREA),
                      np.uint8)


def card_mask(frame: Image, config: DetectorConfig) -> tuple[Image, float, Vector]:
    """Half-resolution mask of everything that is not felt, the felt's level and colour
    direction (see :func:`_felt_direction`)."""
    small = _half(frame)
    weights, felt_level = _felt_direction(small)
    if felt_level < config.min_felt_chroma:
        # No coloured cloth (a card photographed on white, say): everything bright is card.
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        _, mask = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        return mask, felt_level, weights
    felt = _feltness(small, weights)
    # Cloth: feltness between felt_ratio and felt_high times the cloth's. Below: white, black,
    # other colours; above: ink of the cloth's colour but far more saturated (red indices on a
    # red cloth), which belongs to a card too. The bounds are whole feltness levels (as on a
    # uint8 feltness picture, whose values are rounded): x rounds into [lo, hi] when it lies in
    # [lo - 0.5, hi + 0.5).
    lo = math.ceil(felt_level * config.felt_ratio)
    hi = min(math.floor(felt_level * config.felt_high), 254)
    cloth = cv2.inRange(felt, lo - 0.5, hi + 0.4999)
    mask = cv2.morphologyEx(cv2.bitwise_not(cloth), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return mask, felt_level, weights


def order_corners(points: Vector) -> Quad:
    """Corners in clockwise order (image y down) starting with a short side: p0-p1 is a short
    edge. Of the two such orders (a card and the same card turned half a turn), the one whose
    first corner is nearest the image's top-left is chosen, so the answer is deterministic."""
    pts = np.asarray(points, np.float32).reshape(4, 2)
    xy = pts.tolist()  # four points: Python floats are cheaper than tiny arrays
    (ax, ay), (bx, by), (ex, ey), (fx, fy) = xy
    cx = (ax + bx + ex + fx) / 4
    cy = (ay + by + ey + fy) / 4
    # Increasing angle, y down: clockwise.
    angles = [math.atan2(y - cy, x - cx) for x, y in xy]
    order = sorted(range(4), key=angles.__getitem__)
    p = [xy[i] for i in order]
    d01 = (p[1][0] - p[0][0]) ** 2 + (p[1][1] - p[0][1]) ** 2
    d12 = (p[2][0] - p[1][0]) ** 2 + (p[2][1] - p[1][1]) ** 2
    start = 1 if d01 > d12 else 0
    far, near = p[(start + 2) % 4], p[start]
    if far[0] + far[1] < near[0] + near[1]:
        start += 2
    return pts[[order[(start + i) % 4] for i in range(4)]]


def fit_quad(contour: Contour, approx: Quad | None = None) -> Quad | None:
    """Four corners of a roughly rectangular outline, refined by fitting each side with a line.
    ``approx``: rough corners already known (else found from the outline's hull)."""
    if approx is None:
        hull = cv2.convexHull(contour)
        peri = cv2.arcLength(hull, True)
        for eps in (0.02, 0.04, 0.06, 0.08):
            a = cv2.approxPolyDP(hull, eps * peri, True)
            if len(a) == 4:
                approx = a.reshape(4, 2).astype(np.float32)
                break
    if approx is None:
        approx = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32)
    pts = contour.reshape(-1, 2).astype(np.float32)
    if len(pts) > 240:
        pts = pts[:: len(pts) // 160]
    approx = np.asarray(approx, np.float32)
    # Side k runs from corner k to corner k+1. Each point's position along each side and its
    # distance across it come from one product with the sides' directions and normals (the
    # sides' own numbers are a handful of Python floats: cheaper than tiny arrays).
    corners = approx.tolist()
    columns: list[tuple[float, float]] = []
    offsets: list[float] = []
    lengths: list[float] = []
    for k in range(4):
        (x0, y0), (x1, y1) = corners[k], corners[(k + 1) % 4]
        length = math.hypot(x1 - x0, y1 - y0)
        if length < 2:
            return approx
        dx, dy = (x1 - x0) / length, (y1 - y0) / length
        columns += [(dx, dy), (dy, -dx)]
        offsets += [x0 * dx + y0 * dy, x0 * dy - y0 * dx]
        lengths.append(length)
    proj = pts @ np.array(columns, np.float32).T - np.array(offsets, np.float32)  # (N, 8)
    along, across = proj[:, 0::2], np.abs(proj[:, 1::2])
    span = np.array(lengths, np.float32)
    keep = (along > 0.15 * span) & (along < 0.85 * span) & (across < 2.5)
    lines: list[tuple[float, float, float, float]] = []
    for k in range(4):
        side = pts[keep[:, k]]
        if len(side) >= 4:
            vx, vy, x0, y0 = cv2.fitLine(side, cv2.DIST_L2, 0, 0.01, 0.01).ravel().tolist()
            lines.append((x0, y0, vx, vy))
        else:
            lines.append((corners[k][0], corners[k][1], *columns[2 * k]))
    # Corner i is where side i-1 meets side i.
    limit = 0.25 * math.sqrt(cv2.contourArea(contour) + 1)
    for i in range(4):
        px, py, dx, dy = lines[i]
        qx, qy, ex, ey = lines[i - 1]
        den = ex * dy - ey * dx
        if abs(den) < 1e-3:
            continue
        t = ((px - qx) * dy - (py - qy) * dx) / den
        x, y = qx + t * ex, qy + t * ey
        if max(abs(x - corners[i][0]), abs(y - corners[i][1])) > limit:
            return approx
        corners[i] = [x, y]
    return np.array(corners, np.float32)


def _count(outline: Contour, card_area: float, aspect: float = CARD_ASPECT) -> int:
    """How many cards an outline holds: by area, or for a neat row (the outline fills its
    bounding rectangle) by its length against one card's width."""
    area = cv2.contourArea(outline)
    by_area = max(round(area / card_area), 1)
    (_, _), (rw, rh), _ = cv2.minAreaRect(outline)
    short, long = min(rw, rh), max(rw, rh)
    if by_area >= 2 and short > 0 and area > 0.9 * rw * rh:
        card_h = math.sqrt(card_area / aspect)
        if abs(short - card_h) < 0.2 * card_h:
            return max(round(long / (short * aspect + 0.5)), 1)
    return by_area


def _separate(outline: Contour, card_area: float, aspect: float = CARD_ASPECT
              ) -> list[Contour]:
    """Cards (or rows of cards) that touch only at a corner: an erosion by about a tenth of a
    card breaks the narrow contact and leaves each part whole; each part is grown back inside
    the original outline."""
    x, y, w, h = cv2.boundingRect(outline)
    pad = 2
    mask = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    offset = np.array([x - pad, y - pad], np.int32)
    cv2.drawContours(mask, [outline - offset], -1, 255, -1)
    size = max(3, int(0.12 * math.sqrt(card_area / aspect)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    eroded = cv2.erode(mask, kernel)
    n, labels = cv2.connectedComponents(eroded)
    if n <= 2:
        return [outline]
    out: list[Contour] = []
    for label in range(1, n):
        seed = np.asarray(labels == label, np.uint8) * 255
        part = cv2.bitwise_and(cv2.dilate(seed, kernel), mask)
        found, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for c in found:
            if cv2.contourArea(c) >= 0.45 * card_area:
                out.append(np.asarray(c + offset, np.int32))
    return out or [outline]


def _split_row(outline: Contour, k: int, aspect: float = CARD_ASPECT) -> list[Quad] | None:
    """Cards lying side by side in a neat row: the row's outline is one quadrilateral whose
    long sides are divided into ``k`` card widths (a card's width is its height times the card
    aspect ratio, the remainder is shared out as gaps). Working on the quadrilateral rather
    than a rectangle keeps the cuts right under a slightly tilted camera. None: not a neat
    row."""
    area = cv2.contourArea(outline)
    hull_area = cv2.contourArea(cv2.convexHull(outline))
    if hull_area <= 0 or area < 0.95 * hull_area:
        return None
    quad = fit_quad(outline)
    if quad is None:
        return None
    q = order_corners(quad)
    end_a = float(np.linalg.norm(q[1] - q[0]))
    end_b = float(np.linalg.norm(q[3] - q[2]))
    length = (float(np.linalg.norm(q[2] - q[1])) + float(np.linalg.norm(q[3] - q[0]))) / 2
    height = (end_a + end_b) / 2
    width = min(height * aspect, length / k)
    gap = (length - k * width) / (k - 1)
    if gap > 0.25 * width:
        return None
    out: list[Quad] = []
    for j in range(k):
        t0 = j * (width + gap) / length
        t1 = (j * (width + gap) + width) / length
        a0 = q[0] + t0 * (q[3] - q[0])
        a1 = q[0] + t1 * (q[3] - q[0])
        b0 = q[1] + t0 * (q[2] - q[1])
        b1 = q[1] + t1 * (q[2] - q[1])
        out.append(np.array([a0, b0, b1, a1], np.float32))
    return out


def _good_piece(piece: Contour, card_area: float) -> bool:
    area = cv2.contourArea(piece)
    (_, _), (rw, rh), _ = cv2.minAreaRect(piece)
    return 0.6 * card_area < area < 1.45 * card_area and area > 0.85 * rw * rh


def _split_best(contour: Contour, k: int, card_area: float) -> list[Contour]:
    """Cut at the notches and at equal steps; keep the cut whose pieces are most card-like
    (most pieces of a card's size and shape, then the squarest corners)."""
    best: list[Contour] = []
    best_key = (-1, -1.0)
    for use_notches in (True, False):
        pieces = _split(contour, k, use_notches=use_notches)
        good = sum(_good_piece(p, card_area) for p in pieces) - abs(len(pieces) - k)
        fill = 0.0
        for p in pieces:
            (_, _), (rw, rh), _ = cv2.minAreaRect(p)
            fill += cv2.contourArea(p) / max(rw * rh, 1.0) / max(len(pieces), 1)
        if (good, fill) > best_key:
            best, best_key = pieces, (good, fill)
    return best


def _split(contour: Contour, k: int, *, use_notches: bool = True
           ) -> list[Contour]:
    """Cut a blob of ``k`` touching cards into ``k`` outlines."""
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
    a = math.radians(angle)
    axis = np.array([math.cos(a), math.sin(a)], np.float32)
    length = rw
    if rh > rw:
        axis = np.array([-math.sin(a), math.cos(a)], np.float32)
        length = rh
    normal = np.array([-axis[1], axis[0]], np.float32)
    centre = np.array([cx, cy], np.float32)
    notches: list[Vector] = []
    hull = cv2.convexHull(contour, returnPoints=False)
    try:
        defects = cv2.convexityDefects(contour, hull)
    except cv2.error:
        defects = None
    if defects is not None and use_notches:
        for _start, _end, f, depth in defects.reshape(-1, 4):
            if depth / 256.0 >= 1.0:
                notches.append(contour[f, 0].astype(np.float32))
    x, y, w, h = cv2.boundingRect(contour)
    pad = 2
    local = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    offset = np.array([x - pad, y - pad], np.int32)
    cv2.drawContours(local, [contour - offset], -1, 255, -1)
    span = 0.6 * max(rw, rh)
    for j in range(1, k):
        t = (j / k - 0.5) * length
        guess = centre + t * axis
        sides: dict[int, Vector] = {}
        best: dict[int, float] = {}
        for p in notches:
            rel = p - centre
            along = float(rel @ axis) - t
            if abs(along) > 0.3 * length / k:
                continue
            side = 1 if float(rel @ normal) > 0 else -1
            if side not in best or abs(along) < best[side]:
                best[side], sides[side] = abs(along), p
        if len(sides) == 2:
            p1, p2 = sides[1], sides[-1]
            d = (p1 - p2) / max(float(np.linalg.norm(p1 - p2)), 1e-3)
            a1, a2 = p1 + d * span, p2 - d * span
        elif len(sides) == 1:
            p = next(iter(sides.values()))
            a1, a2 = p + normal * span, p - normal * span
        else:
            a1, a2 = guess + normal * span, guess - normal * span
        cv2.line(local, tuple(int(v) for v in np.round(a1 - offset)),
                 tuple(int(v) for v in np.round(a2 - offset)), 0, 2)
    contours, _ = cv2.findContours(local, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [c + offset for c in contours]


def _card_area(contours: list[Contour], config: DetectorConfig) -> float | None:
    """Area of one card in half-resolution pixels: configured, else measured on this frame
    from the blobs that look like one card, else from neat rows of cards (whose short side is a
    card's height)."""
    if config.card_height is not None:
        h = config.card_height / _SCALE
        return h * h * config.aspect
    smallest = max((config.min_card_height / _SCALE) ** 2 * config.aspect, 60.0)
    singles: list[float] = []
    rows: list[float] = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < smallest:
            continue
        (_, _), (rw, rh), _ = cv2.minAreaRect(c)
        if rw < 1 or rh < 1 or area < 0.9 * rw * rh:
            continue
        short, long = min(rw, rh), max(rw, rh)
        if abs(short / long - config.aspect) < 0.08:
            singles.append(area)
        elif long > short:
            rows.append(short * short * config.aspect)
    if singles:
        return float(np.median(singles))
    if rows:
        return float(np.median(rows))
    return None


def _full_res_outlines(frame: Image, contour: Contour, threshold: float, high: float,
                       weights: Vector, min_area: float) -> list[Contour]:
    """The blob traced again on the full-resolution frame (sharper corners and notches, and
    narrow gaps the half-resolution mask closed), restricted to the blob so a neighbouring card
    never joins in. Outlines smaller than ``min_area`` are dropped."""
    x, y, w, h = cv2.boundingRect(contour)
    fh, fw = frame.shape[:2]
    x0, y0 = max(x * _SCALE - 3, 0), max(y * _SCALE - 3, 0)
    x1, y1 = min((x + w) * _SCALE + 3, fw), min((y + h) * _SCALE + 3, fh)
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    felt = roi @ weights
    mask = np.asarray((felt < threshold) | (felt > high), np.uint8) * 255
    blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
    scaled = (contour.astype(np.float32) * _SCALE + (_SCALE - 1) / 2).astype(np.int32)
    cv2.drawContours(blob, [scaled - np.array([x0, y0], np.int32)], -1, 255, -1)
    grown = cv2.dilate(blob, np.ones((7, 7), np.uint8))
    inside = cv2.morphologyEx(cv2.bitwise_and(mask, grown), cv2.MORPH_OPEN,
                              np.ones((3, 3), np.uint8))
    found, _ = cv2.findContours(inside, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    shift = np.array([x0, y0], np.int32)
    return [np.asarray(c + shift, np.int32) for c in found if cv2.contourArea(c) >= min_area]


def detect_cards(frame: Image, config: DetectorConfig | None = None) -> list[Quad]:
    """Corners (full-frame pixels, ordered by :func:`order_corners`) of every card in ``frame``."""
    config = config or DetectorConfig()
    frame = check_frame(frame)
    mask, felt_level, weights = card_mask(frame, config)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    card_area = _card_area(list(contours), config)
    if card_area is None:
        return []
    full_area = card_area * _SCALE * _SCALE
    threshold = felt_level * config.felt_ratio
    high = felt_level * config.felt_high
    quads: list[Quad] = []
    areas = [cv2.contourArea(c) for c in contours]
    candidates = sorted((i for i, a in enumerate(areas) if a >= 0.45 * card_area),
                        key=lambda i: -areas[i])[: config.max_candidates]
    for i in sorted(candidates):
        contour = contours[i]
        # Ink of the cloth's colour at a card's edge (red indices on red cloth) notches its
        # outline; the convex hull does not see notches.
        hull_area = cv2.contourArea(cv2.convexHull(contour))
        if 0.75 * card_area < hull_area < 1.3 * card_area:
            rect = cv2.minAreaRect(contour)
            (_, _), (rw, rh), _ = rect
            if hull_area > 0.93 * rw * rh:
                # One card on its own: its half-resolution outline is precise enough once each
                # side is fitted with a line (about half a full-resolution pixel).
                quad = fit_quad(contour, cv2.boxPoints(rect).astype(np.float32))
                if quad is not None:
                    quads.append(order_corners((quad + 0.5) * _SCALE - 0.5))
                    continue
        outlines: list[Contour] = []
        if felt_level >= config.min_felt_chroma:
            outlines = _full_res_outlines(frame, contour, threshold, high, weights,
                                          0.45 * full_area)
            a = config.aspect
            if any(_count(o, full_area, a) >= 2 and _split_row(o, _count(o, full_area, a), a)
                   is None for o in outlines):
                # Cards a few pixels apart whose gap blur and shadow have closed: a stricter
                # threshold (only pixels clearly unlike the cloth are card) opens narrow gaps.
                strict = _full_res_outlines(frame, contour, threshold * 0.4, high, weights,
                                            0.45 * full_area)
                if len(strict) > len(outlines):
                    outlines = strict
        if not outlines:
            outlines = [np.asarray((contour.astype(np.float32) + 0.5) * _SCALE - 0.5, np.int32)]
        pieces = []
        queue = [(o, True) for o in outlines]
        while queue:
            outline, may_separate = queue.pop()
            k = _count(outline, full_area, config.aspect)
            if k >= 2:
                row = _split_row(outline, k, config.aspect)
                if row is not None:
                    quads.extend(order_corners(q) for q in row)
                    continue
                if may_separate:
                    parts = _separate(outline, full_area, config.aspect)
                    if len(parts) > 1:
                        queue.extend((p, False) for p in parts)
                        continue
            pieces.extend([outline] if k <= 1 else _split_best(outline, k, full_area))
        for piece in pieces:
            if cv2.contourArea(piece) < 0.45 * full_area:
                continue
            quad = fit_quad(piece)
            if quad is not None:
                quads.append(order_corners(quad))
    return quads
