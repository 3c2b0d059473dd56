"""Replaying a ``MatchRecord``: the record holds enough to rebuild every state of its match exactly.

The initial state comes from (game, options, seed, deck, number of seats); then each turn's decisions
(one per seat to move, sharing a ``turn_index``) are applied together, in increasing ``turn_index``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from arena.errors import ArenaError, WireError
from arena.games.base import Termination
from arena.games.registry import get_game
from arena.v1 import match_pb2
from arena.wire.common import options_from_proto, outcome_from_proto


def turns(record: match_pb2.MatchRecord) -> list[dict[int, str]]:
    """The record's decisions grouped by turn, in order: one ``{seat: action text}`` per turn."""
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
    """Every state of the recorded match: the initial one, then one after each turn."""
    game = get_game(record.game)
    try:
        state = game.initial_state(
            len(record.bot_names),
            record.seed,
            options_from_proto(record.options),
            list(record.deck) or None,
        )
    except ArenaError as error:
        raise WireError(f"record of match {record.match_id!r} cannot be set up: {error}") from None
    yield state
    for index, texts in enumerate(turns(record)):
        expected = game.to_move(state)
        if set(texts) != expected:
            raise WireError(
                f"turn {index} of match {record.match_id!r} has decisions for seats {sorted(texts)}, "
                f"but seats {sorted(expected)} are to move"
            )
        try:
            actions = {seat: game.parse_action(text) for seat, text in texts.items()}
            state = game.apply(state, actions)
        except ArenaError as error:
            raise WireError(f"turn {index} of match {record.match_id!r} does not replay: {error}") from None
        yield state


def replay(record: match_pb2.MatchRecord) -> Any:
    """The last state of the recorded match, rebuilt from the record alone."""
    state = None
    for state in iter_states(record):  # noqa: B007 - only the last one is wanted
        pass
    return state


def check_record(record: match_pb2.MatchRecord) -> None:
    """Replay the record; if the match ended by the rules, check the result matches its outcome."""
    final = replay(record)
    recorded = outcome_from_proto(record.outcome)
    if recorded.termination is not Termination.NORMAL:
        return
    outcome = get_game(record.game).outcome(final)
    if outcome != recorded:
        raise WireError(f"record of match {record.match_id!r} replays to {outcome}, not {recorded}")
