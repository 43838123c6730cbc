"""The simulated table's devices work on the table's clock, not when the controller looks: a
frame or a scan owed while the controller's loop stalled is made at its own time, even when
a glance at the clock just before the stall (the loop reads it several times a step) took the
clock past the frame's time without a look (docs/simulator.md)."""

from __future__ import annotations

from hw_sim.devices.sim_table import SimTable
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face


def test_frames_owed_over_a_stall_are_made_after_a_glance_at_the_clock() -> None:
    sim = SimTable(seed=1, sensors=("camera",))
    try:
        camera = sim.camera
        t0 = sim.clock()
        sim.dealer.put(sim.model.draw_top(), "seat2", Face.DOWN)
        assert camera.poll(t0) == []  # its first frame: one sighting of three
        sim.advance_to(t0 + 0.11)  # the loop reads the clock again, no frame is due yet
        sim.advance_to(t0 + 2.5)  # then it stalls for a couple of seconds
        seen = [o for o in camera.poll(sim.clock()) if isinstance(o, CardObservation)]
        assert [o.event for o in seen] == [CardEvent.PLACED]
        # the third frame that shows it, on the camera's own time, not the look after the stall
        assert seen[0].t < t0 + 0.35
    finally:
        sim.close()
