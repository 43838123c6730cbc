"""The camera path of a simulated table: table model -> rendered frames -> the REAL vision code.

Each look at the table renders the felt as the :class:`hw_sim.devices.camera.VirtualCamera` draws it
(every card in its zone's slot, face or back, seeded jitter, uneven light, sensor noise), and the
REAL :class:`vision.analyse.FrameAnalyser` (detection, zones, recognition against templates
enrolled from the simulator's card art) and :class:`vision.tracker.CardTracker` (confirmation over
frames) turn it into camera observations.

Speed: rendering a 1280x720 frame costs tens of milliseconds, so a frame is rendered and
analysed only when the table changed; while it stays still the camera keeps reporting what that
analysis saw (a real camera would show the same cards with fresh noise). The tracker still
receives one sighting per frame, so its confirmation and drop counts work as on a table. The
camera keeps its last few frames and felts with cards laid (:data:`FRAMES_KEPT`): a card dealt
is drawn over the felt as the last frame left it, a frame seen before (a hand lifted off a
zone) is given again; every frame is the one a fresh render gives, and every one is analysed.

The shuffler tray: the default layout (:func:`vision.layout.default_layout`) has no ``shuffler``
zone. An installer can add one through the layout's zones (``[vision.zones]``; ``shuffler`` is a
zone of the shared vocabulary); with ``stub_view`` the simulated camera is set up that way
(:func:`stub_layout`: the tray at the dealer's right) and sees the top card of the stub, so a card
lying face up on the stub shows (FACE_UP_IN_DECK). The rest of the stub is hidden under it.

The installer's calibration: the camera learns the empty cloth once, from a frame of the empty
table under the room's light (:func:`vision.empty_table.learn_empty`), so the analyser finds
cards against it on any cloth (:data:`vision.props.FELTS`, printed too) and any light, separates
overlapping cards (a squared pair, the muck pile) and reports the zones a hand, an arm or a
chip covers; the tracker leaves those zones' cards as they were until they are clear.

What the players and the dealer do shows: a seat's squared cards lie almost on each other, a
lifted card (a player peeking) is seen raised, the muck is a pile of overlapping cards, and the
model's covers (a chip, a card protector, a hand over a zone) are drawn over the cards.

Sensor noise is off by default (see :func:`build_camera`). Not emulated: motion blur, lighting
changes during play. A zone holds as many visible cards as its layout has slots (seat 2, board
5, burn 2); further cards are stacked on the last slot and only the top one shows, as on a real
pile.
"""

from __future__ import annotations

import tempfile
import zlib
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from hw_sim.devices import card_art
from hw_sim.devices.camera import Cover, SceneCard, VirtualCamera
from hw_sim.devices.table_model import PhysicalCard, TableModel
from table_controller.vocabulary.observations import Face, Observation
from table_controller.vocabulary.zones import MUCK, SHUFFLER
from vision.analyse import FrameAnalyser, TableView
from vision.empty_table import learn_empty
from vision.layout import Slot, TableLayout, default_layout
from vision.recognise import Recogniser
from vision.templates import DeckTemplates, enroll_from_folder
from vision.tracker import CardTracker

FREEZE_SECONDS = 0.5


@lru_cache(maxsize=1)
def sim_deck_templates() -> DeckTemplates:
    """The simulator's card art enrolled as a deck, as ``table-controller vision enroll`` would
    from photographs of a real deck (done once per process)."""
    with tempfile.TemporaryDirectory(prefix="hw_sim_deck_") as folder:
        card_art.write_deck(folder)
        return enroll_from_folder(folder, "sim")


def stub_layout() -> TableLayout:
    """The default layout plus a ``shuffler`` zone over the shuffler's output tray, at the
    dealer's right between the muck and the last seat (one slot: the stub's top card)."""
    base = default_layout()
    s = base.width / 1280.0
    x, y = 760.0 * s, 655.0 * s
    w, h = base.card_width + 24 * s, base.card_height + 24 * s
    box = ((x - w / 2, y - h / 2), (x + w / 2, y - h / 2), (x + w / 2, y + h / 2),
           (x - w / 2, y + h / 2))
    return TableLayout(width=base.width, height=base.height, card_height=base.card_height,
                       zones={**base.zones, SHUFFLER: box},
                       slots={**base.slots, SHUFFLER: (Slot(x, y),)})


@dataclass(slots=True)
class SlotKeeper:
    """Where each card lies in its zone. A card keeps its slot while it stays in the zone (the
    card next to one that is picked up does not slide over); a new card takes the lowest free
    slot, or the last slot (a pile) when all are taken."""

    places: dict[bytes, tuple[str, int]] = field(default_factory=dict)

    def scene(self, model: TableModel, camera: VirtualCamera) -> list[SceneCard]:
        felt = [pc for pc in model.felt if pc.zone != SHUFFLER
                and camera.layout.slots.get(pc.zone)]
        kept: dict[bytes, tuple[str, int]] = {}
        for pc in felt:
            place = self.places.get(pc.uid)
            if place is not None and place[0] == pc.zone:
                kept[pc.uid] = place
        for pc in felt:
            if pc.uid in kept:
                continue
            n = len(camera.layout.slots[pc.zone])
            taken = {slot for zone, slot in kept.values() if zone == pc.zone}
            free = [i for i in range(n) if i not in taken]
            kept[pc.uid] = (pc.zone, free[0] if free else n - 1)
        self.places = kept
        # later cards are drawn over earlier ones (a pile shows its top card)
        scene = []
        for pc in felt:
            slot = kept[pc.uid][1]
            rotation, offset = _lie(pc, slot, model, camera)
            scene.append(SceneCard(card=pc.card, zone=pc.zone, slot=slot,
                                   face_up=pc.face is Face.UP, joker=pc.joker,
                                   rotation=rotation, offset=offset, lifted=pc.lifted))
        top = _stub_top(model, camera)
        if top is not None:
            scene.append(SceneCard(card=top.card, zone=SHUFFLER, slot=0,
                                   face_up=top.face is Face.UP, joker=top.joker))
        return scene


def _lie(pc: PhysicalCard, slot: int, model: TableModel, camera: VirtualCamera
         ) -> tuple[float | None, tuple[float, float] | None]:
    """How a card lies besides its slot: ``(rotation, offset)`` overrides of the seeded jitter,
    or None. In the muck each card lies where it was pushed, over the others (seeded by its
    tag); a squared seat's second card lies almost on the first."""
    if pc.zone == MUCK:
        rng = np.random.default_rng(zlib.crc32(pc.uid))
        first = camera.layout.slots[MUCK][0]
        here = camera.layout.slots[MUCK][slot]
        return (float(rng.uniform(-35, 35)),
                (first.x - here.x + float(rng.normal(0, 16)),
                 first.y - here.y + float(rng.normal(0, 10))))
    if slot > 0 and model.squared(pc.zone):
        first = camera.layout.slots[pc.zone][0]
        here = camera.layout.slots[pc.zone][slot]
        rng = np.random.default_rng(zlib.crc32(pc.uid + b"sq"))
        return (float(rng.uniform(-6, 6)),
                (first.x - here.x + float(rng.uniform(3.5, 8)),
                 first.y - here.y + float(rng.uniform(3.5, 8))))
    return None, None


def covers_of(model: TableModel, camera: VirtualCamera) -> list[Cover]:
    """What lies over the cards the camera sees (the model's covers of zones in its view)."""
    return [Cover(zone, kind) for zone, kinds in sorted(model.covers.items())
            if camera.layout.slots.get(zone) for kind in kinds]


def _stub_top(model: TableModel, camera: VirtualCamera) -> PhysicalCard | None:
    """The stub's top card when the camera's layout covers the shuffler tray."""
    if not camera.layout.slots.get(SHUFFLER):
        return None
    stub = model.stub
    return stub[0] if stub else None


FRAMES_KEPT = 4
"""Frames, and felts with cards laid on them, the camera keeps (:class:`VirtualCamera`
``cache``: 2.8 MB each at 1280x720): a card dealt is drawn on the felt as the frame before
left it, a hand lifted off a zone gives back the frame from before it came."""
FRAME_INTERVAL = 0.1
"""The simulated camera takes a frame at least this often (10 a second) on the table's clock."""


@dataclass(slots=True)
class CameraChain:
    """One frame per look at the table (the runner looks every tick), and at least one every
    :attr:`frame_interval` of the table's clock: a real camera delivers frames at its own
    rate, however late the controller comes to look. When the table's clock jumps further
    (``run --sim`` on a loaded machine, whose loop stalls for a second or more), the table
    stops it at each frame owed (:meth:`owed`, :meth:`catch_up`); such a frame shows the
    table as the last look left it (the simulated dealer moves cards only when looked at) and
    what the tracker makes of it comes out of the next :meth:`poll`, at its own time."""

    model: TableModel
    camera: VirtualCamera
    analyser: FrameAnalyser
    tracker: CardTracker
    name: str = "camera"
    frames: int = 0
    analysed: int = 0
    frame_interval: float = FRAME_INTERVAL
    _version: int = -1
    _seen: TableView = field(default_factory=lambda: TableView([], frozenset()))
    _last: float | None = None
    held: list[Observation] = field(default_factory=list)  # from frames between two looks
    slots: SlotKeeper = field(default_factory=SlotKeeper)
    frozen_until: float | None = None

    def poll(self, now: float) -> list[Observation]:
        if self.frozen_until is not None and now >= self.frozen_until:
            self.frozen_until = None
        if self.frozen_until is None and self.model.version != self._version:
            self._version = self.model.version
            image = self.camera.render(self.slots.scene(self.model, self.camera),
                                       frame_index=self.frames,
                                       covers=covers_of(self.model, self.camera))
            self._seen = self.analyser.view(image)
            self.analysed += 1
        self.frames += 1
        self._last = now
        out, self.held = self.held, []
        out.extend(self.tracker.update(self._seen, now))
        return out

    def owed(self, target: float) -> float | None:
        """The time of the next frame owed before the clock reaches ``target`` (None when
        the next look comes in time, within 1.5 frame intervals of the last)."""
        if self._last is None:
            return None
        t = self._last + self.frame_interval
        return t if t < target - self.frame_interval / 2 else None

    def catch_up(self, t: float) -> None:
        """A frame at ``t`` between two looks: the last analysis again (the table has not
        changed since; a frozen camera repeats its last frame anyway)."""
        self.frames += 1
        self._last = t
        self.held.extend(self.tracker.update(self._seen, t))

    def next_due(self, now: float) -> float | None:
        return self.frozen_until

    def fault(self, kind: str, now: float) -> bool:
        if kind != "camera_freeze":
            return False
        self.frozen_until = now + FREEZE_SECONDS  # the last frame repeats meanwhile
        return True

    def close(self) -> None:
        self.camera.close()


def build_camera(model: TableModel, *, seed: int = 0, noise_sigma: float = 0.0,
                 stub_view: bool = False, felt: str = "green",
                 light: str = "neutral", cache: int | None = None) -> CameraChain:
    """The camera chain. Sensor noise is off by default: generating it costs most of a frame's
    rendering time, and the vision package's own tests cover recognition under noise.
    ``stub_view``: the camera's layout covers the shuffler tray (:func:`stub_layout`).
    ``felt`` (:data:`vision.props.FELTS`) and ``light`` (:data:`hw_sim.devices.camera.LIGHTS`):
    the table's cloth and the room's light. The table is calibrated as an installer does it,
    from two frames of the empty table. ``cache``: the frames and laid felts the camera keeps
    (None: :data:`FRAMES_KEPT`; 0: each frame drawn afresh, no memory kept for it)."""
    camera = VirtualCamera(layout=stub_layout() if stub_view else None, seed=seed,
                           noise_sigma=noise_sigma, felt=felt, light=light,
                           cache=FRAMES_KEPT if cache is None else cache)
    empty = learn_empty([camera.render([], frame_index=1_000_000 + k, covers=())
                         for k in range(2)])
    analyser = FrameAnalyser(Recogniser(sim_deck_templates()), layout=camera.layout,
                             table=empty)
    return CameraChain(model, camera, analyser, CardTracker())
