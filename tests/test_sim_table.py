"""The simulated table: physical card model, tag registry, the dealer's procedure and remedies,
the simulator's clock and the --check comparison."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from firmware_bridge.decks import DeckRegistry
from hw_sim.devices.clock import SimClock
from hw_sim.devices.dealer import Dealer, DealerError
from hw_sim.devices.table_model import ModelError, PhysicalCard, TableModel, shuffled_deck
from hw_sim.devices.wiring import ModelAntennas
from hw_sim.harness.expectations import RaisedAlert, RunRecord, differences
from hw_sim.harness.scenario import load_scenario
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import DECK, parse_card, parse_cards
from table_controller.vocabulary.observations import Face


def fresh(order: str = "") -> tuple[TableModel, Dealer, list[str]]:
    model = TableModel()
    moves: list[str] = []
    dealer = Dealer(model, rng=random.Random(1),
                    after_move=lambda: moves.append(str(model.version)))
    dealer.new_hand(shuffled_deck(random.Random(5), parse_cards(order)))
    return model, dealer, moves


def names(cards: list[PhysicalCard]) -> list[str]:
    return [c.label for c in cards]


def test_deck_has_52_enrolled_tags_and_odd_cards_have_their_own() -> None:
    model = TableModel()
    uids = {pc.uid for pc in model.stub}
    assert len(uids) == 52
    ace = parse_card("As")
    dup, foreign, joker = model.new_copy(ace), model.new_foreign(ace), model.new_joker()
    assert len({dup.uid, foreign.uid, joker.uid} | uids) == 55
    reg = model.registry
    assert reg.identify(dup.uid).card == ace and reg.identify(dup.uid).active
    f = reg.identify(foreign.uid)
    assert f.card == ace and not f.active and f.foreign
    assert reg.identify(joker.uid).joker and not reg.identify(joker.uid).foreign
    unknown = reg.identify(b"\x01\x02\x03\x04")
    assert unknown.card is None and unknown.foreign


def test_tags_resolve_through_the_real_deck_registry() -> None:
    """Both decks enrolled in a DeckRegistry; a copy is a second tag of the active deck's card,
    a second foreign card of one face a second tag of the other deck, a joker a joker tag."""
    model = TableModel()
    reg = model.registry
    assert isinstance(reg, DeckRegistry) and reg.active == model.active_deck
    assert [d.cards for d in reg.decks()] == [52, 52]
    ace = parse_card("As")
    dup = model.new_copy(ace)
    assert reg.owner(dup.uid) == (model.active_deck, ace)
    assert reg.deck(model.active_deck).extra_tags == 1
    first = model.new_foreign(ace)
    model.place(first, "board", Face.UP)
    second = model.new_foreign(ace)
    assert first.uid != second.uid and reg.identify(second.uid) == reg.identify(first.uid)
    model.discard(first)
    assert model.new_foreign(ace) is first  # the other deck's own As, back on the table
    joker = model.new_joker()
    assert reg.identify(joker.uid).joker and reg.identify(joker.uid).deck == model.active_deck
    model.close()


def test_short_and_over_full_deck_stay_so_hand_after_hand() -> None:
    seven, ace = parse_card("7c"), parse_card("As")
    model = TableModel(missing=[seven], extra=[ace])
    faces = model.deck_faces()
    assert len(faces) == 52 and seven not in faces and faces.count(ace) == 2
    dealer = Dealer(model, rng=random.Random(1))
    dealer.new_hand(shuffled_deck(random.Random(2), [ace], faces))
    assert [pc.card for pc in model.stub].count(ace) == 2 and model.stub[0].card == ace
    dealer.deal_hole([1, 2])
    dealer.collect()
    dealer.new_hand(shuffled_deck(random.Random(3), (), model.deck_faces()))
    assert len(model.stub) == 52 and seven not in {pc.card for pc in model.stub}
    with pytest.raises(ModelError, match="7c is not in the deck"):
        shuffled_deck(random.Random(3), [seven], model.deck_faces())
    with pytest.raises(ModelError, match="deck's 52 cards once"):
        model.load_deck(list(DECK))


def test_face_up_card_on_the_stub_is_read_by_the_tray_antenna_and_discarded() -> None:
    model, dealer, _moves = fresh("Kd Qh")
    antennas = ModelAntennas(model, stub=True)
    assert len(antennas.reads(0.0)) == 52 and set(antennas.reads(0.0).values()) == {13}
    assert ModelAntennas(model).reads(0.0) == {}
    kd = model.find_in_stub(parse_card("Kd"))
    qh = model.find_in_stub(parse_card("Qh"))
    dealer.face_up_on_stub(qh)
    assert model.stub[0] is qh and qh.face is Face.UP and qh.zone == "shuffler"
    assert model.stub[1] is kd
    alert = Alert(code="FACE_UP_IN_DECK", hand=1, t=0.0)
    dealer.carry_out(alert, rules="tda")
    assert model.in_zone("muck") == [qh] and model.stub[0] is kd
    assert [pc.face for pc in model.in_zone("muck")] == [Face.DOWN]
    assert antennas.reads(0.0)[qh.uid] == 12  # the muck's antenna
    with pytest.raises(DealerError, match="no card lies face up"):
        dealer.carry_out(alert, rules="tda")


def test_hole_deal_is_one_card_at_a_time_in_order_two_rounds() -> None:
    model, dealer, moves = fresh("As Kd Jh Ad Qc Jc")
    dealer.deal_hole([2, 4, 1])
    assert len(moves) == 6
    assert names(model.in_zone("seat2")) == ["As", "Ad"]
    assert names(model.in_zone("seat4")) == ["Kd", "Qc"]
    assert names(model.in_zone("seat1")) == ["Jh", "Jc"]
    assert all(pc.face is Face.DOWN for pc in model.felt)
    assert len(model.stub) == 46


def test_streets_burn_then_board_face_up() -> None:
    model, dealer, _ = fresh("2s Kh 7d 2c 3s 9s 5d 4h")
    dealer.deal_street("flop")
    dealer.deal_street("turn")
    dealer.deal_street("river")
    assert names(model.in_zone("burn")) == ["2s", "3s", "5d"]
    assert names(model.in_zone("board")) == ["Kh", "7d", "2c", "9s", "4h"]
    assert all(pc.face is Face.UP for pc in model.in_zone("board"))


def test_tda_four_card_flop_named_card_becomes_the_turn_burn() -> None:
    model, dealer, _ = fresh("2s Kh 7d 2c 3s 9s")
    dealer.deal_street("flop")
    dealer.put(model.draw_top(), "board", Face.UP)  # the fourth card
    alert = Alert("FOUR_CARD_FLOP", 1, 0.0, cards=tuple(parse_cards("Kh 7d 2c 3s")),
                  remedy="Turn all four face down; 7d is the burn card")
    dealer.carry_out(alert, rules="tda")
    assert names(model.in_zone("burn")) == ["2s", "7d"]
    assert names(model.in_zone("board")) == ["Kh", "2c", "3s"]
    dealer.deal_street("turn")  # no new burn
    assert names(model.in_zone("board")) == ["Kh", "2c", "3s", "9s"]
    assert len(model.in_zone("burn")) == 2


def test_four_card_flop_without_a_named_burn_is_refused() -> None:
    _, dealer, _ = fresh()
    with pytest.raises(DealerError, match="did not name the burn card"):
        dealer.carry_out(Alert("FOUR_CARD_FLOP", 1, 0.0), rules="tda")


def test_exposed_card_replaced_and_burned() -> None:
    model, dealer, _ = fresh("As Kd Jh Ad Qc Jc 9s 2s Kh 7d")
    dealer.deal_hole([2, 3, 1])
    jh = model.find_on_felt(parse_card("Jh"))
    model.flip(jh)
    assert jh.card is not None
    dealer.carry_out(Alert("EXPOSED_CARD_REPLACE", 1, 0.0, seat=1, cards=(jh.card,)),
                     rules="tda")
    assert names(model.in_zone("seat1")) == ["Jc", "9s"]
    assert names(model.in_zone("burn")) == ["Jh"] and jh.face is Face.DOWN
    dealer.deal_street("flop")
    assert names(model.in_zone("board")) == ["2s", "Kh", "7d"]


def test_premature_cards_back_to_stub_burn_stays() -> None:
    model, dealer, _ = fresh("2s Kh 7d 2c")
    dealer.deal_street("flop")
    dealer.carry_out(Alert("PREMATURE_BOARD_CARD", 1, 0.0, cards=tuple(parse_cards("Kh 7d 2c"))),
                     rules="tda")
    assert model.in_zone("board") == [] and names(model.in_zone("burn")) == ["2s"]
    assert len(model.stub) == 51
    dealer.deal_street("flop")
    assert len(model.in_zone("burn")) == 1 and len(model.in_zone("board")) == 3


def test_misdeal_collects_everything_and_odd_cards_leave() -> None:
    model, dealer, _ = fresh()
    dealer.deal_hole([1, 2])
    dealer.put(model.new_copy(parse_card("As")), "board", Face.UP)
    dealer.carry_out(Alert("DUPLICATE_CARD", 1, 0.0), rules="tda")
    assert model.felt == [] and len(model.stub) == 52
    dealer.new_hand(list(DECK))


def test_model_refuses_impossible_moves() -> None:
    model, dealer, _ = fresh("As")
    top = model.draw_top()
    with pytest.raises(ModelError, match="not in the shuffler"):
        model.draw(parse_card("As"))
    dealer.put(top, "seat1", Face.DOWN)
    with pytest.raises(ModelError, match="still on the felt"):
        model.load_deck(list(DECK))
    with pytest.raises(ModelError, match="not on the felt"):
        model.find_on_felt(parse_card("Kd"))


def test_sim_clock_moves_only_forward() -> None:
    clock = SimClock(start=5.0)
    assert clock() == 5.0
    assert clock.advance(0.25) == 5.25
    assert clock.advance_to(5.0) == 5.25
    with pytest.raises(ValueError):
        clock.advance(-1)


def test_check_passes_and_names_each_difference(
        scenario_file: Callable[[str], Path]) -> None:
    sc = load_scenario(scenario_file("check-differences"))
    flop = RaisedAlert(Alert("FOUR_CARD_FLOP", 1, 0.0), step=2)
    offline = RaisedAlert(Alert("SENSOR_OFFLINE", 1, 0.0), step=1)
    ok = RunRecord(alerts=[flop, offline], hands=1, stacks={1: 99, 2: 101, 3: 100})
    assert differences(sc, ok) == []
    bad = RunRecord(alerts=[RaisedAlert(Alert("FOUR_CARD_FLOP", 1, 0.0), step=3),
                            RaisedAlert(Alert("DUPLICATE_CARD", 1, 0.0), step=2)],
                    hands=2, stacks={1: 98})
    diffs = differences(sc, bad)
    assert any("expected alert FOUR_CARD_FLOP, hand 1, step 2" in d and "step 3" in d
               for d in diffs)
    assert any("expected no DUPLICATE_CARD" in d for d in diffs)
    assert any("unexpected alert DUPLICATE_CARD" in d for d in diffs)
    assert "expected 1 hand(s), 2 ended" in diffs
    assert "seat 1: expected stack 99, got 98" in diffs


def test_the_simulated_camera_keeps_frames_unless_told_not_to() -> None:
    """``SimTable(camera_cache=)`` reaches the camera: its default keeps frames, 0 none (the
    long-running daemon of ``run --sim``)."""
    from hw_sim.devices.camera_chain import FRAMES_KEPT
    from hw_sim.devices.sim_table import SimTable

    for cache, kept in ((None, FRAMES_KEPT), (0, 0), (2, 2)):
        table = SimTable(seed=1, sensors=("camera",), camera_cache=cache)
        try:
            assert table.camera.camera.cache == kept
        finally:
            table.close()
