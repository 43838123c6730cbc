"""A hand-built felt for the dealing-monitor tests: physical card moves in, the observations
each sensor would deliver out (RFID: tag identity, no face; camera: face, identity only face up,
a new track id per placement), fed straight to a :class:`DealingMonitor`.

No simulator involved: every observation is built here, so the tests pin the monitor's own
behaviour. Each physical move is followed by ``gap`` seconds of stillness (longer than the
settle time), like a dealer's rhythm; alerts are returned per move.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from table_controller.engine import GameConfig, Structure, Table
from table_controller.monitor import ConsoleAction, DealingMonitor, MonitorConfig, MonitorOutput
from table_controller.vocabulary.alerts import Alert
from table_controller.vocabulary.cards import DECK, Card, parse_card
from table_controller.vocabulary.observations import (
    ButtonPressed,
    CardEvent,
    CardObservation,
    Face,
    Observation,
    SensorStatus,
    Source,
)
from table_controller.vocabulary.zones import ALL_ZONES, BOARD, BURN, SHUFFLER, seat_zone

MODES = (("rfid",), ("camera",), ("rfid", "camera"))
MODE_IDS = ("rfid", "camera", "both")


@dataclass(slots=True)
class Piece:
    """One physical card on the test felt."""

    card: Card | None
    uid: str
    zone: str = SHUFFLER
    face: Face = Face.DOWN
    track: str | None = None
    foreign: bool = False
    joker: bool = False


def make_table(players: dict[int, int], *, seats: int = 6, button: int = 1,
               blinds: tuple[int, int] = (1, 2)) -> Table:
    table = Table(GameConfig(structure=Structure.NO_LIMIT, small_blind=blinds[0],
                             big_blind=blinds[1]), seats=seats)
    for seat, stack in players.items():
        table.sit(seat, stack)
    table.set_button(button)
    return table


class Felt:
    """The physical table. ``sensors``: which sensors report; ``camera_first``: with both,
    the camera's report of a move arrives before the reader's."""

    def __init__(self, mon: DealingMonitor, *, sensors: Iterable[str] = ("rfid", "camera"),
                 seed: int = 1, top: Iterable[str] = (), t0: float = 100.0, gap: float = 0.5,
                 camera_first: bool = False) -> None:
        self.mon = mon
        self.sensors = frozenset(sensors)
        self.t = t0
        self.gap = gap
        self.camera_first = camera_first
        self.pieces: list[Piece] = []
        self._uids = 0
        self._tracks = 0
        self.alerts: list[Alert] = []  # every alert published, updates included
        self.outputs: list[MonitorOutput] = []  # every monitor output, in order
        self.new_deck(seed=seed, top=top)

    # ------------------------------------------------------------------- the deck
    def new_deck(self, *, seed: int, top: Iterable[str] = ()) -> None:
        """A freshly shuffled stub, ``top`` cards first."""
        first = [parse_card(c) for c in top]
        rest = [c for c in DECK if c not in first]
        random.Random(seed).shuffle(rest)
        self.stub = [self._piece(c) for c in first + rest]

    def _piece(self, card: Card | None, **kw: bool) -> Piece:
        self._uids += 1
        p = Piece(card=card, uid=f"04a1{self._uids:06x}", **kw)  # type: ignore[arg-type]
        self.pieces.append(p)
        return p

    def draw(self, card: str | None = None) -> Piece:
        if card is None:
            return self.stub.pop(0)
        wanted = parse_card(card)
        for i, p in enumerate(self.stub):
            if p.card == wanted:
                return self.stub.pop(i)
        raise AssertionError(f"{card} is not in the stub")

    def find(self, card: str, zone: str | None = None) -> Piece:
        wanted = parse_card(card)
        found = [p for p in self.pieces if p.card == wanted and p.zone != SHUFFLER
                 and (zone is None or p.zone == zone)]
        assert found, f"{card} is not on the felt"
        return found[-1]

    # ------------------------------------------------------------- observations
    def _obs(self, event: CardEvent, p: Piece, zone: str, source: Source) -> CardObservation:
        if source is Source.RFID:
            return CardObservation(event=event, zone=zone, t=self.t, source=source, key=p.uid,
                                   card=p.card, face=Face.UNKNOWN, deck="A" if not p.foreign
                                   else "B", foreign=p.foreign, joker=p.joker)
        assert p.track is not None
        shown = p.card if p.face is Face.UP else None
        return CardObservation(event=event, zone=zone, t=self.t, source=source, key=p.track,
                               card=shown, face=p.face, joker=p.joker and p.face is Face.UP)

    def _seen(self, out: MonitorOutput) -> list[Alert]:
        """Record ``out``; the alerts it publishes, new ones and updates."""
        if not out.empty:
            self.outputs.append(out)
        return list(out.published)

    def lifecycle(self) -> MonitorOutput:
        """Every output so far, combined (hand starts and ends left out)."""
        total = MonitorOutput()
        for out in self.outputs:
            total += MonitorOutput(alerts=out.alerts, updates=out.updates,
                                   resolved=out.resolved)
        return total

    def _send(self, obs: list[Observation]) -> list[Alert]:
        out: list[Alert] = []
        for o in obs:
            out += self._seen(self.mon.observe(o))
        return out

    def settle(self, seconds: float | None = None) -> list[Alert]:
        """Time passes with the felt still, in small ticks."""
        end = self.t + (self.gap if seconds is None else seconds)
        out: list[Alert] = []
        while self.t < end:
            self.t = min(end, self.t + 0.05)
            out += self._seen(self.mon.tick(self.t))
        return out

    def _emit(self, rfid: list[CardObservation], camera: list[CardObservation]) -> list[Alert]:
        rfid = rfid if "rfid" in self.sensors else []
        camera = camera if "camera" in self.sensors else []
        seq: list[Observation] = [*camera, *rfid] if self.camera_first else [*rfid, *camera]
        out = self._send(seq)
        out += self.settle()
        self.alerts += out
        return out

    # ---------------------------------------------------------------- physical moves
    def put(self, p: Piece, zone: str, face: Face = Face.DOWN, *,
            camera_sees: bool = True) -> list[Alert]:
        """A card from the stub (or brought in) lands in ``zone``. ``camera_sees`` False: it
        lands on a pile and the camera does not notice it."""
        rfid: list[CardObservation] = []
        camera: list[CardObservation] = []
        if p.zone not in (SHUFFLER, zone):
            rfid.append(self._obs(CardEvent.REMOVED, p, p.zone, Source.RFID))
            camera.append(self._obs(CardEvent.REMOVED, p, p.zone, Source.CAMERA))
        p.zone, p.face = zone, face
        self._tracks += 1
        p.track = f"trk{self._tracks}"
        rfid.append(self._obs(CardEvent.PLACED, p, zone, Source.RFID))
        if camera_sees:
            camera.append(self._obs(CardEvent.PLACED, p, zone, Source.CAMERA))
        return self._emit(rfid, camera)

    def place(self, zone: str, card: str | None = None, *, face: Face | None = None) -> list[Alert]:
        """The next card of the stub (or the named one) to ``zone``; board cards face up."""
        if face is None:
            face = Face.UP if zone == BOARD else Face.DOWN
        return self.put(self.draw(card), zone, face)

    def at_once(self, zones: Iterable[str], *, ordered: bool = True) -> list[Alert]:
        """The next cards of the stub land in ``zones`` within one look of the sensors (one
        scan cycle, one frame): reported at one time, in the order the reader's antennas are
        numbered (seats, board, burn, muck, tray), the reader's report first. ``ordered``: the
        monitor takes them in its :meth:`~DealingMonitor.in_procedure_order`, as the
        controller does; else as reported."""
        rfid: list[CardObservation] = []
        camera: list[CardObservation] = []
        for zone in sorted(zones, key=ALL_ZONES.index):
            p = self.draw()
            p.zone, p.face = zone, Face.UP if zone == BOARD else Face.DOWN
            self._tracks += 1
            p.track = f"trk{self._tracks}"
            rfid.append(self._obs(CardEvent.PLACED, p, zone, Source.RFID))
            camera.append(self._obs(CardEvent.PLACED, p, zone, Source.CAMERA))
        seq: list[Observation] = [*(rfid if "rfid" in self.sensors else []),
                                  *(camera if "camera" in self.sensors else [])]
        out = self._send(self.mon.in_procedure_order(seq) if ordered else seq)
        out += self.settle()
        self.alerts += out
        return out

    def bring(self, zone: str, card: str | None, *, face: Face | None = None,
              copy: bool = False, foreign: bool = False, joker: bool = False) -> list[Alert]:
        """A card that is not in the stub: a duplicate, a foreign card, a joker."""
        assert copy or foreign or joker
        p = self._piece(None if joker else parse_card(card or "As"), foreign=foreign,
                        joker=joker)
        if face is None:
            face = Face.UP if zone == BOARD else Face.DOWN
        return self.put(p, zone, face)

    def move(self, card: str, zone: str, face: Face | None = None) -> list[Alert]:
        p = self.find(card)
        return self.put(p, zone, p.face if face is None else face)

    def flip(self, card: str, zone: str | None = None) -> list[Alert]:
        p = self.find(card, zone)
        p.face = Face.DOWN if p.face is Face.UP else Face.UP
        return self._emit([], [self._obs(CardEvent.FLIPPED, p, p.zone, Source.CAMERA)])

    def take_back(self, card: str) -> list[Alert]:
        """A card leaves the felt (back into the stub, or discarded)."""
        p = self.find(card)
        obs = [self._obs(CardEvent.REMOVED, p, p.zone, Source.RFID)], \
            [self._obs(CardEvent.REMOVED, p, p.zone, Source.CAMERA)]
        p.zone, p.face = SHUFFLER, Face.DOWN
        self.stub.insert(0, p)
        return self._emit(*obs)

    def lift(self, p: Piece, seconds: float) -> list[Alert]:
        """A player lifts a card off the felt for ``seconds`` and puts it back (a peek)."""
        gone = self._emit([self._obs(CardEvent.REMOVED, p, p.zone, Source.RFID)],
                          [self._obs(CardEvent.REMOVED, p, p.zone, Source.CAMERA)])
        gone += self.settle(seconds)
        return gone + self.put(p, p.zone, p.face)

    def collect(self) -> list[Alert]:
        """Every card on the felt back into the shuffler (end of hand, misdeal)."""
        rfid: list[CardObservation] = []
        camera: list[CardObservation] = []
        for p in self.pieces:
            if p.zone != SHUFFLER:
                rfid.append(self._obs(CardEvent.REMOVED, p, p.zone, Source.RFID))
                camera.append(self._obs(CardEvent.REMOVED, p, p.zone, Source.CAMERA))
                p.zone, p.face = SHUFFLER, Face.DOWN
        return self._emit(rfid, camera)

    def on_felt(self, zone: str) -> list[Piece]:
        return [p for p in self.pieces if p.zone == zone]

    # ----------------------------------------------------------- procedure helpers
    def button(self) -> list[Alert]:
        out = (self._seen(self.mon.observe(ButtonPressed(self.t)))) + self.settle()
        self.alerts += out
        return out

    def deal_hole(self) -> list[Alert]:
        out: list[Alert] = []
        order = self.mon.deal_order()
        for _ in range(2):
            for seat in order:
                out += self.place(seat_zone(seat))
        return out

    def deal_street(self, n: int, *, burn: bool = True) -> list[Alert]:
        out = self.place(BURN) if burn else []
        for _ in range(n):
            out += self.place(BOARD)
        return out

    def act(self, *actions: str) -> list[Alert]:
        """``"3 raise 6"``, ``"1 fold"``... (scenario.md spelling)."""
        out: list[Alert] = []
        for text in actions:
            parts = text.split()
            amount = int(parts[2]) if len(parts) > 2 else None
            out += self._seen(self.mon.console(
                ConsoleAction(int(parts[0]), parts[1], amount, self.t)))
            out += self.settle()
        self.alerts += out
        return out

    def resolve(self, code: str) -> list[Alert]:
        out = (self._seen(self.mon.resolve(code, self.t))) + self.settle()
        self.alerts += out
        return out

    def sensor(self, source: Source, online: bool) -> list[Alert]:
        out = self._seen(self.mon.observe(SensorStatus(source, online, self.t))) + self.settle()
        self.alerts += out
        return out

    def showdown(self) -> list[Alert]:
        out: list[Alert] = []
        for seat in self.mon.showdown_order():
            for p in self.on_felt(seat_zone(seat)):
                if p.face is Face.DOWN:
                    out += self.flip(str(p.card))
        out += self._seen(self.mon.showdown(self.t))
        self.alerts += out
        return out


def monitor(players: dict[int, int], *, sensors: Iterable[str] = ("rfid", "camera"),
            rules: str = "tda", seats: int = 6, button: int = 1, seed: int = 1,
            top: Iterable[str] = (), burn: str | None = None, camera_first: bool = False,
            stub_visible: bool = False, sensor_lag: float = 0.0) -> Felt:
    """A monitor over a fresh table, and the felt that feeds it."""
    table = make_table(players, seats=seats, button=button)
    chooser = None
    if burn is not None:
        wanted = parse_card(burn)

        def chooser(cards: object) -> Card:
            return wanted

    mon = DealingMonitor(table, config=MonitorConfig(
        rules=rules, sensors=frozenset(sensors), settle_time=0.3,  # type: ignore[arg-type]
        stub_visible=stub_visible, sensor_lag=sensor_lag), burn_chooser=chooser)
    return Felt(mon, sensors=sensors, seed=seed, top=top, camera_first=camera_first)


def codes(alerts: Iterable[Alert], *, game_only: bool = True) -> list[str]:
    """Alert codes, leaving out faults and info unless ``game_only`` is False."""
    from table_controller.vocabulary.alerts import Severity

    return [a.code for a in alerts
            if not game_only or a.severity not in (Severity.FAULT, Severity.INFO)]
