"""The ``ActionRequest`` a seat gets for a state, as the referee sends it: for local play
(``arena play``) and for testing a bot against a recorded match (``arena_bot.testing``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from arena import catalogue
from arena.games.lookup import get_game
from arena.v1 import bot_pb2, match_pb2
from arena.wire.common import duration_to_proto
from arena.wire.record import iter_states, turns


def action_request(
    game: str,
    state: Any,
    seat: int,
    *,
    match_id: str = "local",
    sequence: int = 1,
    decision_seconds: float = 1.0,
    bank_seconds: float = 10.0,
) -> bot_pb2.ActionRequest:
    """What seat ``seat`` is sent when asked to act in ``state``: its observation, the legal
    actions in notation and the hint, as on the wire."""
    rules = get_game(game)
    return bot_pb2.ActionRequest(
        match_id=match_id,
        sequence=sequence,
        seat=seat,
        allowance=duration_to_proto(decision_seconds),
        time_bank=duration_to_proto(bank_seconds),
        observation=catalogue.observation_to_proto(rules.observe(state, seat)),
        legal_actions=[str(action) for action in rules.legal_actions(state, seat)],
        action_hint=rules.describe_action(state, seat),
    )


def recorded_requests(
    record: match_pb2.MatchRecord, seat: int | None = None
) -> Iterator[tuple[bot_pb2.ActionRequest, str]]:
    """Every decision of a finished match's record, as (the request its seat was sent, the action
    the record holds), in order; only ``seat``'s when given. The requests are rebuilt by replaying
    the record, so they hold exactly what the seat could see."""
    states = iter_states(record)
    state = next(states)
    sequence = 0
    for turn_index, (texts, after) in enumerate(zip(turns(record), states, strict=False)):
        for acting in sorted(texts):
            sequence += 1
            if seat is None or acting == seat:
                request = action_request(
                    record.game, state, acting, match_id=record.match_id or f"record-{turn_index}", sequence=sequence
                )
                yield request, texts[acting]
        state = after
