"""Eight clocks at once: an 8-player FOOL! match on the referee's manual clock, where two seats never
answer and one thinks too long, and the time control (allowance, bank, strikes, fallbacks, forfeits)
applies to each seat alone."""

from __future__ import annotations

import asyncio
from typing import Any

from arena.catalogue import policy as get_policy
from arena.games import Termination, get_game
from arena.referee import DecisionRequest, MatchSetup, TimeControl, run_match
from tests.referee.doubles import ManualClock, PolicySeat, replay

GAME = get_game("fool")
TC = TimeControl(decision_allowance=1.0, time_bank=2.0, strike_limit=3, disconnect_grace=5.0)


class SilentSeat(PolicySeat):
    """Never answers."""

    async def decide(self, request: DecisionRequest) -> str:
        self.requests.append(request)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class SlowSeat(PolicySeat):
    """Thinks ``delays[i]`` seconds (on the match's clock) before its i-th answer, then answers at once."""

    def __init__(self, clock: ManualClock, delays: list[float], seed: int) -> None:
        super().__init__(GAME, get_policy("fool", "random", seed))
        self.clock = clock
        self.delays = delays

    async def decide(self, request: DecisionRequest) -> str:
        if self.delays:
            await self.clock.sleep(self.delays.pop(0))
        return await super().decide(request)


async def test_eight_seats_keep_eight_clocks_and_only_the_slow_and_silent_are_struck() -> None:
    clock = ManualClock()
    seats: list[Any] = [PolicySeat(GAME, get_policy("fool", "random", seat)) for seat in range(8)]
    seats[0] = SilentSeat(GAME, get_policy("fool", "random", 0))
    seats[5] = SilentSeat(GAME, get_policy("fool", "random", 5))
    # 2.5 s: within allowance + bank (3 s), leaving 0.5 s of bank; 2.5 s again: past 1.5 s, a strike.
    seats[3] = SlowSeat(clock, [2.5, 2.5], 3)
    setup = MatchSetup("f8", "fool", [f"bot{s}" for s in range(8)], seats, seed=8, time_control=TC)
    task = asyncio.ensure_future(run_match(setup, clock))
    for _ in range(100_000):
        if task.done():
            break
        await clock.advance(0.5)
    record = task.result()

    assert record.outcome is not None
    assert record.strikes == [3, 0, 0, 1, 0, 3, 0, 0]
    assert record.forfeits == {0: Termination.TIMEOUT, 5: Termination.TIMEOUT}
    assert record.termination is Termination.TIMEOUT
    assert record.outcome.forfeited == frozenset({0, 5})
    # The forfeited seats are placed after every other seat.
    assert max(record.outcome.placings[s] for s in (1, 2, 3, 4, 6, 7)) <= 6
    assert min(record.outcome.placings[s] for s in (0, 5)) >= 7
    by_seat = {seat: [r for r in record.rejections if r.seat == seat] for seat in range(8)}
    for seat in (0, 5):
        # Each silent seat: allowance + its own full bank, then the allowance alone, then forfeited.
        assert [r.reason for r in by_seat[seat]] == [
            "no answer within 3.000 s",
            "no answer within 1.000 s",
            "no answer within 1.000 s",
        ]
        assert len(seats[seat].requests) == 3
        later = [d for step in record.turns for d in step if d.seat == seat][3:]
        assert later and all(d.fallback == "forfeited" and d.sequence == 0 for d in later)
    # The slow seat: its first answer used 1.5 s of its own bank; its second outlived what was left.
    assert [r.reason for r in by_seat[3]] == ["no answer within 1.500 s"]
    mine = [d for step in record.turns for d in step if d.seat == 3]
    assert mine[0].fallback is None and mine[1].fallback == "timeout"
    assert all(d.fallback is None for d in mine[2:])
    # Everyone else answered every request in time, whatever the others' clocks did.
    for seat in (1, 2, 4, 6, 7):
        assert not by_seat[seat]
        assert all(d.fallback is None for step in record.turns for d in step if d.seat == seat)
    assert replay(record) == record.outcome
