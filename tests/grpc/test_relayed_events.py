"""A spectator event relayed to another node reads back as the event the referee made, for every game."""

from __future__ import annotations

import pytest

from arena import catalogue
from arena.errors import StoredDataError
from arena.games import get_game
from arena.grpc.convert import event_from_fields, event_to_fields
from arena.referee import MatchSetup, TimeControl, run_match
from arena.referee.match import EventKind, MatchEvent
from tests.referee.doubles import ManualClock, PolicySeat


async def events_of(game_name: str, seed: int) -> list[MatchEvent]:
    game = get_game(game_name)
    players = catalogue.entry(game_name).default_players
    seats = [PolicySeat(game, catalogue.policy(game_name, "random", seed + i)) for i in range(players)]
    events: list[MatchEvent] = []
    setup = MatchSetup("m1", game_name, [f"b{i}" for i in range(players)], seats, seed, time_control=TimeControl())
    await run_match(setup, ManualClock(), lambda make: events.append(make()))
    return events


@pytest.mark.parametrize("game_name", catalogue.names())
async def test_every_event_of_a_match_reads_back_as_it_was(game_name: str) -> None:
    events = await events_of(game_name, 3)
    assert {e.kind for e in events} == set(EventKind)
    assert any(e.round_result is not None for e in events)
    for event in events:
        fields = event_to_fields(event)
        assert all(isinstance(value, str) for value in fields.values())
        assert event_from_fields(fields) == event


async def test_a_relayed_event_that_does_not_read_back_is_refused_saying_so() -> None:
    fields = event_to_fields((await events_of("5211", 1))[-1])
    for spoilt in ({"view": "not base64!"}, {"kind": "exploded"}, {"actions": "[1]"}, {"turn": "x"}):
        with pytest.raises(StoredDataError, match="a relayed spectator event does not read back"):
            event_from_fields(fields | spoilt)
    del fields["view"]
    with pytest.raises(StoredDataError, match="'view'"):
        event_from_fields(fields)
