"""Any deck enrols: scans of any card shape (poker, bridge, narrow), with or without a border of
their own, on white or cut out, and photos of each card on any cloth; the deck keeps its shape."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks import bridge_deck
from table_controller.cli import main
from table_controller.vocabulary.cards import DECK
from vision import render, synth
from vision.templates import (
    EnrolmentError,
    enroll_from_folder,
    enroll_from_frames,
    extract_card_shape,
    load_deck,
    save_deck,
)


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bridge_deck.write_deck(tmp_path_factory.mktemp("bridge"))


def _on_white(folder: Path, out: Path, size: tuple[int, int]) -> Path:
    """Every picture flattened on white and resized to ``size``: plain scans."""
    out.mkdir()
    for path in folder.glob("*.png"):
        img = np.asarray(cv2.imread(str(path), cv2.IMREAD_UNCHANGED), np.uint8)
        alpha = img[:, :, 3:4] / 255.0
        flat = (img[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)
        cv2.imwrite(str(out / path.name), cv2.resize(flat, size, interpolation=cv2.INTER_AREA))
    return out


def test_a_plain_bridge_scan_on_white_enrols(bridge: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # Once: "expected exactly one card on the felt, found 2" for a 193x300 scan on white.
    scans = _on_white(bridge, tmp_path / "scans", (193, 300))
    code = main(["vision", "enroll", str(scans), "--deck", "bridge", "--store",
                 str(tmp_path / "store")])
    assert code == 0, capsys.readouterr().err
    deck = load_deck("bridge", tmp_path / "store")
    assert deck.aspect == pytest.approx(193 / 300, abs=0.005)
    assert len(deck.faces) == 52


def test_cut_out_scans_of_any_shape(bridge: Path) -> None:
    deck = enroll_from_folder(bridge, "bridge")  # transparent corners, borderless back
    assert deck.aspect == pytest.approx(56 / 87, abs=0.01)
    face = np.asarray(cv2.imread(str(bridge / "As.png"), cv2.IMREAD_UNCHANGED), np.uint8)
    narrow = cv2.resize(face, (150, 300))
    _, shape = extract_card_shape(narrow)
    assert shape == pytest.approx(0.5)
    with pytest.raises(EnrolmentError, match="not card-shaped"):
        extract_card_shape(cv2.resize(face, (300, 310)))
    landscape = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
    pic, shape = extract_card_shape(landscape)
    assert pic.shape[0] > pic.shape[1] and shape == pytest.approx(56 / 87, abs=0.01)


@pytest.mark.parametrize("felt", [(140, 82, 24), (112, 112, 106), (30, 30, 32)],
                         ids=["blue", "grey", "black"])
def test_photos_on_any_cloth(bridge: Path, felt: tuple[int, int, int]) -> None:
    images = synth.load_deck_images(bridge)

    def photo(label: str) -> np.ndarray:
        frame = render.felt(480, 360, np.random.default_rng(4), felt)
        render.paste(frame, images[label], render.card_quad(240, 180, 150 * 56 / 87, 150, 7))
        return frame

    deck = enroll_from_frames([(label, photo(label)) for label in ("As", "Td", "back")], "p")
    assert set(deck.faces) == {"As", "Td"}
    assert deck.aspect == pytest.approx(56 / 87, abs=0.03)
    empty = render.felt(480, 360, np.random.default_rng(5), felt)
    with pytest.raises(EnrolmentError, match="found 0"):
        enroll_from_frames([("As", empty)], "p")


def test_the_shape_is_stored_with_the_deck(bridge: Path, tmp_path: Path) -> None:
    deck = enroll_from_folder(bridge, "bridge")
    save_deck(deck, tmp_path)
    assert load_deck("bridge", tmp_path).aspect == pytest.approx(deck.aspect, abs=1e-3)
    assert {str(c) for c in DECK} == set(deck.faces)
