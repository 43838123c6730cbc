"""The camera path at a table in play, on a deck it was never tuned on, per condition.

Scenes come from :mod:`vision.scenes` (stacked and squared hole cards, hands and sleeves over the
board, blue/grey/black/printed cloths, cool and warm light, low light, 20-40 degree perspective,
640x480 to 1920x1080, muck piles, chips, protectors, blur), drawn with the held-out bridge-size
deck of :mod:`benchmarks.bridge_deck`. The deck is enrolled from its scans as an installer would
(``vision enroll``); should that fail, the failure is reported and the deck is enrolled from
photos of each card on the felt instead. Each table is set up once as an installer would:
:func:`vision.scenes.calibrated_table` from frames of the empty table (and the zones, in
image coordinates), then its scenes are analysed.

Figures, overall and per condition (an image counts for every condition it shows):

- identity: face-up cards at least 60% visible read as the right card;
- face/back: cards at least 60% visible read as face or back rightly;
- count: images in which every card showing at least 10% of itself and not under a hand is
  found and nothing else is (a card under a hand, or almost hidden, may be found or not);
- false cards per real card: detections matching no card (intersection over union < 0.5 with
  every card, or a second detection of one card), over the cards to be counted;
- occlusion: scenes with a hand over cards whose every such zone the analyser reports occluded,
  and zones reported occluded with nothing over them;
- ms per 1280x720 frame: wall clock as each frame comes, and CPU time on one thread (the
  fastest of three runs of each frame), median and p95;
- reading alone: identity and face/back as above, each card read on its ground-truth outline
  (``Recogniser.classify_many`` on the scene's corners), so what the reading gets wrong is
  told from what the finding does; and its CPU time per 1280x720 frame.

The worst failures of each kind (missed, misread, false cards; six each) are written as pictures
to benchmarks/out/vision_table/.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from benchmarks import bridge_deck
from table_controller.vocabulary.cards import DECK
from vision import props, render, scenes, synth
from vision.analyse import FrameAnalyser, SeenCard
from vision.arrays import Image, Quad
from vision.detect import order_corners
from vision.recognise import Recogniser
from vision.templates import DeckTemplates, EnrolmentError, enroll_from_folder, enroll_from_frames

OUT = Path(__file__).resolve().parent / "out" / "vision_table"
GOALS = {"identity": 0.995, "face_back": 0.999, "count": 0.98, "false_per_card": 0.005,
         "ms_p95_1280x720": 15.0}
SIZES = scenes.RESOLUTIONS
FELTS = tuple(props.FELTS)
BALANCES = tuple(scenes.WHITE_BALANCE)


def table_plan(n_tables: int) -> list[dict[str, object]]:
    """Every felt, size, white balance and tilt range in turn; every fourth table in low light."""
    plan: list[dict[str, object]] = []
    for i in range(n_tables):
        plan.append({"felt": FELTS[i % len(FELTS)], "size": SIZES[(i // 2) % len(SIZES)],
                     "white_balance": BALANCES[(i // 3) % len(BALANCES)],
                     "tilt": (20.0 + 20.0 * ((i * 7) % 10) / 9) if i % 2 else 10.0 * (i % 3) / 2,
                     "low_light": i % 4 == 3})
    return plan


def iou(a: Quad, b: Quad) -> float:
    pa = np.asarray(a, np.float32).reshape(-1, 1, 2)
    pb = np.asarray(b, np.float32).reshape(-1, 1, 2)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    union = abs(cv2.contourArea(pa)) + abs(cv2.contourArea(pb)) - inter
    return float(inter / union) if union > 0 else 0.0


@dataclass(slots=True)
class Tally:
    identity: list[int] = field(default_factory=lambda: [0, 0])
    face_back: list[int] = field(default_factory=lambda: [0, 0])
    count: list[int] = field(default_factory=lambda: [0, 0])
    false: int = 0
    required: int = 0
    occluded: list[int] = field(default_factory=lambda: [0, 0])
    false_occluded: int = 0
    read_identity: list[int] = field(default_factory=lambda: [0, 0])
    read_face_back: list[int] = field(default_factory=lambda: [0, 0])

    def add(self, other: Tally) -> None:
        for name in ("identity", "face_back", "count", "occluded", "read_identity",
                     "read_face_back"):
            a, b = getattr(self, name), getattr(other, name)
            a[0] += b[0]
            a[1] += b[1]
        self.false += other.false
        self.required += other.required
        self.false_occluded += other.false_occluded

    def row(self) -> dict[str, object]:
        def share(v: list[int]) -> float | None:
            return round(v[0] / v[1], 4) if v[1] else None

        return {"identity": share(self.identity), "face_up_cards": self.identity[1],
                "face_back": share(self.face_back), "cards": self.face_back[1],
                "count": share(self.count), "images": self.count[1],
                "false_per_card": round(self.false / max(self.required, 1), 4),
                "occluded_seen": share(self.occluded), "false_occluded": self.false_occluded,
                "read_identity": share(self.read_identity),
                "read_face_back": share(self.read_face_back)}


@dataclass(slots=True)
class Failure:
    badness: float
    scene: scenes.TableScene
    quad: Quad
    seen: SeenCard | None
    caption: str


def score(scene: scenes.TableScene, seen: Sequence[SeenCard], occluded: frozenset[str],
          failures: list[Failure]) -> Tally:
    tally = Tally()
    pairs = sorted(((iou(c.corners, s.corners), i, j) for i, c in enumerate(scene.cards)
                    for j, s in enumerate(seen)), reverse=True)
    match: dict[int, int] = {}
    used: set[int] = set()
    for value, i, j in pairs:
        if value < 0.5:
            break
        if i not in match and j not in used:
            match[i] = j
            used.add(j)
    count_ok = True
    for i, card in enumerate(scene.cards):
        got = seen[match[i]] if i in match else None
        required = card.visible >= scenes.VISIBLE_TO_COUNT and not card.under_hand
        tally.required += required
        if required and got is None:
            count_ok = False
            failures.append(Failure(6.0 + card.visible, scene, card.corners, None,
                                    f"{card.group} {card.label} ({card.visible:.0%} visible) "
                                    "missed"))
        if card.visible < 0.6:
            continue
        tally.face_back[1] += 1
        fb = got is not None and got.face_up == card.face_up
        tally.face_back[0] += fb
        if card.face_up:
            tally.identity[1] += 1
            tally.identity[0] += got is not None and got.label == card.label
        if got is not None and got.label != card.label:
            failures.append(Failure(2.0 + max(got.margin, 0.0), scene, card.corners, got,
                                    f"{card.group} {card.label} read as {got.label} "
                                    f"(margin {got.margin:.2f})"))
    for j, s in enumerate(seen):
        if j not in used:
            tally.false += 1
            count_ok = False
            failures.append(Failure(5.0, scene, s.corners, s, f"false card {s.label}"))
    tally.count = [int(count_ok), 1]
    covered = {c.zone for c in scene.cards if c.under_hand}
    if covered:
        tally.occluded = [int(covered <= occluded), 1]
    tally.false_occluded = len(occluded - scene.occluded_zones)
    return tally


def read_alone(recogniser: Recogniser, scene: scenes.TableScene, tally: Tally,
               light: np.ndarray | None = None) -> None:
    """Reading alone: every card at least 60% visible read on its ground-truth outline (in
    the room's ``light`` as the table's calibration measured it)."""
    cards = [c for c in scene.cards if c.visible >= 0.6]
    got = recogniser.classify_many(scene.image, [order_corners(c.corners) for c in cards],
                                   light=light)
    for card, rec in zip(cards, got, strict=True):
        tally.read_face_back[1] += 1
        tally.read_face_back[0] += rec.face_up == card.face_up
        if card.face_up:
            tally.read_identity[1] += 1
            tally.read_identity[0] += rec.label == card.label


def picture(failure: Failure) -> Image:
    img = failure.scene.image.copy()
    cv2.polylines(img, [np.round(failure.quad).astype(np.int32)], True, (0, 255, 255), 2,
                  cv2.LINE_AA)
    if failure.seen is not None:
        cv2.polylines(img, [np.round(failure.seen.corners).astype(np.int32)], True,
                      (255, 0, 255), 1, cv2.LINE_AA)
    cx, cy = (int(v) for v in failure.quad.mean(axis=0))
    h, w = img.shape[:2]
    side = max(int(np.ptp(failure.quad, axis=0).max() * 1.6), 120)
    x0, y0 = min(max(cx - side // 2, 0), max(w - side, 0)), min(max(cy - side // 2, 0),
                                                                max(h - side, 0))
    crop = cv2.resize(img[y0:y0 + side, x0:x0 + side], (360, 360), interpolation=cv2.INTER_AREA)
    text = f"{failure.caption}; {' '.join(sorted(failure.scene.conditions))}"
    band = np.zeros((40, 360, 3), np.uint8)
    for k, line in enumerate((text[:58], text[58:116])):
        cv2.putText(band, line, (4, 15 + 17 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (255, 255, 255), 1, cv2.LINE_AA)
    return np.vstack([band, crop])


def enrol(folder: Path) -> tuple[DeckTemplates, str]:
    """The deck from its scans; if that fails, from photos of each card on green felt."""
    try:
        return enroll_from_folder(folder, "bridge"), "scans"
    except EnrolmentError as exc:
        reason = str(exc)
    images = synth.load_deck_images(folder)
    rng = np.random.default_rng(5)
    frames = []
    for label in [str(c) for c in DECK] + ["back"]:
        felt = render.felt(640, 480, rng)
        h = 220.0
        render.paste(felt, images[label], render.card_quad(
            320, 240, h * images[label].shape[1] / images[label].shape[0], h, 0.0))
        frames.append((label, felt))
    return enroll_from_frames(frames, "bridge"), f"photos (scans failed: {reason})"


def analyser_for(recogniser: Recogniser, setup: scenes.TableSetup,
                 deck_images: dict[str, Image]) -> FrameAnalyser:
    """The camera path as installed at this table: calibrated on three frames of the empty
    table and one of a few backs laid apart (the plane, and the room's light on the backs),
    the zones in image coordinates."""
    table = scenes.calibrated_table(setup, deck_images, aspect=recogniser.aspect)
    return FrameAnalyser(recogniser, layout=setup.layout(), table=table)


def main(quick: bool) -> dict[str, object]:
    return measure(*((6, 6) if quick else (24, 25)))


def measure(n_tables: int, per_table: int, *, show: bool = True) -> dict[str, object]:
    """Figures on ``n_tables`` tables of ``per_table`` scenes each (printed when ``show``)."""
    with tempfile.TemporaryDirectory(prefix="bridge_deck_") as tmp:
        folder = bridge_deck.write_deck(Path(tmp))
        deck_images = synth.load_deck_images(folder)
        templates, how = enrol(folder)
    recogniser = Recogniser(templates)
    by_condition: dict[str, Tally] = defaultdict(Tally)
    overall = Tally()
    failures: list[Failure] = []
    times: list[float] = []
    timed: list[tuple[FrameAnalyser, Image]] = []
    reading: list[tuple[Recogniser, scenes.TableScene]] = []
    for t, choice in enumerate(table_plan(n_tables)):
        setup = scenes.make_setup(900 + t, **choice)  # type: ignore[arg-type]
        analyser = analyser_for(recogniser, setup, deck_images)
        for k in range(per_table):
            scene = scenes.make_scene(setup, deck_images, k)
            t0 = time.perf_counter()
            view = analyser.view(scene.image)
            seen, occluded = view.cards, view.occluded
            elapsed = time.perf_counter() - t0
            if (setup.width, setup.height) == (1280, 720):
                times.append(elapsed)
                timed.append((analyser, scene.image))
            tally = score(scene, seen, occluded, failures)
            read_alone(recogniser, scene, tally, analyser.light)
            if (setup.width, setup.height) == (1280, 720):
                reading.append((recogniser, scene))
            overall.add(tally)
            for cond in scene.conditions | {"all"}:
                by_condition[cond].add(tally)
    # CPU time on one thread, each 1280x720 frame the fastest of three runs: what the frame
    # costs when the processor is ours (other work on a shared machine only adds to it).
    cv2.setNumThreads(1)
    cpu: list[float] = []
    for analyser, image in timed:
        runs = []
        for _ in range(3):
            t0 = time.process_time()
            analyser.view(image)
            runs.append(time.process_time() - t0)
        cpu.append(min(runs))
    read_cpu: list[float] = []
    for rec, scene in reading:
        quads = [order_corners(c.corners) for c in scene.cards if c.visible >= 0.6]
        runs = []
        for _ in range(3):
            t0 = time.process_time()
            rec.classify_many(scene.image, quads)
            runs.append(time.process_time() - t0)
        read_cpu.append(min(runs))
    cv2.setNumThreads(-1)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / ".gitignore").write_text("*\n")
    for old in OUT.glob("failure_*.png"):
        old.unlink()
    # The worst failures of each kind: cards missed, cards misread, false cards.
    failures.sort(key=lambda f: -f.badness)
    for kind, word in (("missed", "missed"), ("misread", "read as"), ("false", "false card")):
        worst = [f for f in failures if word in f.caption][:6]
        for k, failure in enumerate(worst):
            cv2.imwrite(str(OUT / f"failure_{kind}_{k}.png"), picture(failure))
    rows = {name: by_condition[name].row() for name in sorted(by_condition)}
    figures: dict[str, object] = {
        "enrolled_from": how,
        "tables": n_tables, "scenes": n_tables * per_table,
        **overall.row(),
        "ms_1280x720_median": round(1000 * float(np.median(times)), 2) if times else None,
        "ms_1280x720_p95": round(1000 * float(np.percentile(times, 95)), 2) if times else None,
        "ms_1280x720_cpu_1thread_median": round(1000 * float(np.median(cpu)), 2) if cpu
        else None,
        "ms_1280x720_cpu_1thread_p95": round(1000 * float(np.percentile(cpu, 95)), 2) if cpu
        else None,
        "ms_1280x720_reading_cpu_1thread_median": round(1000 * float(np.median(read_cpu)), 2)
        if read_cpu else None,
        "ms_1280x720_reading_cpu_1thread_p95": round(
            1000 * float(np.percentile(read_cpu, 95)), 2) if read_cpu else None,
        "load_average_1min": round(os.getloadavg()[0], 2),
        "per_condition": rows,
        "failure_pictures": str(OUT),
    }
    if not show:
        return figures
    print(f"deck enrolled from {how}")
    head = f"{'condition':<16}{'identity':>10}{'face/back':>10}{'count':>8}{'false':>8}" \
           f"{'occl':>7}{'images':>8}{'read id':>9}{'read f/b':>9}"
    print(head)
    for name, row in rows.items():
        def fmt(v: object) -> str:
            return "-" if v is None else f"{float(v):.3f}"  # type: ignore[arg-type]

        print(f"{name:<16}{fmt(row['identity']):>10}{fmt(row['face_back']):>10}"
              f"{fmt(row['count']):>8}{fmt(row['false_per_card']):>8}"
              f"{fmt(row['occluded_seen']):>7}{row['images']!s:>8}"
              f"{fmt(row['read_identity']):>9}{fmt(row['read_face_back']):>9}")
    print(f"ms per 1280x720 frame, wall clock first pass: median {figures['ms_1280x720_median']}"
          f", p95 {figures['ms_1280x720_p95']}; CPU one thread, fastest of 3: median "
          f"{figures['ms_1280x720_cpu_1thread_median']}, p95 "
          f"{figures['ms_1280x720_cpu_1thread_p95']} (goal p95 <= {GOALS['ms_p95_1280x720']}; "
          f"load average {figures['load_average_1min']}); reading alone, CPU one thread: "
          f"median {figures['ms_1280x720_reading_cpu_1thread_median']}, p95 "
          f"{figures['ms_1280x720_reading_cpu_1thread_p95']}")
    return figures


if __name__ == "__main__":
    main(quick=True)
