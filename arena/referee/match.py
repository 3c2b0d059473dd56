"""Running one match: ask the seats, enforce time control, apply, record, until the rules end it.

The policy (also in the README): a late, illegal or unparseable answer gets the bot a rejection that
says why, the fallback action played for it, and a strike. A decision that falls due while the bot
is disconnected gets the fallback without a strike: a bot that reconnects within the grace period
carries on. At ``strike_limit`` strikes, or when its
bot is gone past the grace period (``SeatGoneError``), the seat is forfeited: the fallback policy plays it
to the end and the outcome places it last. The fallback action is the first legal action in the
game's canonical order. Whatever one seat does, the match ends and the others' results stand.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import functools
import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from arena.errors import ActionError, GameSetupError, IllegalActionError, LeaseLostError, SeatGoneError
from arena.games.base import GameRules, Outcome, Seat, Termination
from arena.games.lookup import get_game
from arena.referee.clock import Cancellable, Clock, MonotonicClock
from arena.referee.record import DecisionRecord, Fault, MatchRecord, RejectionRecord, final_outcome
from arena.referee.seat import DecisionRequest, MatchEnd, MatchStart, Rejection, SeatClient
from arena.referee.timecontrol import TimeControl

log = logging.getLogger(__name__)

MAX_RECORDED_ANSWER = 200
"""Characters of a rejected answer kept in the record."""


@dataclasses.dataclass(frozen=True, slots=True)
class MatchSetup:
    """Everything needed to start a match."""

    match_id: str
    game: str
    players: Sequence[str]
    """The bot name at each seat."""
    seats: Sequence[SeatClient]
    seed: int
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    deck: Sequence[str] | None = None
    time_control: TimeControl = dataclasses.field(default_factory=TimeControl)


class EventKind(enum.StrEnum):
    """What a spectator's :class:`MatchEvent` reports (the text is the web stream's ``event:`` name)."""

    STARTED = "started"
    TURN = "turn"
    """A turn was played and its actions revealed."""
    ENDED = "ended"


@dataclasses.dataclass(frozen=True, slots=True)
class MatchEvent:
    """Public news of a running match, for spectators: never a hand, choices only once revealed."""

    match_id: str
    kind: EventKind
    turn: int
    """Turns played so far (the one just revealed for a ``TURN`` event is ``turn - 1``)."""
    view: Any
    """The game's public view after the event."""
    game: str = ""
    actions: Mapping[Seat, str] = dataclasses.field(default_factory=dict)
    """The revealed actions of the turn."""
    outcome: Outcome | None = None
    round_result: tuple[int, Any] | None = None
    """(round number, result) when the turn ended a scored round (games with rounds)."""


class EventMaker:
    """Makes one spectator event, once, when first asked: the public view is computed only if
    someone watches (a view a turn was a few percent of a node's CPU). Holds the states it is made
    from, which the rules never change."""

    __slots__ = (
        "_actions",
        "_before",
        "_event",
        "_game",
        "_kind",
        "_match_id",
        "_outcome",
        "_rules",
        "_state",
        "_turn",
    )

    def __init__(
        self,
        rules: GameRules[Any, Any, Any],
        setup: MatchSetup,
        kind: EventKind,
        turn: int,
        state: Any,
        before: Any,
        actions: Mapping[Seat, str],
        outcome: Outcome | None,
    ) -> None:
        self._rules, self._match_id, self._game, self._kind, self._turn = rules, setup.match_id, setup.game, kind, turn
        self._state, self._before, self._actions, self._outcome = state, before, actions, outcome
        self._event: MatchEvent | None = None

    def __call__(self) -> MatchEvent:
        if self._event is None:
            rules = self._rules
            view = rules.public_view(self._state)
            round_result = None
            if self._kind is EventKind.TURN:  # a round result once: in the turn that ended its round
                now = rules.round_result(view)
                earlier = rules.round_result(rules.public_view(self._before)) if self._before is not None else None
                if now is not None and (earlier is None or now[0] > earlier[0]):
                    round_result = now
            self._event = MatchEvent(
                self._match_id, self._kind, self._turn, view, self._game, self._actions, self._outcome, round_result
            )
            self._state = self._before = None  # made: the states are not needed any more
        return self._event


Observer = Callable[[EventMaker], None]
"""Told of each event as it happens, with what makes it (``EventMaker``): an observer that nobody
watches need not make it."""


class MatchMetrics(Protocol):
    """What the referee reports for monitoring (implemented with Prometheus in ``arena.metrics``)."""

    def match_started(self, game: str) -> None:
        """A match began."""
        ...

    def decision(self, game: str, seconds: float, fault: Fault | None) -> None:
        """A seat answered (or failed to): its latency and fault (None when its answer was used)."""
        ...

    def match_finished(self, game: str, termination: Termination, seconds: float) -> None:
        """A match ended (aborted included)."""
        ...


async def run_match(
    setup: MatchSetup,
    clock: Clock | None = None,
    observer: Observer | None = None,
    metrics: MatchMetrics | None = None,
) -> MatchRecord:
    """Referee one match to its end and return its record.

    Raises ``GameSetupError`` (before contacting any seat) if the game cannot be set up. If the
    task is cancelled (server shutdown), the record is completed as ABORTED and then the
    cancellation propagates.
    """
    return await Match(setup, clock or MonotonicClock(), observer, metrics).run()


@dataclasses.dataclass(slots=True)
class _Wait:
    """One seat's outstanding request in a turn."""

    request: DecisionRequest
    future: asyncio.Future[str]
    started: float
    limit: float
    deadline: float
    """``started + limit`` on the referee's clock: the match's timer cancels the wait then."""
    ended: float | None = None


class Match:
    """One match being refereed; ``record`` is complete once ``run`` returns or is cancelled.

    Between its start and its end the match is not a coroutine: it is a state machine moved on by
    its seats' answers and its one timer (``_settled``, ``_expire``). The last answer of a turn
    judges the turn, applies it and sends the next requests in the same callback, so a decision
    costs the loop the answer's callback and nothing more; ``run`` itself only waits for the end.
    Only the rare rejection notices, which a seat may take time to receive, run as a task.
    """

    def __init__(
        self,
        setup: MatchSetup,
        clock: Clock,
        observer: Observer | None = None,
        metrics: MatchMetrics | None = None,
        leased: Callable[[], bool] | None = None,
        ending: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        if len(setup.seats) != len(setup.players):
            raise ValueError("a match needs one seat client per player")
        self.setup = setup
        self.clock = clock
        self.observer = observer
        self.metrics = metrics
        self.leased = leased
        """Whether this node may still play the match (a queued match's lease): asked before each
        turn's requests; once it says no, the match ends ABORTED before asking anything more."""
        self.ending = ending
        """Awaited once the match is over, before any seat is told how it ended (it must not
        raise): a seat told the end may be asked to play again at once."""
        self.game: GameRules[Any, Any, Any] = get_game(setup.game)
        self.state = self.game.initial_state(len(setup.players), setup.seed, setup.options, setup.deck)
        n = len(setup.players)
        tc = setup.time_control
        self.bank = [tc.time_bank] * n
        self.record = MatchRecord(
            match_id=setup.match_id,
            game=setup.game,
            bot_names=tuple(setup.players),
            seed=setup.seed,
            options=dict(setup.options),
            deck=tuple(setup.deck) if setup.deck is not None else None,
            time_control=tc,
            strikes=[0] * n,
        )
        self.sequences = [itertools.count(1) for _ in range(n)]
        """One counter per seat: a seat's numbers tell it nothing but the order of its own requests."""
        self.turn = 0
        self._emitted: Any = None
        """The state at the last event (the one before the next: a turn's event compares the two)."""
        self._seats: list[Seat] = []
        """The seats to move in the current turn, in order."""
        self._decided: dict[Seat, DecisionRecord] = {}
        """The current turn's decisions known so far (a forfeited seat's at once, the others' once judged)."""
        self._waits: list[_Wait] = []
        """The current turn's outstanding requests."""
        self._judged: dict[Seat, Any] = {}
        """The current turn's answers that were used, as the rules parsed them (not parsed again to play)."""
        self._left = 0
        """How many of them have not settled."""
        self._ended: asyncio.Future[None] | None = None
        """Resolved when the rules end the match (or with the error that stopped it)."""
        self._notices: asyncio.Task[None] | None = None
        """The rejections of the last turn being delivered, before the next turn's requests."""
        self._timer: Cancellable | None = None
        self._timer_due = 0.0
        """One timer per match, re-armed only when a deadline comes earlier than it (see ``_arm``)."""

    async def run(self) -> MatchRecord:
        setup = self.setup
        self.record.started_at = self.clock.wall()
        started = self.clock.now()
        if self.metrics is not None:
            self.metrics.match_started(setup.game)
        await self._tell_all(
            lambda seat: setup.seats[seat].match_started(
                MatchStart(
                    setup.match_id,
                    setup.game,
                    seat,
                    tuple(setup.players),
                    setup.time_control,
                    dict(setup.options),
                )
            )
        )
        self._emit(EventKind.STARTED, {})
        self._ended = asyncio.get_running_loop().create_future()
        try:
            self._step(self._advance)
            await self._ended
        except asyncio.CancelledError:
            self._stop()
            self.record.outcome = Outcome(Termination.ABORTED, (), (), frozenset(self.record.forfeits))
            self.record.ended_at = self.clock.wall()
            self._emit(EventKind.ENDED, {})
            if self.metrics is not None:
                self.metrics.match_finished(setup.game, Termination.ABORTED, self.clock.now() - started)
            raise
        except (GameSetupError, LeaseLostError) as error:
            # The fixture order ran out mid-match (an Azul deck without the refill the game needs), or
            # another node may be taking the match over: it cannot go on here. It ends aborted,
            # recorded, with every seat told.
            self._stop()
            log.warning("match %s aborted: %s", setup.match_id, error)
            outcome = Outcome(Termination.ABORTED, (), (), frozenset(self.record.forfeits))
        except BaseException:
            self._stop()
            raise
        else:
            game_outcome = self.game.outcome(self.state)
            assert game_outcome is not None, "to_move is empty only once the rules have an outcome"
            outcome = final_outcome(game_outcome, self.record.forfeits)
        self._stop()
        self.record.outcome = outcome
        self.record.ended_at = self.clock.wall()
        if self.ending is not None:
            await self.ending()
        await self._tell_all(lambda seat: setup.seats[seat].match_ended(MatchEnd(setup.match_id, seat, outcome)))
        self._emit(EventKind.ENDED, {})
        if self.metrics is not None:
            self.metrics.match_finished(setup.game, outcome.termination, self.clock.now() - started)
        return self.record

    def _step(self, move: Callable[[], None]) -> None:
        """Move the match on; an error stops it (``run`` raises it)."""
        try:
            move()
        except Exception as error:
            ended = self._ended
            if ended is not None and not ended.done():
                ended.set_exception(error)

    def _advance(self) -> None:
        """Start turns until one waits for an answer, or the rules have ended the match.

        Every seat to move is asked at once; nothing is revealed until all have answered or timed out.
        """
        while seats := self.game.to_move(self.state):
            if self.leased is not None and not self.leased():
                raise LeaseLostError(f"the lease of match {self.setup.match_id} ran out before turn {self.turn}")
            self._seats = sorted(seats)
            self._decided = {}
            self._judged = {}
            waits: list[_Wait] = []
            for seat in self._seats:
                prepared = self._request(seat)
                if isinstance(prepared, DecisionRecord):
                    self._decided[seat] = prepared
                else:
                    waits.append(prepared)
            if waits:
                self._waits, self._left = waits, len(waits)
                turn = self.turn
                for w in waits:
                    w.future.add_done_callback(functools.partial(self._settled, turn, w))
                self._arm(min(w.deadline for w in waits))
                return
            self._play()
        ended = self._ended
        if ended is not None and not ended.done():
            ended.set_result(None)

    def _settled(self, turn: int, wait: _Wait, _future: asyncio.Future[str]) -> None:
        """One request of the turn is settled (answered, failed or cancelled); the last one plays the turn."""
        if turn != self.turn or self._ended is None or self._ended.done():
            return  # a request of a turn already over, or of a match that has stopped
        if wait.ended is None:
            wait.ended = self.clock.now()
        self._left -= 1
        if self._left == 0:
            self._step(self._judge_turn)

    def _judge_turn(self) -> None:
        waits, self._waits = self._waits, []
        notices: list[tuple[Seat, Rejection]] = []
        for w in waits:
            self._decided[w.request.seat] = self._judge(w, notices)
        self._play()
        if notices:
            self._notices = asyncio.ensure_future(self._notify_then_advance(notices))
        else:
            self._advance()

    async def _notify_then_advance(self, notices: list[tuple[Seat, Rejection]]) -> None:
        for seat, rejection in notices:
            await self._tell(seat, self.setup.seats[seat].rejected(rejection))
        self._step(self._advance)

    def _play(self) -> None:
        """Apply the current turn's decisions and record them."""
        decisions = [self._decided[seat] for seat in self._seats]
        if self.metrics is not None:
            for d in decisions:
                if d.sequence:  # a request was sent
                    self.metrics.decision(self.setup.game, d.elapsed, d.fallback)
        judged, parse = self._judged, self.game.parse_action
        actions = {d.seat: judged[d.seat] if d.seat in judged else parse(d.action) for d in decisions}
        self.state = self.game.apply(self.state, actions)
        self.record.turns.append(tuple(decisions))
        self.turn += 1
        self._emit(EventKind.TURN, {d.seat: d.action for d in decisions})

    def _stop(self) -> None:
        """The match is over (or stopped): no timer, no request or notice outstanding."""
        self._stop_timer()
        waits, self._waits = self._waits, []
        for w in waits:
            if not w.future.done():
                w.future.cancel()
        if self._notices is not None and not self._notices.done():
            self._notices.cancel()

    def _arm(self, due: float) -> None:
        """Make sure the match's timer fires by ``due`` (the referee's clock)."""
        if self._timer is not None:
            if self._timer_due <= due:
                return
            self._timer.cancel()
        self._timer_due = due
        self._timer = self.clock.call_later(due - self.clock.now(), self._expire)

    def _expire(self) -> None:
        """The timer fired: cancel every wait past its limit, and re-arm for the next deadline."""
        self._timer = None
        now = self.clock.now() + 1e-9  # a timer may fire a clock tick early
        upcoming: float | None = None
        for w in self._waits:
            if w.future.done():
                continue
            if w.deadline <= now:
                w.future.cancel()
            elif upcoming is None or w.deadline < upcoming:
                upcoming = w.deadline
        if upcoming is not None:
            self._arm(upcoming)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _request(self, seat: Seat) -> _Wait | DecisionRecord:
        """Send one seat its request (or play the fallback for a forfeited seat)."""
        legal = self.game.legal_actions(self.state, seat)
        fallback = str(legal[0])
        if seat in self.record.forfeits:
            return DecisionRecord(self.turn, seat, fallback, 0.0, Fault.FORFEITED)
        tc = self.setup.time_control
        limit = tc.decision_allowance + self.bank[seat]
        request = DecisionRequest(
            match_id=self.setup.match_id,
            game=self.setup.game,
            sequence=next(self.sequences[seat]),
            seat=seat,
            observation=self.game.observe(self.state, seat),
            legal_actions=[str(a) for a in legal],
            action_hint=self.game.describe_action(self.state, seat),
            deadline=self.clock.wall() + limit,
            allowance=tc.decision_allowance,
            time_bank=self.bank[seat],
        )
        started = self.clock.now()
        try:
            future = asyncio.ensure_future(self.setup.seats[seat].decide(request))
        except Exception as error:  # a broken transport must not take the match down with it
            return self._forfeit(seat, fallback, 0.0, Termination.DISCONNECTED, error)
        return _Wait(request, future, started, limit, started + limit)

    def _judge(self, wait: _Wait, notices: list[tuple[Seat, Rejection]]) -> DecisionRecord:
        """The record of one seat's answer: its own action if legal and in time, else a fallback
        (and a rejection to tell the seat, added to ``notices``)."""
        request, future = wait.request, wait.future
        seat, sequence, limit = request.seat, request.sequence, wait.limit
        fallback = request.legal_actions[0]
        client = self.setup.seats[seat]
        elapsed = (wait.ended if wait.ended is not None else self.clock.now()) - wait.started
        if future.cancelled():
            if not client.is_connected:
                # Its bot is away: the fallback plays, without a strike, until the grace period ends.
                return DecisionRecord(self.turn, seat, fallback, limit, Fault.DISCONNECTED, sequence)
            self.bank[seat] = 0.0
            return self._reject(
                seat, request, "", f"no answer within {limit:.3f} s", Fault.TIMEOUT, limit, Termination.TIMEOUT, notices
            )
        error = future.exception()
        if isinstance(error, SeatGoneError):
            return self._forfeit(seat, fallback, elapsed, Termination.DISCONNECTED, error)
        if error is not None:
            log.error("seat %d of match %s failed", seat, self.setup.match_id, exc_info=error)
            return self._forfeit(seat, fallback, elapsed, Termination.DISCONNECTED, error)
        answer = future.result()
        tc = self.setup.time_control
        self.bank[seat] = max(0.0, self.bank[seat] - max(0.0, elapsed - tc.decision_allowance))
        try:
            action = self.game.check_action(self.state, seat, self.game.parse_action(answer))
        except ActionError as failure:
            fault = Fault.ILLEGAL if isinstance(failure, IllegalActionError) else Fault.INVALID
            return self._reject(
                seat, request, answer, str(failure), fault, elapsed, Termination.ILLEGAL_ACTION, notices
            )
        self._judged[seat] = action  # the rules' round trip: parse_action(str(action)) == action
        return DecisionRecord(self.turn, seat, str(action), elapsed, None, sequence)

    def _reject(
        self,
        seat: Seat,
        request: DecisionRequest,
        answer: str,
        reason: str,
        fault: Fault,
        elapsed: float,
        cause: Termination,
        notices: list[tuple[Seat, Rejection]],
    ) -> DecisionRecord:
        """Strike the seat and note why and what was played instead, to tell it; forfeit it at the limit."""
        fallback = request.legal_actions[0]
        record = self.record
        record.strikes[seat] += 1
        strikes = record.strikes[seat]
        record.rejections.append(
            RejectionRecord(
                self.turn, seat, request.sequence, answer[:MAX_RECORDED_ANSWER], reason, fault, fallback, strikes
            )
        )
        limit = self.setup.time_control.strike_limit
        if strikes >= limit and seat not in record.forfeits:
            record.forfeits[seat] = cause
        notices.append(
            (seat, Rejection(self.setup.match_id, request.sequence, seat, fault, reason, fallback, strikes, limit))
        )
        return DecisionRecord(self.turn, seat, fallback, elapsed, fault, request.sequence)

    def _forfeit(
        self, seat: Seat, fallback: str, elapsed: float, cause: Termination, error: BaseException
    ) -> DecisionRecord:
        log.info("seat %d of match %s forfeited: %s", seat, self.setup.match_id, error)
        self.record.forfeits.setdefault(seat, cause)
        return DecisionRecord(self.turn, seat, fallback, elapsed, Fault.DISCONNECTED)

    async def _tell(self, seat: Seat, message: Any) -> None:
        """Deliver a notice to a seat; a failing seat cannot stop the match."""
        try:
            await self.clock.wait_for(message, self.setup.time_control.decision_allowance)
        except Exception:
            log.warning("could not notify seat %d of match %s", seat, self.setup.match_id, exc_info=True)

    async def _tell_all(self, make: Callable[[Seat], Any]) -> None:
        await asyncio.gather(*(self._tell(seat, make(seat)) for seat in range(len(self.setup.seats))))

    def _emit(self, kind: EventKind, actions: Mapping[Seat, str]) -> None:
        if self.observer is None:
            return
        before, self._emitted = self._emitted, self.state
        try:
            outcome = self.record.outcome
            self.observer(EventMaker(self.game, self.setup, kind, self.turn, self.state, before, actions, outcome))
        except Exception:
            log.exception("match observer failed for match %s", self.setup.match_id)
