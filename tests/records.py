"""Checking a wire ``MatchRecord`` the way a bot author or auditor would: it replays, and a match
that ended by the rules replays to its recorded outcome."""

from __future__ import annotations

from arena.games.base import Termination
from arena.games.lookup import get_game
from arena.v1 import match_pb2
from arena.wire import record as wire_record
from arena.wire.common import outcome_from_proto


def check_record(record: match_pb2.MatchRecord) -> None:
    """Replay ``record`` (``WireError`` if it does not); for a match ended by the rules, assert the
    final state's outcome is the recorded one."""
    final = list(wire_record.iter_states(record))[-1]
    recorded = outcome_from_proto(record.outcome)
    if recorded.termination is Termination.NORMAL:
        assert get_game(record.game).outcome(final) == recorded, f"record of {record.match_id!r} replays otherwise"
