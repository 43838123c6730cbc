"""RFID + camera fusion and the settle time: flicker is never a game alert, disagreements beyond
the settle time are SENSOR_CONFLICT, an offline sensor leaves the other in charge."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.engine import GameConfig, Structure, Table
from table_controller.monitor import DealingMonitor, MonitorConfig, MonitorError
from table_controller.monitor.fusion import sensor_lag
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import parse_card
from table_controller.vocabulary.observations import (
    CardEvent,
    CardObservation,
    Face,
    SensorStatus,
    Source,
)
from table_controller.vocabulary.zones import BOARD
from tests.monitor_kit import MODE_IDS, MODES, Felt, codes, monitor

THREE = {1: 100, 2: 100, 3: 100}


def flicker(felt: Felt, zone: str, *, source: Source, gap: float = 0.1) -> list[object]:
    """The first card in ``zone`` vanishes from one sensor for ``gap`` seconds."""
    p = felt.on_felt(zone)[0]
    key = p.uid if source is Source.RFID else p.track
    assert key is not None
    out: list[object] = []
    for event in (CardEvent.REMOVED, CardEvent.PLACED):
        out += felt.mon.observe(CardObservation(
            event=event, zone=zone, t=felt.t, source=source, key=key,
            card=p.card if source is Source.RFID or p.face is Face.UP else None,
            face=Face.UNKNOWN if source is Source.RFID else p.face)).alerts
        out += felt.settle(gap)
    return out


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_flicker_during_the_deal_is_nothing(sensors: tuple[str, ...]) -> None:
    felt = monitor(THREE, sensors=sensors, seats=3)
    felt.button()
    felt.place("seat2")
    for source in (Source.RFID, Source.CAMERA):
        if source.value in sensors:
            assert flicker(felt, "seat2", source=source) == []
    for seat in (3, 1, 2, 3, 1):
        assert codes(felt.place(f"seat{seat}"), game_only=False) == []
    assert codes(felt.act("1 fold", "2 fold"), game_only=False) == []


def test_removal_counts_after_the_settle_time() -> None:
    felt = monitor(THREE, sensors=("rfid",), seats=3)
    felt.button()
    felt.place("seat2")
    p = felt.on_felt("seat2")[0]
    felt.mon.observe(CardObservation(event=CardEvent.REMOVED, zone="seat2", t=felt.t,
                                     source=Source.RFID, key=p.uid, card=p.card))
    assert len(felt.mon.fusion.picture.in_zone("seat2")) == 1  # not yet: could be flicker
    assert felt.mon.fusion.picture.in_zone("seat2", settled=True) == []
    felt.settle(0.4)
    assert felt.mon.fusion.picture.in_zone("seat2") == []


def test_camera_sees_a_card_the_reader_does_not() -> None:
    felt = monitor(THREE, seats=3)
    felt.button()
    out = list(felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone="seat2", t=felt.t,
                                           source=Source.CAMERA, key="t1", face=Face.DOWN)).alerts)
    assert out == [] and felt.mon.fusion.picture.in_zone("seat2") == []  # waits for the tag
    out = felt.settle()
    assert [a.code for a in out] == ["SENSOR_CONFLICT"]
    assert out[0].seat == 2 and "the reader does not" in out[0].message
    assert len(felt.mon.fusion.picture.in_zone("seat2")) == 1  # the game sees it now
    assert felt.mon.run is not None and felt.mon.run.deal.counts[2] == 1


def test_reader_sees_a_card_the_camera_does_not() -> None:
    felt = monitor(THREE, seats=3)
    felt.button()
    out = list(felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone="seat2", t=felt.t,
                                           source=Source.RFID, key="u1",
                                           card=parse_card("7h"))).alerts)
    out += felt.settle()
    assert [a.code for a in out] == ["SENSOR_CONFLICT"]
    assert "the camera does not" in out[0].message
    assert felt.mon.run is not None and felt.mon.run.deal.counts[2] == 1


def test_the_sensor_lag_delays_a_conflict_by_that_much() -> None:
    """The reader reports at once, the camera only after its frames: with ``sensor_lag`` the
    disagreement counts after settle_time + sensor_lag, not before, and still counts."""
    felt = monitor(THREE, seats=3, sensor_lag=0.6)
    felt.button()
    out = list(felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone="seat2", t=felt.t,
                                                source=Source.RFID, key="u1",
                                                card=parse_card("7h"))).alerts)
    out += felt.settle(0.85)
    assert out == []
    out = felt.settle(0.1)
    assert [a.code for a in out] == ["SENSOR_CONFLICT"]
    with pytest.raises(MonitorError, match="sensor_lag"):
        MonitorConfig(sensor_lag=True)


def test_sensor_lag_from_the_hold_time_and_the_frame_counts() -> None:
    assert sensor_lag(hold_time=0.6, confirm_frames=3, drop_frames=5, frame_rate=10) == 0.6
    assert sensor_lag(hold_time=0.6, confirm_frames=3, drop_frames=5, frame_rate=4) == 1.25
    with pytest.raises(ValueError, match="frame_rate"):
        sensor_lag(hold_time=0.6, confirm_frames=3, drop_frames=5, frame_rate=0)


def test_identity_disagreement_on_a_face_up_card() -> None:
    felt = monitor(THREE, seats=3)
    felt.button()
    felt.deal_hole()
    felt.act("1 call", "2 call", "3 check")
    felt.place("burn")
    felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=BOARD, t=felt.t,
                                     source=Source.RFID, key="u9", card=parse_card("Qs")))
    out = list(felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=BOARD, t=felt.t,
                                           source=Source.CAMERA, key="t9",
                                           card=parse_card("Qc"), face=Face.UP)).alerts)
    out += felt.settle()
    assert [a.code for a in out] == ["SENSOR_CONFLICT"]
    assert "the tag says Qs, the camera sees Qc" in out[0].message
    tc = felt.mon.fusion.picture.by_rfid["u9"]
    assert tc.card == parse_card("Qs")  # the tag names the card


def test_reader_offline_camera_carries_on_then_recovery_is_quiet() -> None:
    felt = monitor(THREE, seats=3)
    felt.button()
    felt.place("seat2")
    out = felt.sensor(Source.RFID, False)
    assert [a.code for a in out] == ["SENSOR_OFFLINE"] and out[0].severity.value == "fault"
    felt.sensors = frozenset({"camera"})  # the reader says nothing while it is away
    for seat in (3, 1, 2, 3, 1):
        assert codes(felt.place(f"seat{seat}"), game_only=False) == []
    felt.sensors = frozenset({"rfid", "camera"})
    out = list(felt.mon.observe(SensorStatus(Source.RFID, True, felt.t, "link back")).alerts)
    assert [a.code for a in out] == ["SENSOR_RECOVERED"] and "link back" in out[0].message
    for p in felt.pieces:  # the reader reports every tag it sees again
        if p.zone.startswith("seat"):
            out += felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone=p.zone,
                                                    t=felt.t, source=Source.RFID, key=p.uid,
                                                    card=p.card)).alerts
    out += felt.settle()
    assert codes(out, game_only=False) == ["SENSOR_RECOVERED"]
    assert codes(felt.act("1 fold", "2 fold"), game_only=False) == []


def test_a_conflict_is_not_raised_again_after_the_reader_was_away() -> None:
    """alerts.md "One error, one alert": the reader sees a card the camera never sees (one
    SENSOR_CONFLICT); the reader drops off and comes back reporting the same tag: the sensors
    never agreed in between, so that is the same disagreement, no second alert. Once they
    have agreed, a new disagreement is a new conflict."""
    felt = monitor(THREE, seats=3)
    felt.button()

    def tag(zone: str, event: CardEvent = CardEvent.PLACED) -> list[Alert]:
        return list(felt.mon.observe(CardObservation(event=event, zone=zone, t=felt.t,
                                                     source=Source.RFID, key="u1",
                                                     card=parse_card("7h"))).alerts)

    out = tag("seat2") + felt.settle(1.0)
    assert codes(out, game_only=False) == ["SENSOR_CONFLICT"]
    assert codes(felt.sensor(Source.RFID, False), game_only=False) == ["SENSOR_OFFLINE"]
    out = list(felt.mon.observe(SensorStatus(Source.RFID, True, felt.t, "back")).alerts)
    out += tag("seat2") + felt.settle(1.0)
    assert codes(out, game_only=False) == ["SENSOR_RECOVERED"]
    out = list(felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone="seat2", t=felt.t,
                                                source=Source.CAMERA, key="t1",
                                                face=Face.DOWN)).alerts)
    out += felt.settle(1.0)  # the camera sees it now: they agree
    assert codes(out, game_only=False) == []
    out = list(felt.mon.observe(CardObservation(event=CardEvent.REMOVED, zone="seat2",
                                                t=felt.t, source=Source.CAMERA,
                                                key="t1")).alerts)
    out += felt.settle(1.0)
    assert codes(out, game_only=False) == ["SENSOR_CONFLICT"]


def test_repeated_status_is_reported_once() -> None:
    felt = monitor(THREE, seats=3)
    assert len(felt.sensor(Source.CAMERA, False)) == 1
    assert felt.sensor(Source.CAMERA, False) == []


def test_unknown_zone_is_a_clear_error() -> None:
    felt = monitor(THREE, seats=3)
    with pytest.raises(MonitorError, match="table7"):
        felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone="table7", t=1.0,
                                         source=Source.RFID, key="u1"))


def test_sensor_not_configured_is_ignored() -> None:
    felt = monitor(THREE, sensors=("rfid",), seats=3)
    felt.button()
    out = list(felt.mon.observe(CardObservation(event=CardEvent.PLACED, zone="seat3", t=felt.t,
                                           source=Source.CAMERA, key="t1", face=Face.UP)).alerts)
    assert out == [] and felt.mon.fusion.picture.in_zone("seat3") == []


def test_config_validation() -> None:
    with pytest.raises(MonitorError, match="rules"):
        MonitorConfig(rules="wsop")  # type: ignore[arg-type]
    with pytest.raises(MonitorError, match="sensors"):
        MonitorConfig(sensors=frozenset({"lidar"}))
    with pytest.raises(MonitorError, match="settle_time"):
        MonitorConfig(settle_time=-1)


def test_monitor_is_pure_and_deterministic() -> None:
    """Two monitors fed the same inputs say the same things."""
    runs = []
    for _ in range(2):
        felt = monitor(THREE, seats=3, seed=5, burn="2c")
        felt.button()
        felt.deal_hole()
        felt.place("seat1")
        runs.append([(a.code, a.t, a.seat, a.cards, a.message) for a in felt.alerts])
    assert runs[0] == runs[1] and runs[0]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(MODES), players=st.integers(min_value=2, max_value=6),
       button=st.integers(min_value=0, max_value=5), seed=st.integers(0, 10_000),
       flickers=st.lists(st.tuples(st.integers(0, 40), st.sampled_from(list(Source))),
                         max_size=4),
       camera_first=st.booleans())
def test_a_correct_hand_with_flicker_raises_no_game_alert(
        mode: tuple[str, ...], players: int, button: int, seed: int,
        flickers: list[tuple[int, Source]], camera_first: bool) -> None:
    """Whatever the sensors, table size and button, a hand dealt by the book to the river with
    tags and tracks flickering now and then raises nothing but faults/info."""
    seats = {s: 100 for s in range(1, players + 1)}
    table = Table(GameConfig(structure=Structure.NO_LIMIT, small_blind=1, big_blind=2),
                  seats=6)
    for s, stack in seats.items():
        table.sit(s, stack)
    table.set_button(button % players + 1)
    mon = DealingMonitor(table, config=MonitorConfig(sensors=frozenset(mode), settle_time=0.3))
    felt = Felt(mon, sensors=mode, seed=seed, camera_first=camera_first)
    when = {i: src for i, src in flickers if src.value in mode}
    moves = 0

    def tick_flicker() -> None:
        nonlocal moves
        moves += 1
        src = when.get(moves)
        on = [p for p in felt.pieces if p.zone.startswith("seat") or p.zone == BOARD]
        if src is not None and on:
            flicker(felt, on[0].zone, source=src, gap=0.1)

    felt.button()
    for _ in range(2):
        for seat in mon.deal_order():
            felt.place(f"seat{seat}")
            tick_flicker()
    for n in (0, 3, 1, 1):
        if n:
            felt.deal_street(n)
            tick_flicker()
        hand = mon.hand
        assert hand is not None
        if n:  # the monitor hands the street to the engine with the first action on it
            first = next(s for s in hand.deal_order if s in hand.live_seats)
            felt.act(f"{first} check")
        while hand.to_act is not None:
            seat = hand.to_act
            kind = "check" if hand.legal_actions(seat).can_check else "call"
            felt.act(f"{seat} {kind}")
    felt.showdown()
    assert codes(felt.alerts) == []
    assert [a.code for a in felt.alerts if a.code != "CARD_EXPOSED_BY_PLAYER"] == []
    assert mon.hand is None and len(mon.events) == 1 and not mon.events[0].voided
    assert sum(table.stacks.values()) == 100 * players


@pytest.mark.parametrize("sensors", MODES, ids=MODE_IDS)
def test_player_lifting_his_cards_is_nothing(sensors: tuple[str, ...]) -> None:
    """A peek longer than the settle time: the card leaves the picture and comes back (to the
    camera as a new track); it is no new card, during the deal or after it."""
    felt = monitor(THREE, sensors=sensors, seats=3)
    felt.button()
    felt.place("seat2")
    assert codes(felt.lift(felt.on_felt("seat2")[0], 1.0), game_only=False) == []
    for seat in (3, 1, 2, 3, 1):
        assert codes(felt.place(f"seat{seat}"), game_only=False) == []
    felt.act("1 call")
    for p in felt.on_felt("seat2"):
        assert codes(felt.lift(p, 1.0), game_only=False) == []
    assert codes(felt.act("2 call", "3 check"), game_only=False) == []
    assert codes(felt.deal_street(3), game_only=False) == []
