"""Camera card recognition on a synthetic test set drawn from a deck the simulator does not use.

The deck is the CC0 design of the npm package @letele/playing-cards (tests/data/vision/letele,
see docs/vision.md). Each frame is 1280x720 felt seen from slightly off square (perspective),
cards turned up to 15 degrees either way and half of them upside down, board cards touching,
uneven light, glare, blur, noise and JPEG compression (vision.synth). The deck is enrolled from
its folder exactly as an installer would (``vision enroll``).

About a third of the frames show one face-up joker (the package's two joker designs, enrolled as
``joker.png`` and ``joker2.png``; rules.md §5, alert JOKER). Figures: card identity on face-up
cards (jokers apart), jokers read as jokers, cards wrongly read as a joker, face or back on all
cards, the number of cards per image, and milliseconds per frame (wall clock with OpenCV's
default threads, and CPU time on one thread). The worst failures are written as pictures to
benchmarks/out/vision/.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import cv2
import numpy as np

from vision import render, synth
from vision.analyse import FrameAnalyser, SeenCard
from vision.detect import order_corners
from vision.layout import default_layout
from vision.recognise import Recogniser
from vision.templates import JOKER, enroll_from_folder

ROOT = Path(__file__).resolve().parent.parent
DECK = ROOT / "tests" / "data" / "vision" / "letele" / "cards"
OUT = Path(__file__).resolve().parent / "out" / "vision"
SEED0 = 10_000

GOALS = {"identity": 0.995, "joker_identity": 0.995, "face_or_back": 0.999, "count": 0.995,
         "ms_per_frame": 15.0}


def _match(truth: np.ndarray, seen: list[SeenCard], used: set[int]) -> int | None:
    centre = truth.mean(axis=0)
    best, best_d = None, 0.35 * float(np.linalg.norm(truth[2] - truth[0]))
    for i, s in enumerate(seen):
        if i in used:
            continue
        d = float(np.linalg.norm(s.corners.mean(axis=0) - centre))
        if d < best_d:
            best, best_d = i, d
    return best


def _picture(frame: synth.SynthFrame, truth: np.ndarray, seen: SeenCard | None,
             caption: str) -> np.ndarray:
    img = frame.image.copy()
    cv2.polylines(img, [np.round(truth).astype(np.int32)], True, (0, 255, 255), 1, cv2.LINE_AA)
    if seen is not None:
        cv2.polylines(img, [np.round(seen.corners).astype(np.int32)], True, (255, 0, 0), 1,
                      cv2.LINE_AA)
    cx, cy = (int(v) for v in truth.mean(axis=0))
    h, w = img.shape[:2]
    x0, y0 = min(max(cx - 110, 0), w - 220), min(max(cy - 90, 0), h - 180)
    crop = cv2.resize(img[y0:y0 + 180, x0:x0 + 220], None, fx=2, fy=2,
                      interpolation=cv2.INTER_NEAREST)
    cv2.rectangle(crop, (0, 0), (440, 22), (0, 0, 0), -1)
    cv2.putText(crop, caption, (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1,
                cv2.LINE_AA)
    return crop


def main(quick: bool) -> dict[str, object]:
    n_frames = 60 if quick else 400
    deck_images = synth.load_deck_images(DECK)
    recogniser = Recogniser(enroll_from_folder(DECK, "letele"))
    analyser = FrameAnalyser(recogniser, layout=default_layout())
    faces = faces_ok = cards = face_back_ok = counts_ok = 0
    jokers = jokers_ok = false_jokers = 0
    wall: list[float] = []
    failures: list[tuple[float, np.ndarray]] = []
    frames = [synth.make_frame(deck_images, SEED0 + i) for i in range(n_frames)]
    for frame in frames:
        t0 = time.perf_counter()
        seen = analyser.analyse(frame.image)
        wall.append(time.perf_counter() - t0)
        counts_ok += len(seen) == len(frame.cards)
        used: set[int] = set()
        for truth in frame.cards:
            corners = order_corners(truth.corners)
            i = _match(corners, seen, used)
            got = seen[i] if i is not None else None
            if i is not None:
                used.add(i)
            cards += 1
            label = got.label if got is not None else "missed"
            fb = got is not None and (got.label == "back") == (truth.label == "back")
            face_back_ok += fb
            if truth.label == JOKER:
                jokers += 1
                jokers_ok += label == JOKER
            elif truth.label != "back":
                faces += 1
                faces_ok += label == truth.label
            if label == JOKER and truth.label != JOKER:
                false_jokers += 1
            if label != truth.label:
                # Worst first: a missed card, then a confident wrong answer.
                badness = 10.0 if got is None else 1.0 + max(got.margin, 0.0)
                caption = f"seed {frame.seed} {truth.zone}: {truth.label} read as {label}"
                if got is not None:
                    caption += f" (margin {got.margin:.3f})"
                failures.append((badness, _picture(frame, corners, got, caption)))
        for i, s in enumerate(seen):
            if i not in used:
                failures.append((5.0, _picture(frame, s.corners, s,
                                               f"seed {frame.seed}: extra card {s.label}")))
    # Cost per frame when the CPU is ours: each frame is timed three times and the fastest kept
    # (other work on a shared machine only ever adds time), wall clock with OpenCV's default
    # threads, then CPU time on one thread.
    timed = frames[: min(60, n_frames)]
    best_wall: list[float] = []
    for frame in timed:
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            analyser.analyse(frame.image)
            runs.append(time.perf_counter() - t0)
        best_wall.append(min(runs))
    cv2.setNumThreads(1)
    cpu: list[float] = []
    for frame in timed:
        runs = []
        for _ in range(3):
            t0 = time.process_time()
            analyser.analyse(frame.image)
            runs.append(time.process_time() - t0)
        cpu.append(min(runs))
    # A still table on video: the remembering analyser sees each frame, then the same scene
    # again with fresh sensor noise, and reads again only what changed (nothing here).
    still: list[float] = []
    rng = np.random.default_rng(1)
    for frame in timed:
        video = FrameAnalyser(recogniser, layout=default_layout(), remember=True)
        video.analyse(frame.image)
        again = render.noise(frame.image, rng, 2.0)
        runs = []
        for _ in range(3):
            t0 = time.process_time()
            video.analyse(again)
            runs.append(time.process_time() - t0)
        still.append(min(runs))
    cv2.setNumThreads(-1)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / ".gitignore").write_text("*\n")  # pictures of a run, never committed
    for old in OUT.glob("failure_*.png"):
        old.unlink()
    failures.sort(key=lambda f: -f[0])
    for k, (_, pic) in enumerate(failures[:12]):
        cv2.imwrite(str(OUT / f"failure_{k:02d}.png"), pic)
    figures: dict[str, object] = {
        "frames": n_frames,
        "cards": cards,
        "face_up_cards": faces,
        "identity": round(faces_ok / max(faces, 1), 5),
        "jokers": jokers,
        "joker_identity": round(jokers_ok / max(jokers, 1), 5),
        "cards_read_as_joker": false_jokers,
        "face_or_back": round(face_back_ok / max(cards, 1), 5),
        "count": round(counts_ok / n_frames, 5),
        "ms_per_frame_wall_median": round(1000 * float(np.median(best_wall)), 2),
        "ms_per_frame_wall_p95": round(1000 * float(np.percentile(best_wall, 95)), 2),
        "ms_per_frame_cpu_1thread_median": round(1000 * float(np.median(cpu)), 2),
        "ms_per_frame_cpu_1thread_p95": round(1000 * float(np.percentile(cpu, 95)), 2),
        "ms_per_frame_first_pass_wall_median": round(1000 * float(np.median(wall)), 2),
        "ms_per_frame_first_pass_wall_p95": round(1000 * float(np.percentile(wall, 95)), 2),
        "ms_per_frame_still_table_cpu_median": round(1000 * float(np.median(still)), 2),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "failures": len(failures),
        "failure_pictures": str(OUT),
    }
    print(f"{'figure':<34}{'value':>12}  goal")
    goal_of = {"identity": ">= 0.995", "joker_identity": ">= 0.995",
               "cards_read_as_joker": "0", "face_or_back": ">= 0.999", "count": ">= 0.995",
               "ms_per_frame_wall_median": "< 15", "ms_per_frame_cpu_1thread_median": "< 15",
               "ms_per_frame_cpu_1thread_p95": "< 15"}
    for key, value in figures.items():
        print(f"{key:<34}{value!s:>12}  {goal_of.get(key, '')}")
    return figures


if __name__ == "__main__":
    main(quick=True)
