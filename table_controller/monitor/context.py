"""What the checks work on: the card picture, the hand run, the remedy book, the configuration.

The :class:`~table_controller.monitor.DealingMonitor` owns one :class:`CheckContext` and hands
it to every check (``checks``, ``deal_checks``, ``board_checks``, ``alerting``, ``streets``).
The checks read and update the state here and return the alerts they raise; they never see the
monitor itself, so no check module imports the monitor (docs/architecture.md, layers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from table_controller.engine import Table
from table_controller.monitor.cards_in_play import CardPicture
from table_controller.monitor.fusion import SensorFusion
from table_controller.monitor.hand_run import HandRun
from table_controller.monitor.hole_cards import HoleCardLog
from table_controller.monitor.records import MonitorConfig
from table_controller.monitor.remedies import RemedyBook
from table_controller.vocabulary.cards import Card

BurnChooser = Callable[[Sequence[Card]], Card]
"""Picks the burn card of a four-card flop (TDA 2024 39-A, [002 #33])."""


@dataclass(slots=True, eq=False)
class CheckContext:
    """The monitor's state as the checks see it.

    ``table``: the engine's table (who is seated). ``fusion``: the sensor fusion, whose
    ``picture`` is the one model of where every card lies. ``book``: the open alerts and their
    remedy checks. ``run``: the hand in progress (None between hands); ``last_number``: its
    number, or the last hand's. ``no_hand_seen``: (code, card pid) already reported since
    the last hand (cleared as a hand starts). ``holes``: which cards have been hole cards in
    this hand (for the public channel).
    ``last_ref``: the last alert identity given; ``reported``: the identities of the open
    alerts already reported (a later alert with one of them is an update).
    """

    table: Table
    config: MonitorConfig
    fusion: SensorFusion
    book: RemedyBook
    choose_burn: BurnChooser
    run: HandRun | None = None
    last_number: int = 0
    no_hand_seen: set[tuple[str, int]] = field(default_factory=set)
    holes: HoleCardLog = field(default_factory=HoleCardLog)
    last_ref: int = 0
    reported: set[int] = field(default_factory=set)

    def new_ref(self) -> int:
        """A fresh alert identity (``Alert.ref``): one per dealer error, alerts.md "Lifecycle"."""
        self.last_ref += 1
        return self.last_ref

    @property
    def picture(self) -> CardPicture:
        """Every card the sensors see (after fusion), where it lies and which way up."""
        return self.fusion.picture
