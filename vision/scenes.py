"""Labelled table scenes as a card room's camera sees them, for measuring the camera path.

Unlike :mod:`vision.synth` (flat, separate cards on green felt), a scene here is a table in play:

- the **table** (:class:`TableSetup`, what an installer calibrates once): the frame size (640x480
  to 1920x1080), the cloth (green, blue, grey, black, or green printed with a betting line, a
  logo and boxes), the room's light (neutral, cool or warm white balance; normal or low light;
  its unevenness), and the camera: a pinhole camera looking at the table centre from 0 to 40
  degrees off vertical, turned a few degrees, framed so the zones fill the picture. The zones
  are the default layout's, carried into image coordinates by the camera's homography;
- the **scene** (:func:`make_scene`): hole cards as players leave them (side by side, stacked
  with an offset, or squared on top of each other, some face up at a showdown), a board of 3 to 5
  cards (touching or apart), a muck pile of overlapping cards, burnt cards, chips on hole cards
  and bets beside them, card protectors, a hand or a sleeved arm reaching over the board or a
  seat, motion blur or defocus, glare, sensor noise and JPEG.

Every card is labelled: its identity (``"As"`` style or ``"back"``), zone, corners in image
pixels, how much of it is visible (the fraction of its area not covered by another card, a chip,
a protector or a hand) and whether a hand or arm lies over it. Every scene lists its conditions
(``felt:blue``, ``tilt:20-40``, ``stacked``, ``hand``, ...) and the zones a hand or arm covers.
Cards are drawn at the size of the deck's pictures' aspect (88 mm tall), so bridge-size and
narrow decks lie on the table at their own proportions. Everything is seeded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from table_controller.vocabulary.cards import DECK
from table_controller.vocabulary.zones import BOARD, BURN, MUCK, SEAT_ZONES
from vision import props, render
from vision.arrays import Image, Quad, Vector
from vision.empty_table import EmptyTable, calibrate_table
from vision.layout import Point, TableLayout, default_layout

MM_PER_PX = 0.88
"""Millimetres per pixel of the default 1280x720 layout seen from straight above (a card 88 mm
tall is 100 px there)."""
CARD_MM = 88.0
RESOLUTIONS: tuple[tuple[int, int], ...] = ((640, 480), (1280, 720), (1920, 1080))
WHITE_BALANCE: dict[str, tuple[float, float, float]] = {
    "neutral": (1.0, 1.0, 1.0), "cool": (1.2, 1.0, 0.8), "warm": (0.78, 0.98, 1.2)}
VISIBLE_TO_COUNT = 0.10
"""A card showing less than this fraction of itself need not be counted (benchmark rule)."""


@dataclass(frozen=True, slots=True)
class TableSetup:
    """One installed table: frame size, cloth, light and camera (``homography``: table plane
    millimetres, x right and y towards the dealer from the table centre, to image pixels)."""

    width: int
    height: int
    felt: str
    tilt: float
    white_balance: str
    low_light: bool
    homography: Vector
    seed: int
    light_field: Image = field(repr=False)
    cloth: Image = field(repr=False)
    glare: Image | None = field(default=None, repr=False)
    """A lamp's reflection on the cloth (additive, the same in every frame), or None."""

    @property
    def conditions(self) -> frozenset[str]:
        out = {f"felt:{self.felt}", f"wb:{self.white_balance}", f"res:{self.width}x{self.height}",
               "tilt:20-40" if self.tilt >= 20 else "tilt:0-10"}
        if self.low_light:
            out.add("low-light")
        return frozenset(out)

    def to_image(self, points: Vector) -> Vector:
        """Plane millimetres (N, 2) to image pixels."""
        return render.transform_points(np.asarray(points, np.float32), self.homography)

    def scale_at(self, u: float, v: float) -> float:
        """Image pixels per millimetre of the table at plane point (u, v)."""
        p = self.to_image(np.array([(u, v), (u + 10, v), (u, v + 10)], np.float32))
        return float(np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20

    def layout(self) -> TableLayout:
        """The zones in image coordinates (as an installer calibrates them) and the height of a
        card at the table centre in pixels."""
        base = default_layout()
        zones: dict[str, tuple[Point, ...]] = {}
        for name, polygon in base.zones.items():
            pts = self.to_image(np.array([_to_plane(x, y) for x, y in polygon], np.float32))
            zones[name] = tuple((float(x), float(y)) for x, y in pts)
        return TableLayout(width=self.width, height=self.height,
                           card_height=CARD_MM * self.scale_at(0.0, 0.0), zones=zones)


@dataclass(frozen=True, slots=True)
class SceneCard:
    """A card of a scene. ``corners``: image pixels, the card picture's top-left, top-right,
    bottom-right, bottom-left; ``visible``: fraction of the card not covered by anything;
    ``under_hand``: a hand or arm lies over part of it; ``group``: how it lies (``single``,
    ``stacked``, ``squared``, ``board``, ``muck``, ``burn``)."""

    label: str
    zone: str
    corners: Quad
    visible: float
    under_hand: bool
    group: str

    @property
    def face_up(self) -> bool:
        return self.label != "back"


@dataclass(frozen=True, slots=True)
class TableScene:
    image: Image
    cards: tuple[SceneCard, ...]
    conditions: frozenset[str]
    occluded_zones: frozenset[str]
    seed: int


def _to_plane(x: float, y: float) -> tuple[float, float]:
    """Default-layout pixels (1280x720) to table millimetres from the table centre."""
    return ((x - 640.0) * MM_PER_PX, (y - 360.0) * MM_PER_PX)


def camera_homography(width: int, height: int, tilt: float, roll: float,
                      extent: tuple[float, float, float, float]) -> Vector:
    """Table plane (mm, y towards the dealer) to image pixels for a pinhole camera looking at
    the table centre from ``tilt`` degrees off vertical (from the dealer's side), turned
    ``roll`` degrees about its axis, framed so the plane rectangle ``extent`` (u0, v0, u1, v1)
    fills the frame (a 60-degree lens)."""
    t = math.radians(tilt)
    u0, v0, u1, v1 = extent
    distance = (u1 - u0) / 2 / math.tan(math.radians(30))
    centre = np.array([0.0, -distance * math.sin(t), distance * math.cos(t)])
    rot = np.array([[1.0, 0.0, 0.0],
                    [0.0, -math.cos(t), -math.sin(t)],
                    [0.0, math.sin(t), -math.cos(t)]])
    # World Y points away from the dealer; the plane's v points towards them.
    h0 = np.column_stack([rot[:, 0], -rot[:, 1], -rot @ centre])
    corners = np.array([(u0, v0), (u1, v0), (u1, v1), (u0, v1)], np.float64)
    r = math.radians(roll)
    spin = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    h1 = spin @ h0
    pts = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), h1).reshape(-1, 2)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    scale = min(width * 0.96 / (hi[0] - lo[0]), height * 0.96 / (hi[1] - lo[1]))
    mid = (lo + hi) / 2
    fit = np.array([[scale, 0, width / 2 - scale * mid[0]],
                    [0, scale, height / 2 - scale * mid[1]], [0, 0, 1]])
    return np.asarray(fit @ h1, np.float64)


def _layout_extent() -> tuple[float, float, float, float]:
    base = default_layout()
    pts = np.array([_to_plane(x, y) for poly in base.zones.values() for x, y in poly])
    lo, hi = pts.min(axis=0) - 30, pts.max(axis=0) + 30
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def print_cloth(image: Image, setup_h: Vector, rng: np.random.Generator) -> None:
    """The print of a printed cloth: a betting line, boxes for the board and the seats' cards,
    and a logo, in gold and white, drawn in the table plane (``setup_h``: plane millimetres to
    image pixels). Also the simulator's camera's printed cloth."""

    def img(points: Vector) -> Vector:
        return render.transform_points(np.asarray(points, np.float32), setup_h)

    gold: props.Colour = (60, 175, 215)
    white: props.Colour = (215, 220, 220)
    s = float(np.linalg.norm(img(np.array([(0, 0), (100, 0)]))[1] - img(np.array([(0, 0)]))[0]))
    width = max(round(s / 25), 1)
    props.polyline(image, img(props.ellipse((0, 14), 360, 200)), gold, width)
    props.polyline(image, img(props.ellipse((0, 14), 372, 210)), gold, max(width // 2, 1))
    base = default_layout()
    for name, poly in base.zones.items():
        if name.startswith("seat") or name == BOARD:
            pts = np.array([_to_plane(x, y) for x, y in poly])
            c = pts.mean(axis=0)
            pts = c + (pts - c) * 0.92
            props.polyline(image, img(pts), white, max(width // 2, 1))
    # The logo: a name in large letters above the board, and a suit medallion.
    text = ["ROYAL", "CASINO", "POKER"][int(rng.integers(3))]
    tile = np.zeros((90, 420, 3), np.uint8)
    cv2.putText(tile, text, (12, 72), cv2.FONT_HERSHEY_TRIPLEX, 2.6, (255, 255, 255), 5,
                cv2.LINE_AA)
    mask = tile[:, :, 0]
    quad = img(np.array([(-150, -190), (150, -190), (150, -126), (-150, -126)]))
    m = cv2.getPerspectiveTransform(np.array([(0, 0), (420, 0), (420, 90), (0, 90)],
                                             np.float32), quad.astype(np.float32))
    warped = cv2.warpPerspective(mask, m, (image.shape[1], image.shape[0])).astype(np.float32)
    alpha = (warped / 255.0)[:, :, None]
    image[:] = np.clip(image * (1 - alpha) + np.array(gold, np.float32) * alpha, 0,
                       255).astype(np.uint8)
    props.polyline(image, img(props.disc((0, 240), 36, 48)), white, width)


def make_setup(seed: int, *, size: tuple[int, int] | None = None, felt: str | None = None,
               tilt: float | None = None, white_balance: str | None = None,
               low_light: bool | None = None) -> TableSetup:
    """A seeded table; each choice not given is drawn (tilt: 0-10 or 20-40 degrees)."""
    rng = np.random.default_rng((seed, 0x7AB1E))
    if size is None:
        size = RESOLUTIONS[int(rng.integers(len(RESOLUTIONS)))]
    if felt is None:
        felt = list(props.FELTS)[int(rng.integers(len(props.FELTS)))]
    if felt not in props.FELTS:
        raise ValueError(f"unknown felt {felt!r}; one of {', '.join(props.FELTS)}")
    if tilt is None:
        tilt = float(rng.uniform(20, 40)) if rng.random() < 0.5 else float(rng.uniform(0, 10))
    if white_balance is None:
        white_balance = list(WHITE_BALANCE)[int(rng.integers(len(WHITE_BALANCE)))]
    if low_light is None:
        low_light = bool(rng.random() < 0.25)
    width, height = size
    h = camera_homography(width, height, tilt, float(rng.uniform(-6, 6)), _layout_extent())
    cloth = render.felt(width, height, rng, props.FELTS[felt])
    if felt == "printed":
        print_cloth(cloth, h, rng)
    field_ = render.light(np.full((height, width, 3), 200, np.uint8), rng,
                          gain=float(rng.uniform(0.08, 0.2))).astype(np.float32)[:, :, :1] / 200.0
    glare = None
    if rng.random() < 0.4:
        spot = render.glare(np.zeros((height, width, 3), np.uint8), rng, spots=1,
                            strength=float(rng.uniform(30, 80)))
        glare = spot[:, :, :1].astype(np.float32)
    return TableSetup(width=width, height=height, felt=felt, tilt=float(tilt),
                      white_balance=white_balance, low_light=bool(low_light), homography=h,
                      seed=seed, light_field=field_, cloth=cloth, glare=glare)


def _photograph(setup: TableSetup, image: Image, rng: np.random.Generator, *,
                blur: str | None = None) -> Image:
    """The room's light, the camera's white balance, optics and sensor on a drawn table."""
    out = image.astype(np.float32) * setup.light_field
    gains = np.array(WHITE_BALANCE[setup.white_balance], np.float32)
    # The room's light is the table's; a frame varies by a few percent (auto exposure).
    level = (0.38 if setup.low_light else 1.0) * float(rng.uniform(0.96, 1.04))
    out *= gains * level
    if setup.glare is not None:
        out += setup.glare * level
    frame = np.clip(out, 0, 255).astype(np.uint8)
    if blur == "motion":
        length = int(rng.integers(5, 12))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5),
                                      float(rng.uniform(0, 180)), 1.0)
        kernel = np.asarray(cv2.warpAffine(kernel, rot, (length, length)), np.float32)
        kernel /= max(float(kernel.sum()), 1e-6)
        frame = np.asarray(cv2.filter2D(frame, -1, kernel), np.uint8)
    elif blur == "defocus":
        frame = render.blur(frame, float(rng.uniform(1.4, 2.4)))
    else:
        frame = render.blur(frame, float(rng.uniform(0.0, 0.8)))
    sigma = float(rng.uniform(4.0, 8.0)) if setup.low_light else float(rng.uniform(1.0, 4.0))
    grain = rng.standard_normal(frame.shape, dtype=np.float32) * sigma
    frame = np.clip(frame + grain, 0, 255).astype(np.uint8)
    return render.jpeg(frame, int(rng.integers(70, 96)))


def render_empty(setup: TableSetup, index: int = 0) -> Image:
    """The empty table as the camera sees it (fresh noise per ``index``): what calibration
    learns the cloth from."""
    rng = np.random.default_rng((setup.seed, 0xE3, index))
    return _photograph(setup, setup.cloth.copy(), rng)


@dataclass(slots=True)
class _Place:
    label: str
    zone: str
    quad: Quad  # plane mm
    group: str


def _card_quad(u: float, v: float, w: float, h: float, angle: float) -> Quad:
    return render.card_quad(u, v, w, h, angle)


def _seat_cards(rng: np.random.Generator, zone: str, deal: list[str], w: float, h: float,
                face_up: bool, arrangement: str) -> list[_Place]:
    base = default_layout()
    s0, s1 = base.slots[zone][0], base.slots[zone][1]
    cu, cv = _to_plane((s0.x + s1.x) / 2, (s0.y + s1.y) / 2)
    # Cards face their player: turned towards the seat's side of the table, give or take.
    facing = math.degrees(math.atan2(cu, -cv)) if abs(cu) + abs(cv) > 1 else 0.0
    angle = -facing + float(rng.uniform(-20, 20))
    labels = [deal.pop() if face_up else "back" for _ in range(2)]
    a = math.radians(angle)
    across = np.array([math.cos(a), -math.sin(a)])
    down = np.array([math.sin(a), math.cos(a)])
    if arrangement == "single":
        gap = float(rng.uniform(3, 15))
        out = []
        for k, lab in enumerate(labels):
            t = (k - 0.5) * (w + gap)
            p = np.array([cu, cv]) + t * across
            out.append(_Place(lab, zone, _card_quad(float(p[0]), float(p[1]), w, h,
                                                    angle + float(rng.uniform(-8, 8))), "single"))
        return out
    if arrangement == "stacked":
        d = float(rng.uniform(14, 40))
        turn = float(rng.uniform(-25, 25))
    else:  # squared: the top card almost exactly over the other
        d = float(rng.uniform(3.5, 8))
        turn = float(rng.uniform(-6, 6))
    direction = float(rng.uniform(0, 2 * math.pi))
    offset = d * (math.cos(direction) * across + math.sin(direction) * down)
    lower = _card_quad(cu, cv, w, h, angle)
    upper = _card_quad(float(cu + offset[0]), float(cv + offset[1]), w, h, angle + turn)
    return [_Place(labels[0], zone, lower, arrangement), _Place(labels[1], zone, upper,
                                                                 arrangement)]


def make_scene(setup: TableSetup, deck: Mapping[str, Image], seed: int, *,
               force: frozenset[str] = frozenset()) -> TableScene:
    """One seeded scene on ``setup`` drawn with ``deck`` (``As``..``Kc`` and ``back`` BGRA
    pictures, :func:`vision.synth.load_deck_images`). ``force``: conditions every scene of a
    caller wants (``stacked``, ``squared``, ``hand``, ``muck``, ``chips``, ``protector``,
    ``blur``, ``showdown``); the others are drawn at random."""
    rng = np.random.default_rng((setup.seed, seed))
    back = deck["back"]
    aspect = back.shape[1] / back.shape[0]
    h = CARD_MM
    w = h * aspect
    order = [str(c) for c in DECK]
    rng.shuffle(order)
    deal = list(order)
    conditions: set[str] = set()

    def want(name: str, p: float) -> bool:
        if name in force or rng.random() < p:
            conditions.add(name)
            return True
        return False

    showdown = want("showdown", 0.3)
    places: list[_Place] = []
    # The muck and the burnt cards lie under everything dealt later.
    if want("muck", 0.4):
        mu, mv = _to_plane(*_slot_centre(MUCK))
        for _ in range(int(rng.integers(3, 9))):
            u = mu + float(rng.normal(0, 24))
            v = mv + float(rng.normal(0, 16))
            label = deal.pop() if rng.random() < 0.15 else "back"
            places.append(_Place(label, MUCK, _card_quad(u, v, w, h, float(rng.uniform(0, 360))),
                                 "muck"))
    n_burn = int(rng.integers(0, 4))
    if n_burn:
        bu, bv = _to_plane(*_slot_centre(BURN))
        for _ in range(n_burn):
            places.append(_Place("back", BURN, _card_quad(
                bu + float(rng.uniform(-10, 10)), bv + float(rng.uniform(-6, 6)), w, h,
                float(rng.uniform(-10, 10))), "burn"))
    n_board = int(rng.choice([0, 3, 3, 4, 5, 5]))
    if n_board:
        slots = default_layout().slots[BOARD]
        touching = rng.random() < 0.5
        gap = float(rng.uniform(0.0, 1.2)) if touching else float(rng.uniform(3, 12))
        ang = float(rng.uniform(-4, 4))
        a = math.radians(ang)
        axis = np.array([math.cos(a), -math.sin(a)])
        cu, cv = _to_plane(slots[0].x + (n_board - 1) / 2 * (slots[1].x - slots[0].x), slots[0].y)
        for k in range(n_board):
            p = np.array([cu, cv]) + (k - (n_board - 1) / 2) * (w + gap) * axis
            jitter = float(rng.uniform(-1.2, 1.2)) if touching else float(rng.uniform(-4, 4))
            places.append(_Place(deal.pop(), BOARD, _card_quad(
                float(p[0]), float(p[1]), w, h, ang + jitter), "board"))
    seats = [z for z in SEAT_ZONES if z in default_layout().slots and rng.random() < 0.7]
    if not seats:
        seats = [SEAT_ZONES[int(rng.integers(10))]]
    # In a third of the scenes some players leave their cards stacked with an offset, in a
    # third some leave them squared; the other pairs lie side by side.
    styles = ["single"] * len(seats)
    order_ = [int(i) for i in rng.permutation(len(seats))]
    for style in ("stacked", "squared"):
        if want(style, 0.35):
            for i in order_[: int(rng.integers(1, 4))]:
                styles[i] = style
            order_ = order_[3:] or order_
    for zone, style in zip(seats, styles, strict=True):
        places += _seat_cards(rng, zone, deal, w, h, showdown and rng.random() < 0.6, style)
    image = setup.cloth.copy()
    ids = np.zeros((setup.height, setup.width), np.int16)
    quads: list[Quad] = []
    areas: list[float] = []
    masks: list[tuple[int, int, Image]] = []
    for k, place in enumerate(places):
        if rng.random() < 0.5:
            centre = place.quad.mean(axis=0)
            place.quad = np.asarray(centre + (place.quad - centre)[[2, 3, 0, 1]], np.float32)
        quad = setup.to_image(place.quad)
        render.paste(image, deck[place.label], quad)
        props.mark(ids, quad, k + 1)
        x0, y0 = (int(v) for v in np.floor(quad.min(axis=0)))
        x1, y1 = (int(v) for v in np.ceil(quad.max(axis=0)))
        local = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
        cv2.fillPoly(local, [np.round(quad - (x0, y0)).astype(np.int32)], 1)
        masks.append((x0, y0, local))
        areas.append(float(local.sum()))
        quads.append(quad)
    next_id = 1000
    seat_cards = [k for k, p in enumerate(places) if p.zone.startswith("seat")]
    if seat_cards and want("chips", 0.3):
        for k in rng.choice(seat_cards, size=min(len(seat_cards), int(rng.integers(1, 3))),
                            replace=False):
            c = places[int(k)].quad.mean(axis=0) + rng.uniform(-30, 30, 2)
            next_id = _chip_stack(setup, image, ids, (float(c[0]), float(c[1])), rng, next_id)
    if want("bets", 0.5):
        for zone in rng.choice(seats, size=min(len(seats), int(rng.integers(1, 4))),
                               replace=False):
            su, sv = _to_plane(*_slot_centre(str(zone)))
            u, v = su * 0.72, sv * 0.62 + 10
            next_id = _chip_stack(setup, image, ids, (u, v), rng, next_id)
    if seat_cards and want("protector", 0.25):
        k = int(rng.choice(seat_cards))
        c = places[k].quad.mean(axis=0) + rng.uniform(-15, 15, 2)
        rim = setup.to_image(props.disc((float(c[0]), float(c[1])), float(rng.uniform(20, 27))))
        props.protector(image, ids, rim, next_id, rng)
        next_id += 1
    hand_id = 0
    if want("hand", 0.25):
        hand_id = next_id
        _reach(setup, image, ids, places, rng, hand_id)
    blur = None
    if want("blur", 0.2):
        blur = "motion" if rng.random() < 0.5 else "defocus"
    frame = _photograph(setup, image, rng, blur=blur)
    counts = np.bincount(ids.ravel().astype(np.int64), minlength=len(places) + 1)
    hand_mask = ids == hand_id if hand_id else None
    cards: list[SceneCard] = []
    for k, place in enumerate(places):
        x0, y0, local = masks[k]
        under = False
        if hand_mask is not None:
            window = _window(hand_mask, x0, y0, local.shape)
            under = bool((window & (local[:window.shape[0], :window.shape[1]] > 0)).any())
        visible = float(counts[k + 1]) / max(areas[k], 1.0)
        cards.append(SceneCard(label=place.label, zone=place.zone, corners=quads[k],
                               visible=min(visible, 1.0), under_hand=under, group=place.group))
    occluded: set[str] = set()
    if hand_mask is not None:
        for name, poly in setup.layout().zones.items():
            zone_mask = np.zeros(hand_mask.shape, np.uint8)
            cv2.fillPoly(zone_mask, [np.round(np.array(poly)).astype(np.int32)], 1)
            if (zone_mask.astype(bool) & hand_mask).any():
                occluded.add(name)
    return TableScene(image=frame, cards=tuple(cards),
                      conditions=frozenset(conditions) | setup.conditions,
                      occluded_zones=frozenset(occluded), seed=seed)


def _window(mask: Image, x0: int, y0: int, shape: tuple[int, ...]) -> Image:
    """The part of ``mask`` under a local mask placed at (x0, y0), clipped to the frame; the
    local mask's own clipping is the caller's."""
    h, w = mask.shape[:2]
    if x0 < 0 or y0 < 0:
        pad = np.zeros((shape[0], shape[1]), bool)
        xs, ys = max(x0, 0), max(y0, 0)
        part = mask[ys:min(y0 + shape[0], h), xs:min(x0 + shape[1], w)]
        pad[ys - y0:ys - y0 + part.shape[0], xs - x0:xs - x0 + part.shape[1]] = part
        return pad
    return np.asarray(mask[y0:min(y0 + shape[0], h), x0:min(x0 + shape[1], w)])


def _slot_centre(zone: str) -> tuple[float, float]:
    slots = default_layout().slots[zone]
    return (sum(s.x for s in slots) / len(slots), sum(s.y for s in slots) / len(slots))


def _chip_stack(setup: TableSetup, image: Image, ids: Image, centre: tuple[float, float],
                rng: np.random.Generator, next_id: int) -> int:
    """A stack of 1 to 5 chips of 39 mm at plane point ``centre``; returns the next free id."""
    rim = setup.to_image(props.disc(centre, 19.5))
    scale = setup.scale_at(*centre)
    lift = 3.3 * scale * math.sin(math.radians(max(setup.tilt, 8)))
    colour = props.CHIP_COLOURS[int(rng.integers(len(props.CHIP_COLOURS)))]
    for k in range(int(rng.integers(1, 6))):
        props.chip(image, ids, rim, next_id, colour, (0.0, -k * lift))
    return next_id + 1


def _reach(setup: TableSetup, image: Image, ids: Image, places: list[_Place],
           rng: np.random.Generator, object_id: int) -> None:
    """A dealer's hand over the board (or a player's over a seat), the arm from the frame's
    nearest edge."""
    board = [p for p in places if p.zone == BOARD]
    seats = [p for p in places if p.zone.startswith("seat")]
    target = board if board and (not seats or rng.random() < 0.6) else seats or places
    if target:
        pick = target[int(rng.integers(len(target)))]
        u, v = (float(x) for x in pick.quad.mean(axis=0) + rng.uniform(-40, 40, 2))
    else:
        u, v = float(rng.uniform(-200, 200)), float(rng.uniform(-80, 80))
    palm = setup.to_image(np.array([(u, v)], np.float32))[0]
    hgt, wid = setup.height, setup.width
    if abs(v) < 120 or v > 0:
        edge = np.array([palm[0] + float(rng.uniform(-0.2, 0.2)) * wid, hgt + 60.0])
    else:
        edge = np.array([palm[0] + float(rng.uniform(-0.2, 0.2)) * wid, -60.0])
    towards = math.atan2(float(palm[1] - edge[1]), float(palm[0] - edge[0]))
    towards += float(rng.uniform(-0.5, 0.5))
    scale = setup.scale_at(u, v) * 1.15  # a little nearer the camera than the cloth
    hand, arm = props.hand_shapes((float(palm[0]), float(palm[1])), towards, scale, edge, rng)
    skin = props.SKIN[int(rng.integers(len(props.SKIN)))]
    sleeve = props.SLEEVES[int(rng.integers(len(props.SLEEVES)))]
    if rng.random() < 0.4:
        sleeve = skin  # a bare forearm
    props.draw_reach(image, ids, hand, arm, object_id, skin, sleeve,
                     np.array([8.0, 10.0]) * scale)


def render_calibration_cards(setup: TableSetup, deck: Mapping[str, Image], index: int = 0
                             ) -> Image:
    """The table with backs laid apart, as an installer lays them to calibrate the plane: one
    in every other seat, three on the board, one on the burn and one on the muck."""
    rng = np.random.default_rng((setup.seed, 0xCA7, index))
    back = deck["back"]
    h = CARD_MM
    w = h * back.shape[1] / back.shape[0]
    base = default_layout()
    spots = [base.slots[z][0] for z in SEAT_ZONES[::2] if z in base.slots]
    spots += [base.slots[BOARD][k] for k in (0, 2, 4)]
    spots += [base.slots[BURN][0], base.slots[MUCK][1]]
    laid = []
    for spot in spots:
        u, v = _to_plane(spot.x, spot.y)
        laid.append(("back", _card_quad(u, v, w, h, float(rng.uniform(-30, 30)))))
    return _lay_and_photograph(setup, deck, laid, rng)


def zone_centre(zone: str) -> tuple[float, float]:
    """The middle of a zone's card slots, table millimetres (where a scene's pile lies)."""
    return _to_plane(*_slot_centre(zone))


def render_laid(setup: TableSetup, deck: Mapping[str, Image],
                laid: Sequence[tuple[str, Quad]], index: int = 0) -> Image:
    """The table with cards laid as given, bottom first: each a label of ``deck`` (``back``
    for a card face down) and its corners in table millimetres (the card picture's top-left,
    top-right, bottom-right, bottom-left), photographed as every scene is (a test's own
    arrangement of a pile)."""
    return _lay_and_photograph(setup, deck, laid, np.random.default_rng((setup.seed, 0x1A1D,
                                                                         index)))


def _lay_and_photograph(setup: TableSetup, deck: Mapping[str, Image],
                        laid: Sequence[tuple[str, Quad]], rng: np.random.Generator) -> Image:
    image = setup.cloth.copy()
    for label, quad in laid:
        render.paste(image, deck[label], setup.to_image(np.asarray(quad, np.float32)))
    return _photograph(setup, image, rng)


def calibrated_table(setup: TableSetup, deck: Mapping[str, Image], *, aspect: float
                     ) -> EmptyTable:
    """``setup`` calibrated as an installer calibrates a table: three frames of it empty and
    one of backs of ``deck`` (cards of ``aspect``) laid apart (:func:`render_calibration_cards`:
    the plane, and the room's light on the backs)."""
    empty = [render_empty(setup, k) for k in range(3)]
    return calibrate_table(empty, render_calibration_cards(setup, deck), aspect=aspect)
