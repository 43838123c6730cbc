"""One hand of Hold'em (skeleton: first commit so other engineers can import the names)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from table_controller.cards import Card
from table_controller.engine.actions import Action, LegalActions, Street
from table_controller.engine.records import LogRecord
from table_controller.engine.results import HandResult


class Hand:
    """A hand in progress; created by :meth:`Table.start_hand`."""

    number: int
    button: int | None
    small_blind_seat: int | None
    big_blind_seat: int
    deal_order: tuple[int, ...]
    street: Street
    to_act: int | None
    log: list[LogRecord]
    result: HandResult | None

    @property
    def betting_complete(self) -> bool:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def legal_actions(self, seat: int | None = None) -> LegalActions:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def verify(self, action: Action) -> None:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def can(self, action: Action) -> bool:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def act(self, action: Action) -> None:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def interpret_chips(self, seat: int, amount: int, *, single_chip: bool = False) -> Action:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def deal_hole(self, seat: int, cards: Sequence[Card]) -> None:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def deal_board(self, cards: Sequence[Card]) -> None:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def showdown_order(self) -> list[int]:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def showdown(
        self,
        hole_cards: Mapping[int, Sequence[Card]] | None = None,
        *,
        mucked: Iterable[int] = (),
    ) -> HandResult:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def time_expired(self, seat: int) -> None:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")

    def void(self, reason: str) -> HandResult:
        raise NotImplementedError("engine skeleton: Hand lands in the next commit")
