"""A muck pile on the simulated camera, through the real vision code: folded hands pushed into
an overlapping pile beside the board do not make the camera report the board or the muck as
covered by a hand. The camera soak of 2026-12-02 met the pile below (table seed 2031, its
39th hand): its cards, each under others, were left out by the peeling (their sides in view
not borne out), which left most of the pile unexplained. It was taken for a hand over the
board and the muck, held occluded while the pile lay there, and the river dealt beside it was
never seen, so the hand could not reach its showdown."""

from __future__ import annotations

from hw_sim.devices.camera_chain import build_camera, covers_of
from hw_sim.devices.table_model import TableModel
from hw_sim.harness.behaviours import table_setting
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import Face

SEED = 2031
BOARD = ("8d", "Qd", "4s", "Qh")
BURN = ("3s", "3d")
MUCK = ("3c", "Ac", "4h", "Kc", "5h", "Jh", "7c", "2c")  # pushed in this order


def test_the_soaks_muck_pile_is_not_a_hand_over_the_board() -> None:
    felt, light = table_setting(SEED)
    model = TableModel()
    chain = build_camera(model, seed=SEED, felt=felt, light=light, cache=0)
    for zone, cards, face in (("board", BOARD, Face.UP), ("burn", BURN, Face.DOWN)):
        for text in cards:
            model.place(model.find_in_stub(parse_card(text)), zone, face)
    held: list[tuple[int, list[str]]] = []
    for n, text in enumerate(MUCK, start=1):
        model.place(model.find_in_stub(parse_card(text)), "muck", Face.DOWN)
        view = chain.analyser.view(chain.camera.render(
            chain.slots.scene(model, chain.camera), frame_index=n,
            covers=covers_of(model, chain.camera)))
        if view.occluded & {"board", "muck"}:
            held.append((n, sorted(view.occluded)))
        assert sum(c.zone == "board" for c in view.cards) == len(BOARD)
    assert held == []
