"""Bad or chaotic input never crashes the monitor: random observations, console records and
floor decisions either work or raise MonitorError, and the monitor stays usable."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.monitor import ConsoleAction, DealingMonitor, MonitorConfig, MonitorError
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import DECK
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardEvent,
    CardObservation,
    Face,
    SensorStatus,
    Source,
)
from table_controller.vocabulary.zones import ALL_ZONES
from tests.monitor_kit import MODES, make_table

cards = st.one_of(st.none(), st.sampled_from(DECK))
observation = st.builds(
    CardObservation, event=st.sampled_from(list(CardEvent)),
    zone=st.sampled_from([*ALL_ZONES[:4], *ALL_ZONES[10:]]), t=st.just(0.0),
    source=st.sampled_from(list(Source)), key=st.sampled_from([f"k{i}" for i in range(8)]),
    card=cards, face=st.sampled_from(list(Face)), foreign=st.booleans(), joker=st.booleans())
console = st.builds(ConsoleAction, seat=st.integers(1, 4),
                    kind=st.sampled_from(["fold", "check", "call", "allin", "time_expired",
                                          "button"]))
event = st.one_of(
    observation, observation, observation,
    st.builds(ButtonPressed, t=st.just(0.0)),
    st.builds(SensorStatus, source=st.sampled_from(list(Source)), online=st.booleans(),
              t=st.just(0.0)),
    console,
    st.sampled_from(["MISDEAL_WRONG_FIRST_SEAT", "EXPOSED_CARD_REPLACE", "PREMATURE_BOARD_CARD",
                     "DUPLICATE_CARD", "FOUR_CARD_FLOP", "JOKER", "FOREIGN_CARD"]),
    st.floats(min_value=0.0, max_value=1.0),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(MODES), events=st.lists(event, max_size=60),
       rules=st.sampled_from(["tda", "house"]))
def test_random_input_never_crashes(mode: tuple[str, ...], events: list[object],
                                    rules: str) -> None:
    table = make_table({1: 100, 2: 100, 3: 100, 4: 100}, seats=4)
    mon = DealingMonitor(table, config=MonitorConfig(rules=rules,  # type: ignore[arg-type]
                                                     sensors=frozenset(mode)))
    t = 10.0
    for e in events:
        t += 0.05
        out: list[Alert] = []
        try:
            if isinstance(e, CardObservation):
                out = list(mon.observe(CardObservation(
                    event=e.event, zone=e.zone, t=t, source=e.source, key=e.key, card=e.card,
                    face=e.face, foreign=e.foreign, joker=e.joker)).alerts)
            elif isinstance(e, ButtonPressed):
                out = list(mon.observe(ButtonPressed(t)).alerts)
            elif isinstance(e, SensorStatus):
                out = list(mon.observe(SensorStatus(e.source, e.online, t)).alerts)
            elif isinstance(e, ConsoleAction):
                out = list(mon.console(ConsoleAction(e.seat, e.kind, None, t)).alerts)
            elif isinstance(e, str):
                out = list(mon.resolve(e, t).alerts)
            else:
                assert isinstance(e, float)
                t += e
                out = list(mon.tick(t).alerts)
        except MonitorError:
            pass
        assert all(isinstance(a, Alert) for a in out)
        if mon.hand is not None:
            assert mon.hand_number == mon.hand.number
    hand = mon.hand
    if hand is None:
        assert sum(table.stacks.values()) == 400
    else:
        assert sum(hand.stacks.values()) + hand.pot == 400
