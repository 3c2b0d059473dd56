"""No leak: every message a bot or a spectator receives holds only what its seat may know.

Each ActionRequest's observation must equal, field for field, the engine's observation of that seat
in the true state rebuilt from the match record; nothing else in any message may carry game state.
"""

from __future__ import annotations

import asyncio
import random

from arena.catalogue import observation_to_proto
from arena.games import get_game
from arena.v1 import bot_pb2, match_pb2
from arena.wire import record as wire_record
from tests.grpc.harness import Arena
from tests.grpc.rawbot import RawBot

GAME = get_game("5211")
REQUEST_FIELDS = {
    "match_id",
    "sequence",
    "seat",
    "deadline",
    "allowance",
    "time_bank",
    "observation",
    "legal_actions",
    "action_hint",
}


async def test_bots_receive_exactly_their_seats_view_over_many_matches(arena: Arena) -> None:
    names = [f"seat{i}" for i in range(5)]
    bots = {name: await arena.connect(name, capacity=64) for name in names}
    rng = random.Random(11)
    matches: list[tuple[str, list[str]]] = []
    for index in range(24):
        players = rng.choice([2, 3, 4, 5])
        seated = rng.sample(names, players)
        matches.append((await arena.start_match(seated, seed=1000 + index), seated))
    for match_id, seated in matches:
        for name in seated:
            await bots[name].wait_ended(match_id)
    checked = 0
    for match_id, seated in matches:
        record = await arena.record(match_id)
        states = list(wire_record.iter_states(record))
        for seat, name in enumerate(seated):
            bot: RawBot = bots[name]
            requests = [r for r in bot.messages("action_request") if r.match_id == match_id]
            assert len(requests) == len(states) - 1
            for step, request in enumerate(requests):
                assert {f.name for f, _ in request.ListFields()} <= REQUEST_FIELDS
                expected = observation_to_proto(GAME.observe(states[step], seat))
                assert request.observation == expected, f"match {match_id} seat {seat} step {step}"
                assert list(request.legal_actions) == [str(a) for a in GAME.legal_actions(states[step], seat)]
                checked += 1
            started = [m for m in bot.messages("match_started") if m.match_id == match_id]
            assert len(started) == 1 and started[0].seat == seat
            assert "seed" not in {f.name for f, _ in started[0].ListFields()}
    assert checked > 300


async def test_spectators_see_public_views_and_choices_only_after_the_reveal(arena: Arena) -> None:
    pending: asyncio.Queue[bot_pb2.ActionRequest] = asyncio.Queue()
    held = await arena.connect("w0", chooser=pending.put_nowait)  # answers by hand
    await arena.connect("w1")
    await arena.connect("w2")
    match_id = await arena.start_match(["w0", "w1", "w2"], seed=77)
    events: list[match_pb2.WatchMatchResponse] = []

    async def watch() -> None:
        async for event in arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id)):
            events.append(event)

    watcher = asyncio.ensure_future(watch())
    for step in range(21):
        request = await asyncio.wait_for(pending.get(), 10)
        await asyncio.sleep(0.02)  # the other seats have answered by now; nothing may be revealed yet
        revealed = [e.turn_revealed.turn_index for e in events if e.WhichOneof("event") == "turn_revealed"]
        assert step not in revealed
        held.send_action(request.match_id, request.sequence, request.legal_actions[0])
    await asyncio.wait_for(watcher, 10)
    kinds = [e.WhichOneof("event") for e in events]
    assert kinds[-1] == "outcome"
    record = await arena.record(match_id)
    states = list(wire_record.iter_states(record))
    views = [e.view for e in events if e.WhichOneof("event") == "view"]
    assert len(views) >= 21
    for view in views:
        payload = view.game_5211
        assert not payload.HasField("seat")
        assert list(payload.hand_cards) == []
    public = {observation_to_proto(GAME.public_view(s)).SerializeToString() for s in states}
    assert all(v.SerializeToString() in public for v in views)
    reveals = [e.turn_revealed for e in events if e.WhichOneof("event") == "turn_revealed"]
    turns = wire_record.turns(record)
    assert [r.turn_index for r in reveals] == list(range(21))
    for reveal in reveals:
        assert list(reveal.actions) == [turns[reveal.turn_index][s] for s in sorted(turns[reveal.turn_index])]
    rounds = [e.round_scored for e in events if e.WhichOneof("event") == "round_scored"]
    assert [r.round for r in rounds] == list(range(1, 8))
