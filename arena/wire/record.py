"""Replaying a wire ``MatchRecord``: the record holds enough to rebuild every state of its match exactly.

The initial state comes from (game, options, seed, deck, number of seats); then each turn's decisions
(one per seat to move, sharing a ``turn_index``) are applied together, in increasing ``turn_index``,
by the referee's one replay (:func:`arena.referee.record.replay_states`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from arena.errors import ArenaError, WireError
from arena.referee.record import replay_states
from arena.v1 import match_pb2
from arena.wire.common import options_from_proto


def turns(record: match_pb2.MatchRecord) -> list[dict[int, str]]:
    """The record's decisions grouped by turn, in order: one ``{seat: action text}`` per turn.

    Raises ``WireError`` if the decisions are out of ``turn_index`` order or a seat decides twice in a turn.
    """
    result: list[dict[int, str]] = []
    last_index = -1
    for decision in record.decisions:
        if decision.turn_index < last_index:
            raise WireError(f"decisions out of order: turn {decision.turn_index} after turn {last_index}")
        if decision.turn_index > last_index:
            result.append({})
            last_index = decision.turn_index
        if decision.seat in result[-1]:
            raise WireError(f"two decisions for seat {decision.seat} in turn {decision.turn_index}")
        result[-1][decision.seat] = decision.action
    return result


def iter_states(record: match_pb2.MatchRecord) -> Iterator[Any]:
    """Every state of the recorded match: the initial one, then one after each turn.

    Raises ``WireError`` naming the match if the record does not set up or does not replay.
    """
    states = replay_states(
        record.game,
        len(record.bot_names),
        record.seed,
        options_from_proto(record.options),
        list(record.deck) or None,
        turns(record),
    )
    try:
        yield from states
    except ArenaError as error:
        raise WireError(f"record of match {record.match_id!r} does not replay: {error}") from None
