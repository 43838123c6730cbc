"""``table-controller vision``: enroll, detect --json, calibrate, through the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from table_controller.cli import main
from vision import render, synth

DECK = Path(__file__).resolve().parent / "data" / "vision" / "letele" / "cards"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("decks")
    assert main(["vision", "enroll", str(DECK), "--deck", "letele", "--store", str(root)]) == 0
    return root


def test_enroll_writes_the_deck(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (store / "letele" / "deck.json").is_file()
    assert len(list((store / "letele").glob("*.png"))) == 55  # 52 faces, the back, 2 jokers


def test_enroll_reports_a_bad_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["vision", "enroll", str(tmp_path / "none"), "--deck", "x",
                 "--store", str(tmp_path)])
    assert code == 1
    assert "not a folder" in capsys.readouterr().err


def test_detect_json_one_line_per_image(store: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    images = synth.load_deck_images(DECK)
    paths, truths = [], []
    for seed in (3, 4):  # seed 3 shows a face-up joker in the muck
        frame = synth.make_frame(images, seed)
        path = tmp_path / f"frame{seed}.jpg"
        cv2.imwrite(str(path), frame.image)
        paths.append(str(path))
        truths.append(frame)
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"nope")
    capsys.readouterr()
    code = main(["vision", "detect", *paths, str(broken), "--deck", "letele", "--json",
                 "--store", str(store)])
    out = capsys.readouterr()
    assert code == 1  # the broken image
    assert "broken.png: not a readable image" in out.err
    lines = [json.loads(line) for line in out.out.splitlines()]
    assert [line["image"] for line in lines] == paths
    for line, truth in zip(lines, truths, strict=True):
        assert set(line) == {"image", "cards"}
        assert len(line["cards"]) == len(truth.cards)
        for card in line["cards"]:
            assert set(card) == {"card", "corners"}
            assert len(card["corners"]) == 4 and all(len(p) == 2 for p in card["corners"])
        got = sorted(c["card"] for c in line["cards"])
        assert got == sorted(t.label for t in truth.cards)
        # Corners are image pixels: every detected card's centre is a true card's centre.
        centres = [t.corners.mean(axis=0) for t in truth.cards]
        for card in line["cards"]:
            c = np.array(card["corners"]).mean(axis=0)
            assert min(float(np.linalg.norm(c - t)) for t in centres) < 4
    assert "joker" in [c["card"] for c in lines[0]["cards"]]  # rules.md §5


def test_enroll_jokers_option_is_for_the_camera(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["vision", "enroll", str(DECK), "--deck", "x", "--jokers", "1",
                 "--store", str(tmp_path)])
    assert code == 2
    assert "--jokers is for --camera" in capsys.readouterr().err
    code = main(["vision", "enroll", "--camera", "sim", "--deck", "x", "--jokers", "100",
                 "--store", str(tmp_path)])
    assert code == 1
    assert "joker count 100 out of range" in capsys.readouterr().err


def test_detect_unknown_deck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["vision", "detect", "x.png", "--deck", "nope", "--store", str(tmp_path)])
    assert code == 1
    assert "not enrolled" in capsys.readouterr().err


def test_calibrate_draws_the_zones_from_the_config(store: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    frame = synth.make_frame(synth.load_deck_images(DECK), 9)
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), frame.image)
    config = tmp_path / "table.toml"
    config.write_text("[vision]\nsource = \"sim\"\n[vision.zones]\n"
                      "board = [[400, 240], [880, 240], [880, 410], [400, 410]]\n")
    out = tmp_path / "check.png"
    code = main(["vision", "calibrate", "--config", str(config), "--image", str(image),
                 "--deck", "letele", "--store", str(store), "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    drawn = cv2.imread(str(out))
    assert drawn is not None
    assert drawn.shape == frame.image.shape
    # The board outline is drawn in yellow along its top edge.
    assert (drawn[240, 450:830] == (0, 255, 255)).all(axis=1).mean() > 0.8
    assert f"{len(frame.cards)} cards" in capsys.readouterr().out
    # From the configured source (the simulator's camera) when no image is given.
    assert main(["vision", "calibrate", "--config", str(config), "--out", str(out)]) == 0
    assert main(["vision", "calibrate", "--print-zones"]) == 0
    assert "[vision.zones]" in capsys.readouterr().out


def test_calibrate_reports_a_broken_config(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text("[vision.zones]\nboard = 3\n")
    assert main(["vision", "calibrate", "--config", str(config)]) == 1
    assert "board" in capsys.readouterr().err


def test_enroll_from_the_camera_asks_card_by_card(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # The simulator's camera shows an empty table: the first card is asked for again until the
    # operator gives up (end of input), and nothing is stored.
    answers = iter(["", ""])

    def fake_input(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    code = main(["vision", "enroll", "--camera", "sim", "--deck", "cam",
                 "--store", str(tmp_path)])
    assert code == 1
    assert "aborted at 2s" in capsys.readouterr().err
    assert not (tmp_path / "cam").exists()


def test_detect_goes_on_after_a_frame_it_cannot_analyse(store: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    # A cloth printed with 1,500 card-like marks (a busy printed felt): once thousands of
    # outlines stacked for one cv2.remap call killed the command; now it is read like any frame.
    busy = render.felt(1280, 720, np.random.default_rng(0))
    for y in range(2, 700, 29):
        for x in range(2, 1260, 21):
            cv2.rectangle(busy, (x, y), (x + 15, y + 22), (240, 240, 240), -1)
    tiny = np.full((20, 20, 3), 128, np.uint8)  # no analysis possible: an error line for it
    paths = []
    for name, image in (("busy.png", busy), ("tiny.png", tiny)):
        cv2.imwrite(str(tmp_path / name), image)
        paths.append(str(tmp_path / name))
    frame = synth.make_frame(synth.load_deck_images(DECK), 4)
    cv2.imwrite(str(tmp_path / "table.png"), frame.image)
    paths.append(str(tmp_path / "table.png"))
    capsys.readouterr()
    code = main(["vision", "detect", *paths, "--deck", "letele", "--json", "--store", str(store)])
    out = capsys.readouterr()
    assert code == 1
    assert "tiny.png: frame too small" in out.err
    lines = [json.loads(line) for line in out.out.splitlines()]
    assert [line["image"] for line in lines] == [paths[0], paths[2]]  # and it went on
    assert len(lines[1]["cards"]) == len(frame.cards)


def test_calibrate_learns_the_empty_table_and_detect_uses_it(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    from benchmarks import bridge_deck
    from vision import scenes

    folder = bridge_deck.write_deck(tmp_path / "bridge")
    store = tmp_path / "store"
    assert main(["vision", "enroll", str(folder), "--deck", "bridge", "--store", str(store)]) == 0
    deck = synth.load_deck_images(folder)
    setup = scenes.make_setup(21, size=(1280, 720), felt="printed", tilt=30.0)
    empties = []
    for k in range(2):
        path = tmp_path / f"empty{k}.png"
        cv2.imwrite(str(path), scenes.render_empty(setup, k))
        empties.append(str(path))
    cards = tmp_path / "cards.png"
    cv2.imwrite(str(cards), scenes.render_calibration_cards(setup, deck))
    out, table = tmp_path / "ignored.png", tmp_path / "table.npz"
    capsys.readouterr()
    assert main(["vision", "calibrate", "--empty", *empties, "--out", str(out)]) == 0
    assert "learned the empty table from 2 frame(s)" in capsys.readouterr().out
    assert main(["vision", "calibrate", "--empty", *empties, "--cards", str(cards)]) == 2
    assert "--cards needs --deck" in capsys.readouterr().err
    code = main(["vision", "calibrate", "--empty", *empties, "--cards", str(cards), "--deck",
                 "bridge", "--store", str(store), "--out", str(out), "--save-table", str(table)])
    assert code == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert "and its plane" in said
    # The light measured on the backs laid is the camera's white balance, undone.
    gains = re.search(r"the room's light on the \d+ backs laid.*gains blue ([\d.]+), "
                      r"green ([\d.]+), red ([\d.]+)", said)
    assert gains is not None, said
    cast = np.array(scenes.WHITE_BALANCE[setup.white_balance])
    undo = 1 / cast / np.exp(np.log(1 / cast).mean())
    assert np.allclose([float(g) for g in gains.groups()], undo, atol=0.08), (said, undo)
    picture = cv2.imread(str(out))
    assert picture is not None and picture.shape == (720, 1280, 3)
    # The zones in image coordinates and the calibrated table, from the configuration.
    zones = "\n".join(f"{name} = {[[round(x), round(y)] for x, y in poly]}"
                      for name, poly in setup.layout().zones.items())
    config = tmp_path / "table.toml"
    config.write_text(f"[vision]\ntable = \"{table}\"\ncard_height = "
                      f"{setup.layout().card_height:.1f}\nwidth = 1280\nheight = 720\n"
                      f"[vision.zones]\n{zones}\n")
    scene = scenes.make_scene(setup, deck, 3)
    image = tmp_path / "scene.png"
    cv2.imwrite(str(image), scene.image)
    assert main(["vision", "detect", str(image), "--deck", "bridge", "--store", str(store),
                 "--config", str(config), "--json"]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    shown = [c for c in scene.cards if c.visible >= 0.6]
    assert len(line["cards"]) >= 0.8 * len(shown)
