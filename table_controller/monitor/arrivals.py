"""The order in which the monitor takes changes a sensor reports at one moment.

A sensor reports what changed since its last look: the RFID reader a scan cycle's edges
together at the cycle's end, in antenna order (seats, then the board, the burn, the muck, the
tray: docs/firmware.md; a table in play scans in about 170 ms), the camera a frame's changes
at once. A quick dealer pitches a card every third of a second or faster, so two cards can land
within one look, and then the order of the report is not the order they landed in: the deal
to seat 7 then seat 1 comes as seat 1 then seat 7, a burn and the flop's first card as the board
then the burn. Taken as reported, that is a MISDEAL_OUT_OF_ORDER or a MISSING_BURN the dealer
did not make.

The sensor cannot tell which of them came first, so the monitor takes them in the order the
dealing procedure expects (the dealer has the benefit of the doubt):

1. whatever is not a card's arrival (removals, turned cards, the button, a sensor's status), in
   the order reported (a card that moved leaves its zone before it reaches the next);
2. cards reaching the tray or the muck;
3. the burn, then the board: the burn comes before each street ([000], TDA 2024 39-B);
4. cards reaching the seats, in the deal's rotation from the seat owed the next card: one card
   at a time clockwise from the first seat dealt, the button last ([000] [002 #30], TDA 2024
   34-B); seats not dealt in after them, by number.

A dealer error that only the order within one look could show (the flop laid a sixth of a
second before its burn) is not raised; every error that leaves a card where it should not be
still is.
"""

from __future__ import annotations

from collections.abc import Iterable

from table_controller.monitor.hand_run import HandRun
from table_controller.vocabulary.observations import CardEvent, CardObservation, Observation
from table_controller.vocabulary.zones import BOARD, BURN, MAX_SEATS, MUCK, SHUFFLER, seat_of

_FIRST, _GATHERED, _BURN, _BOARD, _SEATS = range(5)


def _seat_rank(run: HandRun | None, seat: int) -> int:
    """The seat's place in the deal's rotation from the seat owed the next card."""
    if run is None or run.deal_over:
        return seat
    order = run.deal.order
    if seat not in order:
        return MAX_SEATS + seat
    expected = run.deal.expected()
    start = order.index(expected[0]) if expected else 0
    return (order.index(seat) - start) % len(order)


def _rank(obs: Observation, run: HandRun | None) -> tuple[int, int]:
    if not isinstance(obs, CardObservation) or obs.event is not CardEvent.PLACED:
        return _FIRST, 0
    zone = obs.zone
    if zone in (SHUFFLER, MUCK):
        return _GATHERED, 0
    if zone == BURN:
        return _BURN, 0
    if zone == BOARD:
        return _BOARD, 0
    seat = seat_of(zone)
    if seat is None:
        return _FIRST, 0  # not a zone of the table: the monitor refuses it, in its place
    return _SEATS, _seat_rank(run, seat)


def in_procedure_order(observations: Iterable[Observation],
                       run: HandRun | None) -> list[Observation]:
    """``observations`` by time; those of one moment in the order the procedure expects (see
    the module's docstring). ``run``: the hand in progress, None between hands."""
    return sorted(observations, key=lambda o: (o.t, *_rank(o, run)))
