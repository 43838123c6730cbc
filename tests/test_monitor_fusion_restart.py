"""The camera after a restart of the controller (SensorFusion.forget_camera, docs/running.md
"Restart after a crash"): its new tracks attach to the cards the reader holds, and a face-down
track that guessed the wrong card of its zone moves to the right one when the face shows, so
no SENSOR_CONFLICT is raised for a card the two sensors agree on."""

from __future__ import annotations

from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.observations import CardEvent, CardObservation, Face, Source
from tests.monitor_kit import codes, monitor

THREE = {1: 100, 2: 100, 3: 100}


def test_new_camera_tracks_attach_to_the_tagged_cards() -> None:
    felt = monitor(THREE, sensors=("rfid", "camera"), seats=3)
    felt.button()
    felt.deal_hole()
    felt.mon.fusion.forget_camera()  # the controller restarted: the old track ids are gone
    out: list[Alert] = []
    for n, p in enumerate(reversed([p for p in felt.pieces if p.zone.startswith("seat")])):
        p.track = f"new{n}"  # the camera sees every card again, face down, last one first
        out += felt.mon.observe(CardObservation(
            event=CardEvent.PLACED, zone=p.zone, t=felt.t, source=Source.CAMERA, key=p.track,
            card=None, face=Face.DOWN)).alerts
    out += felt.settle(3.0)
    assert codes(out, game_only=False) == []
    seat1 = felt.on_felt("seat1")
    for p in seat1:  # the player shows: the camera now names each card
        out += felt.flip(str(p.card))
    out += felt.settle(3.0)
    assert "SENSOR_CONFLICT" not in codes(out, game_only=False)
    tracked = {tc.camera_key: tc.card for tc in felt.mon.fusion.picture}
    assert all(tracked[p.track] == p.card for p in seat1)


def test_without_the_restart_a_wrong_face_is_a_conflict() -> None:
    """The swap is only for tracks that guessed after a restart: a tag and a camera that
    disagree about one card in play stay a SENSOR_CONFLICT."""
    felt = monitor(THREE, sensors=("rfid", "camera"), seats=3)
    felt.button()
    felt.deal_hole()
    p = felt.on_felt("seat1")[0]
    other = felt.on_felt("seat1")[1]
    assert p.track is not None
    out = list(felt.mon.observe(CardObservation(
        event=CardEvent.FLIPPED, zone="seat1", t=felt.t, source=Source.CAMERA, key=p.track,
        card=other.card, face=Face.UP)).alerts)
    out += felt.settle(3.0)
    assert "SENSOR_CONFLICT" in codes(out, game_only=False)
