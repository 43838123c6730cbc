"""The room's light on the deck's back, measured on the backs an installer lays to calibrate the
table, and undone before face or back is decided. Scenes of :mod:`vision.scenes` drawn with the
letele development deck (a pink lattice back, grey under a cool light)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.bench_vision_table import iou
from vision import scenes
from vision.analyse import FrameAnalyser
from vision.empty_table import LAID, EmptyTable, TableCalibrationError
from vision.recognise import Recogniser


def _undone(balance: str) -> np.ndarray:
    """The gains that undo a white balance, their overall level left out."""
    undo = 1.0 / np.array(scenes.WHITE_BALANCE[balance])
    return np.asarray(undo / np.exp(np.log(undo).mean()))


@pytest.mark.parametrize("balance", ["neutral", "cool"])
def test_the_light_measured_on_the_laid_backs_is_the_white_balance_undone(
        balance: str, letele_deck: dict[str, np.ndarray], letele_recogniser: Recogniser) -> None:
    setup = scenes.make_setup(31, size=(1280, 720), felt="grey", white_balance=balance,
                              tilt=25.0)
    table = scenes.calibrated_table(setup, letele_deck, aspect=letele_recogniser.aspect)
    assert table.laid is not None and table.laid.shape[1:] == (LAID[0], 3)
    light = letele_recogniser.room_light(table.laid)
    assert light is not None
    assert np.allclose(light, _undone(balance), atol=0.06), (light, _undone(balance))


def test_a_warm_light_is_undone_as_far_as_the_red_channel_allows(
        letele_deck: dict[str, np.ndarray], letele_recogniser: Recogniser) -> None:
    """Under a warm light the back's red is clipped (it is at full scale in the enrolled
    picture already): blue is raised, red lowered, by less than the cast."""
    setup = scenes.make_setup(32, size=(1280, 720), felt="blue", white_balance="warm")
    table = scenes.calibrated_table(setup, letele_deck, aspect=letele_recogniser.aspect)
    assert table.laid is not None
    light = letele_recogniser.room_light(table.laid)
    assert light is not None
    assert light[0] > 1.05 and light[2] < 1.0


def test_backs_under_a_cool_light_are_read_as_backs(letele_deck: dict[str, np.ndarray],
                                                    letele_recogniser: Recogniser) -> None:
    """On black cloth at 640x480 under a cool light the lattice is lost and its pink is grey:
    as the camera gives them, half of these backs read as clubs and spades. With the light
    measured at calibration undone, every one is a back."""
    setup = scenes.make_setup(913, size=(640, 480), felt="black", white_balance="cool",
                              tilt=22.2, low_light=False)
    table = scenes.calibrated_table(setup, letele_deck, aspect=letele_recogniser.aspect)
    analyser = FrameAnalyser(letele_recogniser, layout=setup.layout(), table=table)
    assert analyser.light is not None
    scene = scenes.make_scene(setup, letele_deck, 1)
    view = analyser.view(scene.image)
    backs = [c for c in scene.cards if not c.face_up and c.visible >= 0.6
             and c.group == "single"]
    assert len(backs) >= 6
    read = [[s.label for s in view.cards if iou(c.corners, s.corners) >= 0.5] for c in backs]
    assert read == [["back"]] * len(backs)


def test_faces_laid_for_the_plane_give_no_light(letele_deck: dict[str, np.ndarray],
                                                letele_recogniser: Recogniser) -> None:
    """Cards laid face up are no measure of the back: the light is not known, and face or back
    is decided on the colours as the camera gives them."""
    setup = scenes.make_setup(33, size=(1280, 720), felt="green", white_balance="cool")
    table = scenes.calibrated_table(setup, {"back": letele_deck["Qh"]},
                                    aspect=letele_recogniser.aspect)
    assert table.plane is not None and table.laid is not None
    assert letele_recogniser.room_light(table.laid) is None
    assert FrameAnalyser(letele_recogniser, layout=setup.layout(), table=table).light is None


def test_the_laid_cards_are_saved_with_the_table(tmp_path: Path, letele_deck: dict[str, np.ndarray],
                                                 letele_recogniser: Recogniser) -> None:
    setup = scenes.make_setup(34, size=(640, 480), felt="printed")
    table = scenes.calibrated_table(setup, letele_deck, aspect=letele_recogniser.aspect)
    path = tmp_path / "table.npz"
    table.save(path)
    loaded = EmptyTable.load(path)
    assert loaded.laid is not None and table.laid is not None
    assert np.array_equal(loaded.laid, table.laid)
    # A calibration saved before the laid cards were kept: none, and no error.
    with np.load(path) as data:
        old = {k: data[k] for k in data.files if k != "laid"}
    np.savez_compressed(tmp_path / "old.npz", **old)
    assert EmptyTable.load(tmp_path / "old.npz").laid is None
    # Laid cards of no card's shape: the file is refused, naming what is wrong.
    np.savez_compressed(tmp_path / "bad.npz", **old, laid=np.zeros((49, LAID[0], 3), np.uint8))
    with pytest.raises(TableCalibrationError, match="laid cards of shape"):
        EmptyTable.load(tmp_path / "bad.npz")
