"""The default layout and zone geometry (vision.layout), and the camera configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.vocabulary.zones import ALL_ZONES
from vision.calibration import CalibrationError, load_config, zones_toml
from vision.layout import default_layout, parse_zones, point_in_polygon, zone_finder


def _bbox(poly: tuple[tuple[float, float], ...]) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    return min(xs), min(ys), max(xs), max(ys)


def test_default_layout_zones_are_inside_the_frame_and_do_not_overlap() -> None:
    layout = default_layout()
    assert set(layout.zones) == {f"seat{n}" for n in range(1, 11)} | {"board", "burn", "muck"}
    boxes = {z: _bbox(p) for z, p in layout.zones.items()}
    for z, (x0, y0, x1, y1) in boxes.items():
        assert 0 <= x0 < x1 <= layout.width and 0 <= y0 < y1 <= layout.height, z
    names = list(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ax0, ay0, ax1, ay1 = boxes[a]
            bx0, by0, bx1, by1 = boxes[b]
            assert not (ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1), (a, b)


def test_every_slot_lies_in_its_zone() -> None:
    layout = default_layout()
    for zone, slots in layout.slots.items():
        assert zone in ALL_ZONES
        for slot in slots:
            assert layout.zone_at(slot.x, slot.y) == zone


def test_zone_finder_names_the_first_zone_holding_the_point() -> None:
    # A triangle whose extent across covers the point but which does not hold it, then two
    # overlapping squares: the first that holds it wins; off every zone: None.
    zones = {"seat1": ((0.0, 0.0), (10.0, 0.0), (0.0, 10.0)),
             "board": ((4.0, 4.0), (12.0, 4.0), (12.0, 12.0), (4.0, 12.0)),
             "muck": ((6.0, 6.0), (14.0, 6.0), (14.0, 14.0), (6.0, 14.0))}
    at = zone_finder(parse_zones(zones))
    assert at(2.0, 2.0) == "seat1"
    assert at(8.0, 8.0) == "board"  # in muck too, but board comes first
    assert at(13.0, 13.0) == "muck"
    assert at(9.0, 9.0) == "board" and at(8.0, 1.0) == "seat1"
    assert at(9.0, 3.0) is None  # within seat1's extent across, outside its triangle
    assert at(20.0, 2.0) is None
    layout = default_layout()
    finder = zone_finder(layout.zones)
    for zone, slots in layout.slots.items():
        for slot in slots:
            assert finder(slot.x, slot.y) == zone


def test_seats_go_clockwise_from_the_dealers_left() -> None:
    # rules.md §2: play goes clockwise. Dealer at the bottom centre: seat 1 is bottom-left,
    # seat 3 on the left, seats 5 and 6 at the top, seat 10 bottom-right.
    layout = default_layout()
    centre = {z: ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
              for z, b in ((z, _bbox(p)) for z, p in layout.zones.items())}
    assert centre["seat1"][0] < layout.width / 2 < centre["seat10"][0]
    assert centre["seat1"][1] > layout.height / 2 and centre["seat5"][1] < layout.height / 3
    assert centre["seat3"][0] < centre["seat1"][0]


def test_scaled_layout_and_seat_count() -> None:
    small = default_layout(width=640, height=360, seats=6)
    assert small.card_height == pytest.approx(50.0)
    assert "seat6" in small.zones and "seat7" not in small.zones
    with pytest.raises(ValueError, match="seats"):
        default_layout(seats=11)


def test_point_in_polygon_and_bad_zone_polygons() -> None:
    square = ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))
    assert point_in_polygon((5, 5), square)
    assert not point_in_polygon((15, 5), square)
    with pytest.raises(ValueError, match="seat11"):
        parse_zones({"seat11": [[0, 0], [1, 0], [1, 1]]})
    with pytest.raises(ValueError, match="at least 3"):
        parse_zones({"board": [[0, 0], [1, 0]]})
    with pytest.raises(ValueError, match="x, y"):
        parse_zones({"board": [[0, 0], [1], [1, 1]]})


def test_config_overrides_zones_and_round_trips_through_toml(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[vision]\nsource = "2"\ndeck = "red"\ncard_height = 90\n'
                    "[vision.zones]\nboard = [[0, 0], [100, 0], [100, 50], [0, 50]]\n")
    config = load_config(path)
    assert config.source == "2" and config.deck == "red"
    assert config.layout.card_height == 90
    assert config.layout.zone_at(50, 25) == "board"
    assert "seat1" in config.layout.zones  # defaults kept for zones not given
    again = tmp_path / "again.toml"
    again.write_text(zones_toml(config.layout))
    reread = load_config(again)
    assert reread.layout.zone_at(50, 25) == "board"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[vision\n", "not valid TOML"),
        ('[vision]\ncard_height = "tall"\n', "bad number"),
        ("[vision]\nconfirm_frames = 0\n", "confirm_frames"),
        ('[vision.zones]\nboard = "here"\n', "board"),
        ("[vision.zones]\nkitchen = [[0, 0], [1, 0], [1, 1]]\n", "kitchen"),
    ],
)
def test_broken_config_is_reported_with_the_file(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "table.toml"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=needle) as info:
        load_config(path)
    assert str(path) in str(info.value)


def test_missing_config_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="cannot read"):
        load_config(tmp_path / "nope.toml")
