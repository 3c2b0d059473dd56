"""The referee, in-process, on a manual clock: normal play, every failure policy, replay."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from arena.catalogue import policy as get_policy
from arena.errors import SeatGoneError, TimeControlError
from arena.games import Termination, get_game
from arena.referee import DecisionRequest, MatchRecord, MatchSetup, Rejection, TimeControl, run_match
from arena.referee.match import Match, MatchEvent
from arena.referee.record import DecisionRecord, Fault, RejectionRecord, replay_states
from arena.store.match_index import MatchSummary
from tests.referee.doubles import ManualClock, PolicySeat, replay

GAME = get_game("5211")
TC = TimeControl(decision_allowance=1.0, time_bank=2.0, strike_limit=3, disconnect_grace=5.0)


def policy_seats(n: int, seed: int = 0) -> list[PolicySeat]:
    return [PolicySeat(GAME, get_policy("5211", "random", seed * 10 + i)) for i in range(n)]


class SilentSeat(PolicySeat):
    """Never answers."""

    async def decide(self, request: DecisionRequest) -> str:
        self.requests.append(request)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class ScriptedSeat(PolicySeat):
    """Answers with fixed text, or a legal action once the script runs out."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__(GAME, get_policy("5211", "random", 1))
        self.answers = answers

    async def decide(self, request: DecisionRequest) -> str:
        if self.answers:
            self.requests.append(request)
            return self.answers.pop(0)
        return await super().decide(request)


class GoneSeat(PolicySeat):
    """Answers a few times, then its bot is gone for good."""

    def __init__(self, answers_before_leaving: int) -> None:
        super().__init__(GAME, get_policy("5211", "random", 2))
        self.left = answers_before_leaving

    async def decide(self, request: DecisionRequest) -> str:
        if self.left == 0:
            raise SeatGoneError("connection lost past the grace period")
        self.left -= 1
        return await super().decide(request)


async def run_on_manual_clock(setup: MatchSetup, **kwargs: Any) -> MatchRecord:
    """Run a match, advancing the manual clock in steps while it waits: no real sleeping."""
    clock = ManualClock()
    task = asyncio.ensure_future(run_match(setup, clock, **kwargs))
    for _ in range(100_000):
        if task.done():
            break
        await clock.advance(0.5)
    return task.result()


def setup_for(seats: list[Any], match_id: str = "m1", seed: int = 7) -> MatchSetup:
    return MatchSetup(match_id, "5211", [f"bot{i}" for i in range(len(seats))], seats, seed, time_control=TC)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
async def test_a_match_between_policies_ends_normally_and_replays(players: int) -> None:
    seats = policy_seats(players, players)
    record = await run_on_manual_clock(setup_for(seats))
    assert record.outcome is not None
    assert record.termination is Termination.NORMAL
    assert not record.rejections
    assert record.strikes == [0] * players
    assert len(record.turns) == {2: 33, 3: 21, 4: 18, 5: 12}[players]
    assert replay(record) == record.outcome
    assert replay(MatchRecord.from_dict(record.to_dict())) == record.outcome
    for seat, client in enumerate(seats):
        assert client.started is not None and client.started.seat == seat
        assert client.ended is not None and client.ended.outcome == record.outcome
        # Each seat was asked only about itself, and only saw its own hand.
        assert all(r.seat == seat and r.observation.seat == seat for r in client.requests)


async def test_each_seat_numbers_its_own_requests_from_one() -> None:
    seats = policy_seats(3)
    await run_on_manual_clock(setup_for(seats))
    for seat in seats:
        numbers = [r.sequence for r in seat.requests]
        assert numbers == list(range(1, len(numbers) + 1))


async def test_a_silent_bot_times_out_strikes_and_forfeits_but_the_match_ends() -> None:
    seats: list[Any] = [SilentSeat(GAME, get_policy("5211", "random", 0)), *policy_seats(3)[1:]]
    record = await run_on_manual_clock(setup_for(seats))
    assert record.outcome is not None
    assert record.forfeits == {0: Termination.TIMEOUT}
    assert record.termination is Termination.TIMEOUT
    assert record.outcome.placings[0] == 3  # last of three
    assert record.outcome.forfeited == frozenset({0})
    assert record.strikes[0] == TC.strike_limit
    assert [r.reason.startswith("no answer within") for r in record.rejections] == [True] * 3
    # Only three requests were sent: after the third strike the fallback plays the seat.
    assert len(seats[0].requests) == 3
    assert len(seats[0].rejections) == 3
    assert all(d.fallback for step in record.turns for d in step if d.seat == 0)
    # The first timeout waits allowance + bank; the bank is then empty.
    assert record.rejections[0].reason == "no answer within 3.000 s"
    assert record.rejections[1].reason == "no answer within 1.000 s"
    assert replay(record) == record.outcome


async def test_illegal_and_unparseable_answers_are_rejected_with_reasons() -> None:
    scripted = ScriptedSeat(["Q9 garbage", "G1 G1 G1 G1 G1", "B6 B6"])
    seats: list[Any] = [scripted, *policy_seats(2)[1:]]
    record = await run_on_manual_clock(setup_for(seats))
    assert record.outcome is not None
    reasons = [r.reason for r in record.rejections]
    assert "invalid card 'Q9'" in reasons[0]
    assert "lay exactly 1 card, not 5" in reasons[1] or "lay exactly 2 cards, not 5" in reasons[1]
    assert "B6" in reasons[2]
    assert [r.answer for r in record.rejections] == ["Q9 garbage", "G1 G1 G1 G1 G1", "B6 B6"]
    assert record.forfeits == {0: Termination.ILLEGAL_ACTION}
    assert [r.strikes for r in scripted.rejections] == [1, 2, 3]
    assert all(r.fallback_action for r in scripted.rejections)
    assert record.outcome.placings[0] == 2
    assert replay(record) == record.outcome


async def test_one_strike_below_the_limit_keeps_the_seat_in_the_match() -> None:
    scripted = ScriptedSeat(["nonsense"])
    record = await run_on_manual_clock(setup_for([scripted, *policy_seats(2)[1:]]))
    assert record.strikes[0] == 1
    assert not record.forfeits
    assert record.termination is Termination.NORMAL


async def test_a_bot_gone_for_good_is_forfeited_and_the_others_results_stand() -> None:
    seats: list[Any] = [*policy_seats(4)[:3], GoneSeat(answers_before_leaving=5)]
    record = await run_on_manual_clock(setup_for(seats))
    assert record.forfeits == {3: Termination.DISCONNECTED}
    assert record.outcome is not None and record.outcome.placings[3] == 4
    assert sorted(record.outcome.placings[:3]) in ([1, 2, 3], [1, 1, 3], [1, 2, 2], [1, 1, 1])
    assert replay(record) == record.outcome


async def test_cancelling_a_match_records_it_as_aborted() -> None:
    seats: list[Any] = [SilentSeat(GAME, get_policy("5211", "random", 0)), *policy_seats(2)[1:]]
    clock = ManualClock()
    events: list[MatchEvent] = []
    task = asyncio.ensure_future(run_match(setup_for(seats), clock, lambda make: events.append(make())))
    await clock.advance(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert events[-1].kind == "ended"
    assert events[-1].outcome is not None
    assert events[-1].outcome.termination is Termination.ABORTED


async def test_spectator_events_hold_public_views_only() -> None:
    seats = policy_seats(3, 5)
    events: list[MatchEvent] = []
    record = await run_on_manual_clock(setup_for(seats), observer=lambda make: events.append(make()))
    assert [e.kind for e in events][:2] == ["started", "turn"]
    assert events[-1].kind == "ended" and events[-1].outcome == record.outcome
    steps = [e for e in events if e.kind == "turn"]
    assert len(steps) == len(record.turns)
    for event in steps:
        assert event.view.seat is None and event.view.hand == ()
        recorded = record.turns[event.turn - 1]
        assert dict(event.actions) == {d.seat: d.action for d in recorded}


async def test_an_event_made_late_is_the_event_made_at_once_and_each_round_result_comes_once() -> None:
    """A spectator event is made only when someone watches (``EventMaker``), maybe long after its
    turn: it is made from the states of its own time, and a round's result comes with the turn that
    ended the round, once."""
    seats = policy_seats(2, 3)
    at_once: list[MatchEvent] = []
    makers: list[Callable[[], MatchEvent]] = []

    def observe(make: Callable[[], MatchEvent]) -> None:
        makers.append(make)
        if len(makers) % 2:
            at_once.append(make())

    record = await run_on_manual_clock(setup_for(seats), observer=observe)
    late = [make() for make in makers]
    assert [late[i] for i in range(0, len(late), 2)] == at_once
    assert all(make() is event for make, event in zip(makers, late, strict=True))  # made once
    rounds = [e.round_result[0] for e in late if e.round_result is not None]
    assert rounds == sorted(set(rounds)) and len(rounds) >= 2
    turns = ({d.seat: d.action for d in turn} for turn in record.turns)
    states = list(replay_states(record.game, 2, record.seed, record.options, record.deck, turns))
    assert [event.view for event in late] == [GAME.public_view(states[event.turn]) for event in late]


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"decision_allowance": 0.0}, "decision_allowance=0.0"),
        ({"strike_limit": 0}, "strike_limit must be at least 1, not 0"),
    ],
)
def test_a_time_control_that_cannot_be_one_is_an_arena_error_naming_it(fields: dict[str, Any], named: str) -> None:
    with pytest.raises(TimeControlError, match=re.escape(named)):
        TimeControl(**fields)


def test_a_time_control_stored_under_the_old_names_reads_back_under_the_wire_names() -> None:
    stored = {"decision_seconds": 2.0, "bank_seconds": 5.0, "max_strikes": 4, "grace_seconds": 1.5}
    assert TimeControl.from_dict(stored) == TimeControl(
        decision_allowance=2.0, time_bank=5.0, strike_limit=4, disconnect_grace=1.5
    )
    assert TimeControl.from_dict(TimeControl(3.0, 0.0, 2, 0.5).to_dict()) == TimeControl(3.0, 0.0, 2, 0.5)


def test_a_record_stored_with_steps_reads_back_with_turns() -> None:
    """Records stored before "step" became "turn" and "players" became "bot_names" (the proto's words)
    still read, and write the new names."""
    record = MatchRecord(
        "m1",
        "5211",
        ("a", "b"),
        7,
        {},
        None,
        TimeControl(),
        [(DecisionRecord(0, 0, "G1", 0.1), DecisionRecord(0, 1, "B2", 0.2, Fault.TIMEOUT, 3))],
        [RejectionRecord(0, 1, 3, "", "no answer", Fault.TIMEOUT, "B2", 1)],
        strikes=[0, 1],
    )
    stored = record.to_dict()
    assert "turns" in stored and stored["turns"][0][0]["turn"] == 0 and stored["rejections"][0]["turn"] == 0
    assert stored["bot_names"] == ["a", "b"] and "players" not in stored
    renamed = {'"turns"': '"steps"', '"turn"': '"step"', '"bot_names"': '"players"'}
    text = json.dumps(stored)
    for new, old_name in renamed.items():
        text = text.replace(new, old_name)
    old = json.loads(text)
    assert "steps" in old and "turns" not in old and "players" in old
    assert MatchRecord.from_dict(old) == record == MatchRecord.from_dict(stored)
    summary = MatchSummary.of_record(record)
    assert MatchSummary.from_dict({**summary.to_dict(), "players": ["a", "b"]} | {"bot_names": ["a", "b"]}) == summary
    older = summary.to_dict()
    older["players"] = older.pop("bot_names")
    assert MatchSummary.from_dict(older) == summary


class SlowToHearSeat(ScriptedSeat):
    """Logs what it is sent, in order; a rejection takes it a while (manual time) to take in."""

    def __init__(self, answers: list[str], clock: ManualClock) -> None:
        super().__init__(answers)
        self.clock = clock
        self.log: list[tuple[str, int]] = []

    async def decide(self, request: DecisionRequest) -> str:
        self.log.append(("request", request.sequence))
        return await super().decide(request)

    async def rejected(self, rejection: Rejection) -> None:
        await self.clock.sleep(0.25)
        self.log.append(("rejected", rejection.sequence))
        await super().rejected(rejection)


async def test_a_rejection_reaches_the_seat_before_its_next_request() -> None:
    """The referee moves on from its seats' callbacks, without a coroutine per turn; a seat that takes
    a while to hear a rejection is still told it before it is asked again."""
    clock = ManualClock()
    scripted = SlowToHearSeat(["Q9 garbage", "B6 B6"], clock)
    task = asyncio.ensure_future(run_match(setup_for([scripted, *policy_seats(2)[1:]]), clock))
    for _ in range(100_000):
        if task.done():
            break
        await clock.advance(0.1)
    record = task.result()
    assert [r.sequence for r in record.rejections] == [1, 2]
    assert scripted.log[:5] == [("request", 1), ("rejected", 1), ("request", 2), ("rejected", 2), ("request", 3)]


async def test_a_match_whose_lease_runs_out_ends_aborted_before_its_next_turn() -> None:
    """A queued match's node that can no longer count on the match's lease (another node may take
    it over) stops it: no request after the lease is gone, every seat told, the record kept."""
    seats = policy_seats(2)
    turns_leased = 5
    clock = ManualClock()
    match = Match(setup_for(seats), clock, leased=lambda: len(match.record.turns) < turns_leased)
    task = asyncio.ensure_future(match.run())
    for _ in range(1000):
        if task.done():
            break
        await clock.advance(0.5)
    record = task.result()
    assert record.termination is Termination.ABORTED and len(record.turns) == turns_leased
    for client in seats:
        assert len(client.requests) == turns_leased
        assert client.ended is not None and client.ended.outcome.termination is Termination.ABORTED
