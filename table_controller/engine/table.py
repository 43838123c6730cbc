"""Seats, stacks, button and blinds across hands (skeleton: first commit)."""

from __future__ import annotations

from table_controller.engine.config import GameConfig
from table_controller.engine.hand import Hand


class Table:
    """A table of ``seats`` physical seats numbered 1..seats (2 to 10, rules.md §1)."""

    def __init__(self, config: GameConfig, seats: int = 9) -> None:
        self.config = config
        self.seats = seats
        self.button: int | None = None
        self.hand_number = 0

    @property
    def stacks(self) -> dict[int, int]:
        raise NotImplementedError("engine skeleton: Table lands in the next commit")

    def sit(self, seat: int, stack: int) -> None:
        raise NotImplementedError("engine skeleton: Table lands in the next commit")

    def leave(self, seat: int) -> None:
        raise NotImplementedError("engine skeleton: Table lands in the next commit")

    def set_button(self, seat: int) -> None:
        raise NotImplementedError("engine skeleton: Table lands in the next commit")

    def start_hand(self, straddle: int | None = None) -> Hand:
        raise NotImplementedError("engine skeleton: Table lands in the next commit")

    def finish_hand(self, hand: Hand) -> None:
        raise NotImplementedError("engine skeleton: Table lands in the next commit")
