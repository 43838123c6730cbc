"""Helpers of the tests that drive the simulated camera chain frame by frame."""

from __future__ import annotations

from collections.abc import Iterable

from hw_sim.devices.camera_chain import CameraChain
from hw_sim.devices.table_model import TableModel
from table_controller.vocabulary.observations import CardObservation, Face


def frames(chain: CameraChain, t: float, n: int) -> tuple[float, list[CardObservation]]:
    """``n`` frames a tenth of a second apart after ``t``: the time reached, and what the
    tracker made of them."""
    out: list[CardObservation] = []
    for _ in range(n):
        t += 0.1
        out += [o for o in chain.poll(t) if isinstance(o, CardObservation)]
    return t, out


def deal_pairs(model: TableModel, zones: Iterable[str]) -> None:
    """Two cards face down from the shuffler to each zone."""
    for zone in zones:
        for _ in range(2):
            model.place(model.draw_top(), zone, Face.DOWN)
