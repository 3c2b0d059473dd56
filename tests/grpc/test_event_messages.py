"""Each spectator event is converted once, however many WatchMatch streams send it."""

from __future__ import annotations

from arena.catalogue import policy as get_policy
from arena.games import get_game
from arena.grpc.convert import EventMessages, event_to_proto
from arena.referee import MatchSetup, TimeControl, run_match
from arena.referee.match import MatchEvent
from tests.referee.doubles import ManualClock, PolicySeat


async def match_events() -> list[MatchEvent]:
    game = get_game("5211")
    seats = [PolicySeat(game, get_policy("5211", "random", i)) for i in range(3)]
    events: list[MatchEvent] = []
    setup = MatchSetup("m1", "5211", ["a", "b", "c"], seats, 7, time_control=TimeControl())
    await run_match(setup, ManualClock(), lambda make: events.append(make()))
    return events


async def test_an_event_is_converted_once_for_every_stream_and_as_the_contract_says() -> None:
    events = await match_events()
    shared = EventMessages()
    for event in events:
        first = shared.of(event)
        assert first == event_to_proto(event)
        assert all(shared.of(event) is first for _ in range(3))  # the next streams get the same messages


async def test_only_the_latest_events_are_kept() -> None:
    events = await match_events()
    shared = EventMessages(size=4)
    kept = [shared.of(event) for event in events[:10]]
    assert all(shared.of(event) is messages for event, messages in zip(events[6:10], kept[6:10], strict=True))
    again = shared.of(events[0])
    assert again is not kept[0] and again == kept[0]
