"""DeckRegistry.add_tag: one more tag for a deck, including a second tag for an enrolled card
(a replaced card whose old tag was not retired), and how identify answers for it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from firmware_bridge.decks import DeckRegistry, DeckRegistryError, TagEntry
from table_controller.vocabulary.cards import DECK, parse_card


def uid_for(deck: int, index: int) -> bytes:
    return bytes([0x04, deck, 0xA0, index, 0x11, 0x22, 0x33])


def full_deck(deck: int) -> list[TagEntry]:
    return [TagEntry(uid=uid_for(deck, c.index), card=c) for c in DECK]


NEW_TAG = b"\x04\x99\x00\x01\x02\x03\x04"


@pytest.fixture
def registry(tmp_path: Path) -> DeckRegistry:
    reg = DeckRegistry.open(tmp_path / "decks.sqlite3")
    reg.enroll("red", full_deck(1))
    reg.enroll("blue", full_deck(2))
    return reg


def test_replacement_tag_identifies_as_the_card_and_both_tags_stay_active(
        registry: DeckRegistry) -> None:
    ace = parse_card("As")
    registry.add_tag("red", NEW_TAG, ace, replacement=True)
    old, new = registry.identify(uid_for(1, ace.index)), registry.identify(NEW_TAG)
    assert old == new
    assert new.card == ace and new.deck == "red" and new.active and not new.foreign
    assert registry.owner(NEW_TAG) == ("red", ace)
    assert registry.extra_tags("red") == [TagEntry(uid=NEW_TAG, card=ace)]
    info = registry.deck("red")
    assert info.cards == 52 and info.extra_tags == 1 and info.complete
    registry.activate("blue")  # the deck's extra tag follows the deck
    assert registry.identify(NEW_TAG).foreign


def test_replacement_tag_is_seen_by_another_connection(tmp_path: Path) -> None:
    path = tmp_path / "decks.sqlite3"
    writer, reader = DeckRegistry.open(path), DeckRegistry.open(path)
    writer.enroll("red", full_deck(1))
    writer.add_tag("red", NEW_TAG, parse_card("Kd"), replacement=True)
    assert reader.refresh_if_changed()
    assert reader.identify(NEW_TAG).card == parse_card("Kd")


def test_add_tag_refusals_leave_the_registry_unchanged(registry: DeckRegistry) -> None:
    ace = parse_card("As")
    with pytest.raises(DeckRegistryError, match=r"already has a tag.*replacement=True"):
        registry.add_tag("red", NEW_TAG, ace)
    with pytest.raises(DeckRegistryError, match="already enrolled as As in deck 'blue'"):
        registry.add_tag("red", uid_for(2, ace.index), ace, replacement=True)
    with pytest.raises(DeckRegistryError, match="no deck named 'green'"):
        registry.add_tag("green", NEW_TAG, ace, replacement=True)
    with pytest.raises(DeckRegistryError, match="needs a card"):
        registry.add_tag("red", NEW_TAG, None, replacement=True)
    assert registry.identify(NEW_TAG).deck is None
    registry.add_tag("red", NEW_TAG, ace, replacement=True)
    with pytest.raises(DeckRegistryError, match="already enrolled"):
        registry.add_tag("blue", NEW_TAG, ace, replacement=True)
    with pytest.raises(DeckRegistryError, match="already enrolled as As in deck 'red'"):
        registry.enroll("green", [TagEntry(uid=NEW_TAG, card=ace)], allow_missing=True)


def test_missing_card_and_joker_are_added_without_replacement(tmp_path: Path) -> None:
    reg = DeckRegistry.open(tmp_path / "decks.sqlite3")
    seven = parse_card("7c")
    reg.enroll("red", [e for e in full_deck(1) if e.card != seven], allow_missing=True)
    with pytest.raises(DeckRegistryError, match="7c has no tag in deck 'red' to replace"):
        reg.add_tag("red", NEW_TAG, seven, replacement=True)
    reg.add_tag("red", NEW_TAG, seven)
    reg.add_tag("red", b"\x04\x77", None)
    info = reg.deck("red")
    assert info.complete and info.jokers == 1 and info.extra_tags == 0
    assert reg.identify(b"\x04\x77").joker and not reg.identify(b"\x04\x77").foreign


def test_reenrolment_retires_extra_tags_and_remove_drops_them(registry: DeckRegistry) -> None:
    registry.add_tag("red", NEW_TAG, parse_card("As"), replacement=True)
    registry.enroll("red", full_deck(1))
    assert registry.identify(NEW_TAG).deck is None and registry.extra_tags("red") == []
    registry.add_tag("red", NEW_TAG, parse_card("As"), replacement=True)
    registry.remove("red")
    assert registry.identify(NEW_TAG).deck is None and registry.owner(NEW_TAG) is None


def test_a_registry_file_without_the_extra_tag_table_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with DeckRegistry.open(path) as reg:
        reg.enroll("red", full_deck(1))
    db = sqlite3.connect(path)
    db.execute("DROP TABLE deck_extra_tag")
    db.commit()
    db.close()
    with DeckRegistry.open(path, create=False) as old:
        assert old.identify(uid_for(1, 0)).active
        assert old.deck("red").extra_tags == 0 and old.owner(NEW_TAG) is None
