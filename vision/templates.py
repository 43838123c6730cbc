"""Enrolled decks: the canonical picture of each face and of the back, stored per deck.

A deck is enrolled once from the cards in use, so any design works: from a folder of images, one
per card, named by card (``As.png``, ``Td.png``, ...) plus ``back.png``, or card by card from the
camera (:func:`enroll_from_source`). An image may be a straight scan of the card (anything around
it transparent or cropped away) or a photo of the card alone on the felt; either way the card is
found, straightened and stored upright at :data:`STORE_SIZE`.

Storage: ``ROOT/NAME/deck.json`` (its ``jokers`` list names the joker pictures; a deck stored
before jokers were enrolled has none) plus one PNG per card. ``ROOT`` is ``--store`` on the command
line, else ``$TABLE_CONTROLLER_DECKS``, else ``~/.local/share/table-controller/decks``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from table_controller.vocabulary.cards import DECK, CardError, check_deck_name, parse_card
from vision.arrays import Image, Vector
from vision.detect import fit_quad, order_corners
from vision.layout import CARD_ASPECT

STORE_SIZE = (144, 200)
"""Width, height of a stored card picture."""
BACK = "back"
JOKER = "joker"
"""The recognition label of a face-up joker, whatever its design."""
_JOKER_NAME = re.compile(r"^joker([2-9]|[1-9][0-9])?$")


class EnrolmentError(ValueError):
    """An enrolment that cannot be completed; the message names the card or file at fault."""


@dataclass(frozen=True, slots=True)
class DeckTemplates:
    """An enrolled deck: ``faces`` maps ``"As"`` style names to upright BGR pictures;
    ``jokers`` maps ``"joker"``, ``"joker2"``, ... to the deck's joker designs (may be empty);
    ``aspect``: the cards' shape, learned at enrolment."""

    name: str
    faces: Mapping[str, Image]
    back: Image
    jokers: Mapping[str, Image] = field(default_factory=dict)
    aspect: float = CARD_ASPECT
    """The cards' width over height (poker 63/88, bridge 56/87, narrow 44/88)."""

    def missing(self) -> list[str]:
        """Cards of the 52 that have no picture (a partial enrolment)."""
        return [str(c) for c in DECK if str(c) not in self.faces]


def joker_name(stem: str) -> str | None:
    """``"joker"``, ``"joker2"``, ... for a joker picture's name (any case), else None."""
    low = stem.lower()
    return low if _JOKER_NAME.match(low) else None


def default_store() -> Path:
    env = os.environ.get("TABLE_CONTROLLER_DECKS")
    if env:
        return Path(env)
    return Path.home() / ".local" / "share" / "table-controller" / "decks"


def _deck_name(name: str) -> str:
    """``name`` if it can name a deck (the vocabulary's rule,
    :func:`table_controller.vocabulary.cards.check_deck_name`), else :class:`EnrolmentError`."""
    try:
        return check_deck_name(name)
    except CardError as exc:
        raise EnrolmentError(str(exc)) from None


def _flatten(image: Image) -> Image:
    """BGR from grey/BGR/BGRA; transparent pixels become white."""
    if image.ndim == 2:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), np.uint8)
    if image.shape[2] == 4:
        alpha = image[:, :, 3:4].astype(np.float32) / 255.0
        rgb = image[:, :, :3].astype(np.float32) * alpha + 255.0 * (1.0 - alpha)
        return np.asarray(np.clip(rgb, 0, 255), np.uint8)
    return np.ascontiguousarray(image[:, :, :3], np.uint8)


def warp_card(frame: Image, quad: Vector, size: tuple[int, int]) -> Image:
    """The card inside ``quad`` (corners p0..p3 = top-left, top-right, bottom-right,
    bottom-left of the result) straightened to ``size`` (width, height)."""
    w, h = size
    dst = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    src = np.asarray(quad, np.float32).reshape(4, 2)
    # Only the quad's bounding box of the frame is handed to OpenCV (a few pixels wider for
    # the interpolation): the result is the same, and a small source is faster to warp from.
    fh, fw = frame.shape[:2]
    xs = [float(p[0]) for p in src]
    ys = [float(p[1]) for p in src]
    x0 = min(max(math.floor(min(xs)) - 2, 0), fw - 1)
    y0 = min(max(math.floor(min(ys)) - 2, 0), fh - 1)
    x1 = min(max(math.ceil(max(xs)) + 3, x0 + 1), fw)
    y1 = min(max(math.ceil(max(ys)) + 3, y0 + 1), fh)
    m = cv2.getPerspectiveTransform(src - np.array([x0, y0], np.float32), dst)
    return np.asarray(cv2.warpPerspective(frame[y0:y1, x0:x1], m, (w, h),
                                          flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE), np.uint8)


_GRIDS: dict[tuple[int, int], Vector] = {}
_NO_MAP = np.zeros((0, 0), np.float32)  # remap's second map: unused, the first holds x and y
_REMAP_ROWS = 32_000  # cv2.remap refuses maps of SHRT_MAX (32,767) rows or more


def warp_cards(frame: Image, quads: Sequence[Vector], size: tuple[int, int]) -> Image:
    """:func:`warp_card` of several cards, stacked top to bottom in one picture (card i in rows
    ``i * height`` to ``(i + 1) * height``). Each card's pixel grid is carried into the frame
    by its perspective transform and the frame is sampled once for all cards: OpenCV's
    warpPerspective spends most of its time working out where each pixel comes from, and
    perspectiveTransform does that faster. (Sampling positions are rounded to 1/32 pixel either
    way; the float arithmetic differs slightly, so now and then a pixel on a sharp edge comes
    out a level or a few apart.)"""
    w, h = size
    grid = _GRIDS.get(size)
    if grid is None:
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        grid = _GRIDS[size] = np.stack([xs, ys], axis=2)
    if not quads:
        return np.zeros((0, w, 3), np.uint8)
    dst = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    maps = np.vstack([cv2.perspectiveTransform(grid, cv2.getPerspectiveTransform(
        dst, np.asarray(q, np.float32).reshape(4, 2))) for q in quads])
    # cv2.remap takes maps of fewer than 32,767 rows: many cards are sampled in slices.
    per_call = max(_REMAP_ROWS // h, 1) * h
    return np.vstack([np.asarray(cv2.remap(frame, maps[r:r + per_call], _NO_MAP,
                                           cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                                 np.uint8) for r in range(0, len(maps), per_call)])


ASPECTS = (0.45, 0.85)
"""Card shapes accepted, as width over height: narrow (44 x 88 mm, 0.5) to poker (63 x 88 mm,
0.72) and square-ish tarot-like designs up to 0.85."""


def _paper_like(ring: Image) -> bool:
    """Whether an image's outer ring is bright and colourless: the white of a scanner bed or
    of the card's own margin, not a cloth."""
    ring = ring.astype(np.int16)
    grey = float(np.median(ring.mean(axis=1)))
    chroma = float(np.median(ring.max(axis=1) - ring.min(axis=1)))
    return grey >= 150 and chroma <= 40


def _scan(bgr: Image, what: str) -> tuple[Image, float]:
    h, w = bgr.shape[:2]
    aspect = min(w, h) / max(w, h)
    if not ASPECTS[0] <= aspect <= ASPECTS[1]:
        raise EnrolmentError(f"{what}: a {w}x{h} picture is not card-shaped (width/height "
                             f"{aspect:.2f}); crop the scan to the card")
    card = bgr if h >= w else cv2.rotate(bgr, cv2.ROTATE_90_CLOCKWISE)
    return np.asarray(cv2.resize(card, STORE_SIZE, interpolation=cv2.INTER_AREA),
                      np.uint8), aspect


def _cards_on_background(bgr: Image) -> tuple[list[Vector], float]:
    """Corners of each card-sized blob that stands out from the background colour (the median
    of the picture's outer ring) and does not touch the picture's edge, and the fraction of the
    picture that stands out at all (none: an empty cloth)."""
    ring = np.concatenate([bgr[:3].reshape(-1, 3), bgr[-3:].reshape(-1, 3),
                           bgr[:, :3].reshape(-1, 3), bgr[:, -3:].reshape(-1, 3)])
    background = np.median(ring, axis=0).astype(np.int16)
    spread = np.abs(ring.astype(np.int16) - background).max(axis=1)
    threshold = max(40.0, float(np.percentile(spread, 99)) + 12)
    diff = np.abs(bgr.astype(np.int16) - background).max(axis=2)
    mask = np.asarray(diff > threshold, np.uint8) * 255
    size = max(3, (min(bgr.shape[:2]) // 120) | 1)
    kernel = np.ones((size, size), np.uint8)
    mask = np.asarray(cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel),
                                       cv2.MORPH_OPEN, kernel), np.uint8)
    h, w = mask.shape
    content = float(np.count_nonzero(mask)) / (h * w)
    found, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out: list[Vector] = []
    for contour in found:
        area = cv2.contourArea(contour)
        if area < 0.02 * h * w:
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        if x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1:
            continue
        rect = cv2.minAreaRect(contour)
        (_, _), (rw, rh), _ = rect
        if rw < 8 or rh < 8 or area < 0.85 * rw * rh:
            continue
        out.append(cv2.boxPoints(rect).astype(np.float32))
        # Sub-pixel corners: each side fitted with a line.
        fitted = fit_quad(contour, out[-1])
        if fitted is not None:
            out[-1] = fitted
    return out, content


def extract_card_shape(image: Image, *, what: str = "image") -> tuple[Image, float]:
    """The one card in ``image``, upright at :data:`STORE_SIZE`, and its shape (width over
    height as found: a scan's own proportions, or the outline's on a photo).

    A scan (the card filling the picture, transparent corners allowed, with or without a white
    margin of its own) is used whole, turned upright when it is landscape; any card shape in
    :data:`ASPECTS` is taken. A photo of the card alone on a cloth or a table (any colour) is
    cut out along the card's outline. Raises :class:`EnrolmentError` when a photo holds no card
    or more than one, or a scan is not card-shaped.
    """
    cut_out = False
    if image.ndim == 3 and image.shape[2] == 4:
        ys, xs = np.nonzero(image[:, :, 3] > 127)
        if len(xs) == 0:
            raise EnrolmentError(f"{what}: fully transparent")
        cut_out = bool((image[:, :, 3] <= 127).any())
        image = image[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    bgr = _flatten(image)
    h, w = bgr.shape[:2]
    if h < 20 or w < 20:
        raise EnrolmentError(f"{what}: image too small ({w}x{h})")
    aspect = min(w, h) / max(w, h)
    card_shaped = ASPECTS[0] <= aspect <= ASPECTS[1]
    ring = np.concatenate([bgr[0], bgr[-1], bgr[:, 0], bgr[:, -1]])
    if cut_out or (card_shaped and _paper_like(ring)):
        return _scan(bgr, what)
    quads, content = _cards_on_background(bgr)
    if len(quads) == 1:
        quad = order_corners(quads[0])
        sides = [float(np.linalg.norm(quad[(i + 1) % 4] - quad[i])) for i in range(4)]
        shape = (sides[0] + sides[2]) / (sides[1] + sides[3])
        if ASPECTS[0] <= shape <= ASPECTS[1]:
            return warp_card(bgr, quad, STORE_SIZE), shape
    detail = float(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).std())
    if card_shaped and not quads and (content > 0.05 or detail > 15):
        # A borderless scan: its coloured edge is the card's own (a bare cloth is plain).
        return _scan(bgr, what)
    raise EnrolmentError(f"{what}: expected exactly one card on the felt, found {len(quads)}")


def extract_card(image: Image, *, what: str = "image") -> Image:
    """:func:`extract_card_shape` without the shape."""
    return extract_card_shape(image, what=what)[0]


def _deck_aspect(shapes: list[float]) -> float:
    """The deck's card shape: the median of the pictures' (scans are exact; photos' outlines
    are measured)."""
    if not shapes:
        return CARD_ASPECT
    return float(np.median(shapes))


def enroll_from_folder(folder: str | Path, name: str, *, allow_partial: bool = False
                       ) -> DeckTemplates:
    """Read ``As.png`` ... and ``back.png`` (also .jpg/.jpeg/.bmp) from ``folder``, and the
    jokers ``joker.png``, ``joker2.png``, ... when there are any.

    Every one of the 52 faces and the back must be there unless ``allow_partial``; jokers are
    optional. File names that are not cards are reported, never guessed at.
    """
    _deck_name(name)
    folder = Path(folder)
    if not folder.is_dir():
        raise EnrolmentError(f"not a folder: {folder}")
    faces: dict[str, Image] = {}
    jokers: dict[str, Image] = {}
    back: Image | None = None
    unknown: list[str] = []
    shapes: list[float] = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg", ".bmp"):
            continue
        stem = path.stem
        joker = joker_name(stem)
        if joker is not None:
            if joker in jokers:
                raise EnrolmentError(f"{path}: a second picture of {joker}")
        elif stem.lower() != BACK:
            try:
                card = parse_card(stem[0].upper() + stem[1:].lower() if len(stem) == 2 else stem)
            except ValueError:
                unknown.append(path.name)
                continue
            stem = str(card)
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise EnrolmentError(f"{path}: not a readable image")
        pic, shape = extract_card_shape(np.asarray(img, np.uint8), what=str(path))
        shapes.append(shape)
        if joker is not None:
            jokers[joker] = pic
        elif stem.lower() == BACK:
            back = pic
        else:
            faces[stem] = pic
    if unknown:
        raise EnrolmentError(
            f"{folder}: file names that are not cards: {', '.join(unknown)} "
            "(expected As.png, Td.png, ..., back.png and optionally joker.png, joker2.png, ...)"
        )
    if back is None:
        raise EnrolmentError(f"{folder}: back.png is missing")
    deck = DeckTemplates(name=name, faces=faces, back=back, jokers=jokers,
                         aspect=_deck_aspect(shapes))
    if deck.missing() and not allow_partial:
        raise EnrolmentError(f"{folder}: missing cards: {' '.join(deck.missing())}")
    return deck


def enroll_from_frames(frames: Iterable[tuple[str, Image]], name: str) -> DeckTemplates:
    """Enrol from ``(label, frame)`` pairs, each frame showing that one card alone on the felt
    (label ``"As"`` style, ``"back"``, or ``"joker"``, ``"joker2"``, ... for the jokers)."""
    _deck_name(name)
    faces: dict[str, Image] = {}
    jokers: dict[str, Image] = {}
    back: Image | None = None
    shapes: list[float] = []
    for label, frame in frames:
        pic, shape = extract_card_shape(frame, what=label)
        shapes.append(shape)
        joker = joker_name(label)
        if joker is not None:
            jokers[joker] = pic
        elif label == BACK:
            back = pic
        else:
            try:
                faces[str(parse_card(label))] = pic
            except ValueError as exc:
                raise EnrolmentError(f"{label!r} is not a card, the back or a joker: {exc}"
                                     ) from None
    if back is None:
        raise EnrolmentError("the back was not captured")
    return DeckTemplates(name=name, faces=faces, back=back, jokers=jokers,
                         aspect=_deck_aspect(shapes))


def joker_labels(count: int) -> list[str]:
    """The names of ``count`` joker designs: ``["joker", "joker2", ...]``."""
    if not 0 <= count <= 99:
        raise EnrolmentError(f"joker count {count} out of range 0..99")
    return [JOKER if i == 1 else f"{JOKER}{i}" for i in range(1, count + 1)]


def enroll_from_source(read_frame: Callable[[], Image | None], name: str,
                       ask: Callable[[str], bool],
                       labels: Iterable[str] | None = None, jokers: int = 0) -> DeckTemplates:
    """Interactive enrolment from a camera, card by card.

    ``ask(label)`` tells the operator to lay that card alone, face up (the back: face down),
    under the camera and returns False to abort; then one frame is read and the card cut out.
    A frame with no card or several is asked for again. ``jokers``: how many joker designs to
    capture after the default labels (``"joker"``, ``"joker2"``, ...).
    """
    wanted = list(labels) if labels is not None else [str(c) for c in DECK] + [BACK]
    wanted += joker_labels(jokers)
    captured: list[tuple[str, Image]] = []
    for label in wanted:
        while True:
            if not ask(label):
                raise EnrolmentError(f"enrolment aborted at {label}")
            frame = read_frame()
            if frame is None:
                raise EnrolmentError(f"the camera gave no frame for {label}")
            try:
                extract_card(frame, what=label)
            except EnrolmentError:
                continue
            captured.append((label, frame))
            break
    return enroll_from_frames(captured, name)


def save_deck(deck: DeckTemplates, root: str | Path) -> Path:
    """Write the deck under ``root/NAME``; returns that folder."""
    folder = Path(root) / _deck_name(deck.name)
    folder.mkdir(parents=True, exist_ok=True)
    for label, pic in [*deck.faces.items(), (BACK, deck.back), *deck.jokers.items()]:
        if not cv2.imwrite(str(folder / f"{label}.png"), pic):
            raise EnrolmentError(f"could not write {folder / label}.png")
    meta = {"name": deck.name, "format": 1, "size": list(STORE_SIZE),
            "aspect": round(deck.aspect, 4),
            "cards": sorted(deck.faces, key=lambda s: parse_card(s).index),
            "jokers": sorted(deck.jokers)}
    (folder / "deck.json").write_text(json.dumps(meta, indent=1) + "\n")
    return folder


def load_deck(name: str, root: str | Path) -> DeckTemplates:
    """Read an enrolled deck; raises :class:`EnrolmentError` naming what is missing or bad."""
    folder = Path(root) / _deck_name(name)
    meta_path = folder / "deck.json"
    if not meta_path.is_file():
        raise EnrolmentError(f"deck {name!r} is not enrolled (no {meta_path})")
    try:
        meta = json.loads(meta_path.read_text())
        cards = [str(parse_card(c)) for c in meta["cards"]]
        joker_list = meta.get("jokers", [])
        if not isinstance(joker_list, list):
            raise TypeError(f"jokers is not a list: {joker_list!r}")
        jokers = [str(j) for j in joker_list]
        bad = [j for j in jokers if joker_name(j) != j]
        if bad:
            raise ValueError(f"not joker names: {', '.join(bad)}")
        aspect = float(meta.get("aspect", CARD_ASPECT))
        if not ASPECTS[0] <= aspect <= ASPECTS[1]:
            raise ValueError(f"aspect {aspect} is not a card shape")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EnrolmentError(f"{meta_path}: damaged ({exc})") from None
    faces: dict[str, Image] = {}
    for label in [*cards, BACK, *jokers]:
        img = cv2.imread(str(folder / f"{label}.png"), cv2.IMREAD_COLOR)
        if img is None:
            raise EnrolmentError(f"deck {name!r}: {label}.png missing or unreadable in {folder}")
        pic = np.asarray(cv2.resize(img, STORE_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        faces[label] = pic
    back = faces.pop(BACK)
    joker_pics = {j: faces.pop(j) for j in jokers}
    return DeckTemplates(name=name, faces=faces, back=back, jokers=joker_pics, aspect=aspect)
