"""The simulated table playing alone (``run --sim`` without ``--manual``).

A dealer station, as a table's would be: it sends the console's requests over the controller's
real console socket (a zmq REQ client): ``sim_press``, ``sim_deal``, ``sim_show``,
``sim_collect`` for the simulated dealer's hands, ``action`` for the seated players (who choose
by the seeded policy of :mod:`hw_sim.harness.policy`, the one ``demo`` plays by), ``showdown``
and ``resolve``. The sensors' paths see what the dealer moves, as in every other simulation.
With probability ``error_rate`` a hand gets one dealer error (:data:`~hw_sim.harness.policy.
ERRORS`); when the controller raises a game alert the dealer carries out its remedy
(:meth:`hw_sim.devices.dealer.Dealer.carry_out`) and the station resolves it.

The station is polled by the controller like a sensor, after the simulated dealer: each poll
it takes the reply of the request it sent (the controller answered it in the previous step)
and, when the table is ready, sends the next one. It delivers no observation. It reads the
monitor's state (whose turn, the legal actions, the open alerts) as a station's screen shows
it; it never changes the monitor itself (besides handing a dealt street to the engine before
reading whose turn it is, as the console's first action would).

The players and the dealer also behave as at a real table (:mod:`hw_sim.harness.behaviours`,
at the rates given): players peek at their cards before their first action, square them and
lay a chip or a protector on them after the deal, folds are pushed into the muck, the dealer's
hand passes over the board after a street. (Cards slid under the dealer's hand are ``demo``'s
and the scenarios': here the dealer deals through ``sim_deal``.)

A hand that stops making progress (no request answered for ``stall`` seconds of play) is voided
through the console, the cards collected, and the game goes on.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import partial
from typing import Any

import zmq

from hw_sim.harness import behaviours as behave
from hw_sim.harness.behaviours import OFF, Behaviours, chance
from hw_sim.harness.console_dealer import ConsoleDealer
from hw_sim.harness.policy import choose_action, error_kinds, plan_error
from hw_sim.harness.runner import HAND_IN
from table_controller.monitor import DealingMonitor
from table_controller.vocabulary.alerts import Alert, Severity
from table_controller.vocabulary.observations import Face, Observation
from table_controller.vocabulary.zones import BOARD, BURN, seat_zone

log = logging.getLogger(__name__)

GAME_SEVERITIES = (Severity.STOP, Severity.FIX, Severity.WARN)


@dataclass(frozen=True, slots=True)
class _Send:
    request: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Until:
    ready: Callable[[], bool]
    timeout: float


@dataclass(frozen=True, slots=True)
class _Sleep:
    seconds: float


_Op = _Send | _Until | _Sleep
Script = Generator[_Op, Any, None]


class SimStation:
    """Plays hand after hand on ``dealer``'s table through the console at ``endpoint``.

    ``seed``: the players' and the dealer's choices; ``error_rate``: the fraction of hands with
    one dealer error; ``settle``: seconds the station waits after the dealer's hands stop, so
    the sensors have seen every card before the players act."""

    name = "sim-station"

    def __init__(self, dealer: ConsoleDealer, monitor: DealingMonitor, *, endpoint: str,
                 seed: int, error_rate: float = 0.05, rules: str = "tda",
                 settle: float = 1.0, stall: float = 60.0,
                 context: zmq.Context[Any] | None = None, resume: bool = False,
                 behaviours: Behaviours = OFF) -> None:
        if not 0.0 <= error_rate <= 1.0:
            raise ValueError("error_rate is a fraction between 0 and 1")
        self.dealer = dealer
        self.table = dealer.table
        self.monitor = monitor
        self.rng = random.Random(f"autoplay:{seed}")
        self.behaviours = behaviours
        self.behave_rng = random.Random(f"behaviours:{seed}")
        self.behaved: list[tuple[int, str, str]] = []  # (hand, behaviour, zone), in order
        self._peeked: set[int] = set()
        self.error_rate = error_rate
        self.error_kinds = error_kinds(monitor.config.sensors)
        self.rules = rules
        self.settle = settle
        self.stall = stall
        self.hands = 0  # hands this station saw end
        self.errors: list[str] = []  # the dealer errors it made, in order
        self.refused: list[str] = []  # requests the controller refused, with the reason
        ctx = context or zmq.Context.instance()
        self._sock = ctx.socket(zmq.REQ)
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.connect(endpoint)
        self._script: Script = self._continue() if resume else self._game()
        self._op: _Op | None = None
        self._since = 0.0
        self._progress = 0.0
        self._started = False
        self._voiding = False

    # ------------------------------------------------------------------ as a sensor
    def poll(self, now: float) -> list[Observation]:
        if not self._started:
            self._started, self._since, self._progress = True, now, now
            self._advance(None, now)
        for _ in range(8):  # a few quick steps (e.g. a reply then the next request) per look
            op = self._op
            if isinstance(op, _Send):
                try:
                    raw = self._sock.recv(flags=zmq.NOBLOCK)
                except zmq.Again:
                    break
                self._progress = now
                self._advance(json.loads(raw.decode("utf-8")), now)
            elif isinstance(op, _Until):
                if op.ready():
                    self._advance(True, now)
                elif now - self._since >= op.timeout:
                    self._advance(False, now)
                else:
                    break
            elif isinstance(op, _Sleep):
                if now - self._since < op.seconds:
                    break
                self._advance(None, now)
            else:
                break
        if (now - self._progress > self.stall and not self._voiding
                and not isinstance(self._op, _Send)):
            self._restart_hand(now)
        return []

    def close(self) -> None:
        self._script.close()
        self._sock.close(0)

    def _advance(self, value: Any, now: float) -> None:
        try:
            self._op = self._script.send(value)
        except StopIteration:
            self._op = None
            return
        self._since = now
        if isinstance(self._op, _Send):
            self._sock.send(json.dumps(self._op.request).encode())

    def _restart_hand(self, now: float) -> None:
        """The hand made no progress for ``stall`` seconds: void it and go on."""
        log.warning("sim station: hand %s stalled; voiding it", self.monitor.hand_number)
        self._script.close()
        self._script = self._void_and_go_on("simulation: the hand stalled")
        self._progress = now
        self._advance(None, now)

    # ------------------------------------------------------------------ the script
    def _game(self) -> Script:
        while True:
            yield from self._hand()

    def _void_and_go_on(self, cause: str) -> Script:
        self._voiding = True
        yield from self._until_dealer_free()
        if self.monitor.hand is not None:
            yield from self._send({"cmd": "void", "cause": cause})
        yield from self._dealer({"cmd": "sim_collect"})
        self._voiding = False
        yield from self._game()

    def _send(self, request: dict[str, Any]) -> Generator[_Op, Any, dict[str, Any]]:
        reply = yield _Send(request)
        if not isinstance(reply, dict) or not reply.get("ok"):
            error = reply.get("error") if isinstance(reply, dict) else reply
            self.refused.append(f"{request.get('cmd')}: {error}")
            log.info("sim station: %s refused: %s", request, error)
            return {}
        return reply

    def _until_dealer_free(self) -> Script:
        yield _Until(lambda: not self.dealer.busy, timeout=self.stall)

    def _dealer(self, request: dict[str, Any]) -> Script:
        """A request to the simulated dealer; waits until its hands stop and the sensors
        have seen it all."""
        yield from self._until_dealer_free()
        yield from self._send(request)
        yield from self._until_dealer_free()
        yield _Sleep(self.settle)

    def _by_hand(self, what: str, work: Callable[[], None]) -> Script:
        """The dealer does ``work`` (an error, a remedy) with its own hands."""
        yield from self._until_dealer_free()
        self.dealer.perform(what, work)
        yield from self._until_dealer_free()
        yield _Sleep(self.settle)

    def _hand(self) -> Script:
        yield _Sleep(self.settle)  # the felt is seen clear before the next deck
        before = self.monitor.hand_number
        yield from self._dealer({"cmd": "sim_press"})
        started = yield _Until(lambda: self.monitor.hand_number != before, timeout=10.0)
        if not started or self.monitor.hand is None:
            return  # the press started no hand (e.g. seats missing): try again
        number = self.monitor.hand_number

        error = plan_error(self.rng, self.error_rate, self.error_kinds)
        self._peeked = set()
        yield from self._deal_hole(error)
        yield from self._play(number, error, first=0)

    def _continue(self) -> Script:
        """A killed run's hand, rebuilt by the controller on a new simulated table laid out as
        the journal left it (``run --sim`` resuming, docs/running.md "Restart after a crash"):
        the dealer finishes what he was dealing (the hole cards, a street), then the hand is
        played on from the street on the board, with no dealer error; then the game goes
        on."""
        yield _Sleep(self.settle)  # the sensors see the new table first
        if self.monitor.hand is not None:
            number = self.monitor.hand_number
            yield from self._answer_alerts()
            if self.monitor.hand is not None and self.monitor.hand_number == number:
                yield from self._finish_deal()
                board = len(self.table.model.in_zone(BOARD))
                yield from self._play(number, None, first=streets_on_board(board))
            else:
                yield from self._dealer({"cmd": "sim_collect"})
        yield from self._game()

    def _finish_deal(self) -> Script:
        """The hole cards or the street the dealer was dealing when the controller stopped."""
        model, dealer = self.table.model, self.table.dealer
        order = list(self.monitor.deal_order())
        board = len(model.in_zone(BOARD))
        held = sum(len(model.in_zone(seat_zone(s))) for s in order)
        if board == 0 and not model.in_zone(BURN) and held < 2 * len(order):
            def rest_of_deal() -> None:  # two rounds in the deal order ([000], [002 #30])
                for rnd in range(2):
                    for seat in order:
                        if len(model.in_zone(seat_zone(seat))) <= rnd:
                            dealer.put(model.draw_top(), seat_zone(seat), _face("down"))
            yield from self._by_hand("finish the deal", rest_of_deal)
            yield from self._answer_alerts()
            return
        streets = streets_on_board(board)
        missing = 3 - board if 0 < board < 3 else 0
        if not missing and board < 5 and len(model.in_zone(BURN)) > streets:
            missing = 3 if board == 0 else 1  # the burn is out: its street comes next
        if missing:
            def rest_of_street() -> None:
                for _ in range(missing):
                    dealer.put(model.draw_top(), BOARD, _face("up"))
            yield from self._by_hand("finish the street", rest_of_street)
            yield from self._answer_alerts()

    def _play(self, number: int, error: str | None, *, first: int) -> Script:
        """Hand ``number`` from street ``first`` on (0: preflop, its cards dealt; a later one:
        on the board already), to its end and the collection of the cards."""
        def over() -> bool:
            return self.monitor.hand is None or self.monitor.hand_number != number

        yield from self._answer_alerts()
        if first == 0:
            yield from self._after_deal(over)
        for i, street in enumerate(("preflop", "flop", "turn", "river")):
            if i < first:
                continue
            if over():
                break
            if i > first:
                yield from self._deal_street(street, error)
                yield from self._answer_alerts()
                if over():
                    break
                if chance(self.behave_rng, self.behaviours.reach):
                    yield from self._reach(behave.reach_seconds(self.behave_rng))
            yield from self._bet(street, error, over)
        if not over():
            hand = self.monitor.hand
            if hand is not None and hand.to_act is None:
                seats = self.monitor.showdown_order()
                yield from self._dealer({"cmd": "sim_show", "seats": seats})
                yield from self._send({"cmd": "showdown"})
        if not over():
            yield from self._send({"cmd": "void", "cause": "simulation: the hand did not end"})
        self.hands += 1
        yield from self._dealer({"cmd": "sim_collect"})

    def _deal_hole(self, error: str | None) -> Script:
        order = list(self.monitor.deal_order())
        dealer, model = self.table.dealer, self.table.model
        if error == "wrong_first_seat" and len(order) > 1:
            self.errors.append(error)
            yield from self._by_hand(error, lambda: dealer.put(
                model.draw_top(), seat_zone(order[1]), _face("down")))
            return
        if error == "exposed_card" and len(order) >= 2:
            self.errors.append(error)

            def exposed() -> None:  # [000] [003]: the deal goes on, the remedy after it
                for i, seat in enumerate(order * 2):
                    dealer.put(model.draw_top(), seat_zone(seat), _face("up" if i == 2
                                                                       else "down"))
            yield from self._by_hand(error, exposed)
            return
        yield from self._dealer({"cmd": "sim_deal", "street": "hole"})

    def _deal_street(self, street: str, error: str | None) -> Script:
        dealer, model = self.table.dealer, self.table.model
        if error == "missing_burn" and street == "turn":
            self.errors.append(error)
            yield from self._by_hand(error, lambda: dealer.put(model.draw_top(), "board",
                                                               _face("up")))
            return
        if error == "duplicate" and street == "flop":
            hole = model.in_zone(seat_zone(self.monitor.deal_order()[0]))
            card = hole[0].card if hole else None
            if card is not None:
                self.errors.append(error)

                def duplicate() -> None:
                    dealer.put(model.draw_top(), "burn", _face("down"))
                    dealer.put(model.new_copy(card), "board", _face("up"))
                yield from self._by_hand(error, duplicate)
                return
        yield from self._dealer({"cmd": "sim_deal", "street": street})
        if error == "four_card_flop" and street == "flop":
            self.errors.append(error)
            yield from self._by_hand(error, lambda: dealer.put(model.draw_top(), "board",
                                                               _face("up")))

    def _bet(self, street: str, error: str | None, over: Callable[[], bool]) -> Script:
        premature_due = error == "premature_flop" and street == "preflop"
        for _ in range(200):
            if over():
                return
            yield from self._answer_alerts()
            # the street on the board goes to the engine once its betting may start (the
            # console's first action would do the same)
            self.monitor.commit_street(strict=False)
            hand = self.monitor.hand
            if hand is None or over() or hand.to_act is None:
                return
            legal = hand.legal_actions()
            if premature_due and legal.can_check and hand.street.value == "preflop":
                # the big blind's option is pending: a flop dealt now is premature ([003],
                # TDA RP-5)
                premature_due = False
                self.errors.append("premature_flop")
                yield from self._by_hand("premature_flop",
                                         lambda: self.table.dealer.deal_street("flop"))
                continue
            kind, amount = choose_action(legal, self.rng)
            yield from self._before_action(legal.seat)
            request: dict[str, Any] = {"cmd": "action", "seat": legal.seat, "kind": kind}
            if amount is not None:
                request["amount"] = amount
            reply = yield from self._send(request)
            if not reply:
                return  # refused: the hand is voided by the caller if it cannot go on
            if kind == "fold" and not over():
                yield from self._muck(legal.seat)

    # ------------------------------------------------------------------ behaviours
    def _noted(self, kind: str, zone: str) -> None:
        self.behaved.append((self.monitor.hand_number, kind, zone))

    def _after_deal(self, over: Callable[[], bool]) -> Script:
        """Players square their cards and lay a chip or a protector on them."""
        rates, rng, model = self.behaviours, self.behave_rng, self.table.model
        if not (rates.square or rates.protect):
            return
        yield from self._until_dealer_free()
        for seat in self.monitor.deal_order():
            zone = seat_zone(seat)
            if over() or len(model.in_zone(zone)) != 2:
                continue
            if chance(rng, rates.square):
                model.square(zone)
                self._noted("square", zone)
            if chance(rng, rates.protect):
                model.cover(zone, behave.protector(rng))
                self._noted("cover", zone)
        yield _Sleep(self.settle)

    def _before_action(self, seat: int) -> Script:
        """Before his first action of the hand a player may look at his cards: he lifts
        them off the felt under his hand and lays them back."""
        if seat in self._peeked:
            return
        self._peeked.add(seat)
        zone, model = seat_zone(seat), self.table.model
        if not model.in_zone(zone) or not chance(self.behave_rng, self.behaviours.peek):
            return
        seconds = behave.peek_seconds(self.behave_rng)
        yield from self._until_dealer_free()
        cards = model.in_zone(zone)
        if not cards:
            return
        self._noted("peek", zone)
        model.cover(zone, "hand")
        yield _Sleep(HAND_IN)
        model.lift(cards)
        yield _Sleep(seconds)
        model.lift(cards, up=False)
        yield _Sleep(HAND_IN)
        model.uncover(zone, "hand")
        yield _Sleep(self.settle)

    def _muck(self, seat: int) -> Script:
        """A folded hand pushed into the muck, under the dealer's hand."""
        zone, model = seat_zone(seat), self.table.model
        if not model.in_zone(zone) or not chance(self.behave_rng, self.behaviours.muck):
            return
        self._noted("muck", zone)

        def sweep() -> None:
            model.uncover(zone)
            model.cover("muck", "hand")
            for pc in model.in_zone(zone):
                self.table.dealer.move(pc, "muck", Face.DOWN)
            model.uncover("muck", "hand")

        yield from self._by_hand("muck", sweep)

    def _reach(self, seconds: float) -> Script:
        """The dealer's hand passes over the board."""
        yield from self._until_dealer_free()
        self._noted("reach", "board")
        self.table.model.cover("board", "hand")
        yield _Sleep(seconds)
        self.table.model.uncover("board", "hand")
        yield _Sleep(self.settle)

    def _answer_alerts(self) -> Script:
        """The dealer carries out every open game alert's remedy; the station resolves it."""
        for _ in range(5):
            open_alerts = [a for a in self.monitor.open_alerts if a.severity in GAME_SEVERITIES]
            if not open_alerts:
                return
            alert: Alert = open_alerts[-1]
            yield from self._by_hand(f"remedy of {alert.code}", partial(
                self.table.dealer.carry_out, alert, rules=self.rules))
            yield from self._send({"cmd": "resolve", "code": alert.code})


def streets_on_board(cards: int) -> int:
    """How many streets ``cards`` board cards begin (a flop being dealt counts as one)."""
    return 0 if cards == 0 else 1 if cards <= 3 else cards - 2


def _face(text: str) -> Face:
    return Face(text)
