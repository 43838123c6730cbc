"""The simulated dealer of ``run --sim`` (``hw_sim/harness/console_dealer.py``) makes its next
movement only once the reader has had the scans to see the last one, so the reader reports the
hole cards in the order they were dealt however seldom the controller's loop looks."""

from __future__ import annotations

import pytest

from hw_sim.devices.sim_table import SimTable
from hw_sim.harness.console_dealer import ConsoleDealer
from table_controller.vocabulary.observations import CardEvent, CardObservation

ORDER = (2, 3, 1)  # button 1, blinds 2 and 3


# seeds whose reader flickers on a fresh hole card's first scan: before the dealer waited for
# the reader, that card was reported with the next one, in the antennas' order (seat 1 first)
@pytest.mark.parametrize("seed", [1, 32, 39])
def test_hole_cards_are_reported_in_the_dealt_order_when_the_loop_looks_seldom(
        seed: int) -> None:
    table = SimTable(seed=seed)
    dealer = ConsoleDealer(table, move_interval=0.05, deal_order=lambda: ORDER)
    try:
        dealt: list[str] = []
        reported: list[str] = []
        dealer.deal("hole")
        now = table.clock()
        for _look in range(100):
            # a loaded machine: the loop looks every 0.1 s, more seldom than the dealer moves
            now = table.advance_to(now + 0.1)
            before = {pc.uid_hex for pc in table.model.felt}
            dealer.poll(now)
            dealt += [pc.uid_hex for pc in table.model.felt if pc.uid_hex not in before]
            reported += [o.key for o in table.rfid.poll(now)
                         if isinstance(o, CardObservation) and o.event is CardEvent.PLACED]
            if not dealer.busy and len(reported) == len(dealt):
                break
        assert len(dealt) == 6 and not dealer.busy
        assert reported == dealt
    finally:
        dealer.close()
        table.close()


def test_the_dealer_keeps_its_pace_when_the_loop_looks_often() -> None:
    """Looks every 0.02 s: each movement waits for the reader's four scans after the last
    (a flicker burst is 3 at most), 0.08 s, not longer."""
    table = SimTable(seed=1)
    dealer = ConsoleDealer(table, move_interval=0.05, deal_order=lambda: ORDER)
    try:
        dealer.deal("hole")
        start = now = table.clock()
        while dealer.busy:
            assert now - start < 2.0, "the deal never ended"
            now = table.advance_to(now + 0.02)
            dealer.poll(now)
            table.rfid.poll(now)
        assert now - start == pytest.approx(6 * 0.08, abs=0.03)
    finally:
        dealer.close()
        table.close()
