"""Sequence numbers carry nothing but order within the seat's own requests.

An attack found in trials: with one counter per match, a seat's numbers stepped by the number of
seats, and by one fewer once an opponent had forfeited, which told the seat of the forfeit mid-match.
"""

from __future__ import annotations

from arena.referee.timecontrol import TimeControl
from arena.v1 import common_pb2
from tests.grpc.harness import Arena

FAST = TimeControl(decision_allowance=0.05, time_bank=0.1, strike_limit=1, disconnect_grace=0.3)


async def test_each_seat_numbers_its_own_requests_one_by_one_even_after_a_forfeit(arena: Arena) -> None:
    silent = await arena.connect("mute", chooser=lambda request: None)  # forfeits at its first timeout
    players = [await arena.connect(name) for name in ("s1", "s2", "s3")]
    match_id = await arena.start_match(["s1", "mute", "s2", "s3"], tc=FAST)
    end = await players[0].wait_ended(match_id, 30)
    assert list(end.outcome.forfeited_seats) == [1]
    assert end.outcome.termination == common_pb2.TERMINATION_TIMEOUT
    for bot in [*players, silent]:
        sequences = [r.sequence for r in bot.messages("action_request") if r.match_id == match_id]
        assert sequences == list(range(1, len(sequences) + 1)), sequences
    counts = {len([r for r in bot.messages("action_request") if r.match_id == match_id]) for bot in players}
    assert len(counts) == 1 and counts.pop() > 10  # every playing seat was asked at every step
