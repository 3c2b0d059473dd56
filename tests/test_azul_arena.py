"""Azul through the whole arena, over a real gRPC server: every bot gets exactly its seat's view, the
bag order and the grey-wall choices of a tiling in progress reach no bot and no watcher, a fixture
order is dealt as given, and the command line plays, prints and checks Azul."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from arena_bot import Bot, MatchInfo, Turn
from arena_bot.games import azul as azul_sdk

from arena import catalogue
from arena.errors import GameSetupError
from arena.games.azul import RULES, Phase, RoundResult, State, Take, Tiling
from arena.service.leagues import LeagueService
from arena.store.embedded import EmbeddedRedis
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import connect as connect_redis
from arena.v1 import bot_pb2, common_pb2, game_azul_pb2, league_pb2, league_pb2_grpc, match_pb2
from arena.wire import record as wire_record
from tests.grpc.harness import ADMIN_METADATA, Arena, eventually
from tests.grpc.rawbot import Chooser, RawBot, random_chooser

GAME = RULES
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


async def connect(arena: Arena, name: str, chooser: Chooser | None = None) -> RawBot:
    """A raw bot (the proto alone, no SDK) that plays Azul."""
    bot = RawBot(arena.address, await arena.register(name), chooser or random_chooser(len(name)), 16, ("azul",))
    arena.bots.append(bot.start())
    await asyncio.wait_for(bot.welcomed.wait(), 10)
    return bot


async def start(arena: Arena, names: list[str], seed: int, deck: list[str] | None = None, **options: str) -> str:
    request = match_pb2.StartMatchRequest(game="azul", bot_names=names, seed=seed, options=options, deck=deck or [])
    response = await arena.matches.StartMatch(request, metadata=ADMIN_METADATA)
    return response.match_id


def phase_of(request: bot_pb2.ActionRequest) -> Phase:
    return catalogue.observation_from_proto(request.observation).phase  # type: ignore[no-any-return]


async def test_bots_receive_exactly_their_seats_view_on_either_wall(arena: Arena) -> None:
    names = [f"azul{i}" for i in range(4)]
    bots = {name: await connect(arena, name) for name in names}
    matches = []
    for index, (players, wall) in enumerate([(2, "grey"), (3, "grey"), (4, "grey"), (4, "standard")]):
        seated = names[:players]
        matches.append((await start(arena, seated, seed=500 + index, wall=wall), seated))
    for match_id, seated in matches:
        for name in seated:
            await bots[name].wait_ended(match_id)
    checked = tilings = 0
    for match_id, seated in matches:
        record = await arena.record(match_id)
        states = list(wire_record.iter_states(record))
        for seat, name in enumerate(seated):
            requests = [r for r in bots[name].messages("action_request") if r.match_id == match_id]
            steps = [step for step, state in enumerate(states[:-1]) if seat in GAME.to_move(state)]
            assert len(requests) == len(steps)
            for step, request in zip(steps, requests, strict=True):
                assert {f.name for f, _ in request.ListFields()} <= REQUEST_FIELDS
                expected = catalogue.observation_to_proto(GAME.observe(states[step], seat))
                assert request.observation == expected, f"match {match_id} seat {seat} step {step}"
                assert list(request.legal_actions) == [str(a) for a in GAME.legal_actions(states[step], seat)]
                tilings += states[step].phase is Phase.TILING
                checked += 1
            started = [m for m in bots[name].messages("match_started") if m.match_id == match_id]
            assert len(started) == 1 and "seed" not in {f.name for f, _ in started[0].ListFields()}
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL and not record.rejections
    assert checked > 300 and tilings > 10


class Held:
    """A seat that plays at random, except that it keeps its first grey-wall tiling shared with another seat."""

    def __init__(self) -> None:
        self.request: asyncio.Future[bot_pb2.ActionRequest] = asyncio.get_running_loop().create_future()
        self._random = random_chooser(3)

    def __call__(self, request: bot_pb2.ActionRequest) -> str | None:
        view = catalogue.observation_from_proto(request.observation)
        if not self.request.done() and view.phase is Phase.TILING and len(view.to_move) > 1:
            self.request.set_result(request)
            return None
        return self._random(request)


def recording(sent: list[tuple[int, str]], seed: int) -> Chooser:
    """A random chooser that notes each (sequence, action) it sends."""
    choose = random_chooser(seed)

    def chooser(request: bot_pb2.ActionRequest) -> str:
        action = choose(request)
        sent.append((request.sequence, action))
        return action

    return chooser


async def test_grey_wall_choices_reach_nobody_until_every_choosing_seat_has_chosen(arena: Arena) -> None:
    held = Held()
    sent: list[tuple[int, str]] = []
    waiting = await connect(arena, "held", held)
    quick = await connect(arena, "quick", recording(sent, 5))
    match_id = await start(arena, ["held", "quick"], seed=21, wall="grey")
    events: list[match_pb2.WatchMatchResponse] = []

    async def watch() -> None:
        async for event in arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id), timeout=60):
            events.append(event)

    watcher = asyncio.ensure_future(watch())
    request = await asyncio.wait_for(held.request, 30)

    def quick_latest() -> bot_pb2.ActionRequest:
        latest: bot_pb2.ActionRequest = [r for r in quick.messages("action_request") if r.match_id == match_id][-1]
        return latest

    await eventually(lambda: phase_of(quick_latest()) is Phase.TILING)  # its request may arrive after held's
    quick_request = quick_latest()
    await eventually(lambda: sent and sent[-1][0] == quick_request.sequence)
    choice = sent[-1][1]
    await asyncio.sleep(0.2)  # the server has the other seat's choice by now; nothing may show it yet

    # Both seats were asked about the same state, and the held seat was told nothing since.
    assert request.observation.game_azul.round == quick_request.observation.game_azul.round
    assert list(request.observation.game_azul.to_move) == [0, 1]
    asked = next(i for i, m in enumerate(waiting.received) if m.action_request.sequence == request.sequence)
    assert {m.WhichOneof("kind") for m in waiting.received[asked + 1 :]} <= {"keep_alive"}
    # Watchers: no reveal of this turn; their latest view is the public view of the state both seats were asked about.
    reveals = [e.turn_revealed.turn_index for e in events if e.WhichOneof("event") == "turn_revealed"]
    views = [e.view.game_azul for e in events if e.WhichOneof("event") == "view"]
    public = game_azul_pb2.AzulObservation()
    public.CopyFrom(request.observation.game_azul)
    public.ClearField("seat")
    assert views[-1] == public and public.phase == public.PHASE_TILING
    # The match list and the record of the running match show nothing of it.
    listing = await arena.matches.ListMatches(match_pb2.ListMatchesRequest(game="azul"))
    assert [m.match_id for m in listing.matches] == [match_id]
    assert choice.encode() not in listing.SerializeToString()
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await arena.matches.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id))
    assert refused.value.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND)
    assert choice not in (refused.value.details() or "")

    # An illegal tiling from the held seat: its rejection says why, and nothing of the other's choice.
    waiting.send_action(match_id, request.sequence, "1:1 2:2 3:3 4:4 5:5", request.seat)
    await eventually(lambda: waiting.messages("action_rejected"))
    rejection = waiting.messages("action_rejected")[0]
    assert "give exactly one column for each full line" in rejection.reason
    assert choice not in rejection.reason and rejection.fallback_action == request.legal_actions[0]
    await asyncio.wait_for(watcher, 60)
    # The watcher may have joined after the first turns: the held turn is the first one after those it saw.
    held_turn = max(reveals, default=-1) + 1
    reveal = next(
        e.turn_revealed
        for e in events
        if e.WhichOneof("event") == "turn_revealed" and e.turn_revealed.turn_index >= held_turn
    )
    assert list(reveal.actions) == [request.legal_actions[0], choice]
    assert events[-1].WhichOneof("event") == "outcome"
    rounds = [e.round_scored for e in events if e.WhichOneof("event") == "round_scored"]
    assert rounds and all(r.WhichOneof("game") == "game_azul" for r in rounds)
    results = [catalogue.round_result_from_proto(r) for r in rounds]
    assert all(isinstance(result, RoundResult) for result in results)
    assert [r.round for r in rounds] == [result.round for result in results] == list(range(1, len(rounds) + 1))
    assert str(next(r for r in results if r.tilings[0] is not None and r.tilings[1] is not None).tilings[1]) == choice


def bag(order: str) -> list[str]:
    """The 100 tiles with ``order`` first and the rest in B Y R K W order."""
    rest = {colour: 20 - order.count(colour) for colour in "BYRKW"}
    return [*order, *(colour for colour in "BYRKW" for _ in range(rest[colour]))]


async def test_an_explicit_bag_and_first_seat_are_dealt_as_given(arena: Arena) -> None:
    for name in ("x", "y"):
        await connect(arena, name, lambda request: request.legal_actions[0])
    deck = bag("BBYRKKKW")
    match_id = await start(arena, ["x", "y"], seed=1, deck=deck, first="1", max_rounds="2")
    await arena.bots[1].wait_ended(match_id)
    first = arena.bots[1].messages("action_request")[0].observation.game_azul
    assert [list(f.tiles) for f in first.factories[:2]] == [list("BBYR"), list("KKKW")]
    assert first.starter == 1 and list(first.to_move) == [1]
    assert not arena.bots[0].messages("action_request")[0].observation.game_azul.HasField("marker_holder")
    record = await arena.record(match_id)
    assert list(record.deck) == deck
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL


def first_legal(state: State) -> dict[int, Any]:
    return {seat: GAME.legal_actions(state, seat)[0] for seat in GAME.to_move(state)}


def fixture_with_refills(players: int, order: list[str], options: dict[str, Any]) -> list[str]:
    """A deck for ``order`` with one refill entry (the lid, reverse-sorted) for each refill the game needs
    when every seat plays its first legal action."""
    entries: list[list[str]] = []
    while True:
        deck = order + [text for entry in entries for text in ("/", *entry)]
        state = GAME.initial_state(players, 0, options, deck)
        try:
            while GAME.to_move(state):
                before = state
                state = GAME.apply(state, first_legal(state))
            return deck
        except GameSetupError as error:
            if "no order for refill" not in str(error):
                raise
        after = GAME.apply(before._replace(refills=None), first_legal(before))
        # At the refill, every tile is on a wall, on a pattern line, still in the bag or in the lid.
        lid = Counter("BYRKW" * 20)
        lid.subtract(t.name for b in after.boards for row in b.wall for t in row if t is not None)
        lid.subtract(t.name for b in after.boards for line in b.lines for t in line)
        lid.subtract(t.name for t in before.bag)
        entries.append(sorted(lid.elements(), reverse=True))


async def test_a_fixture_with_refill_orders_is_dealt_as_given_to_the_end(arena: Arena) -> None:
    names = ["f0", "f1", "f2", "f3"]
    bots = [await connect(arena, name, lambda request: request.legal_actions[0]) for name in names]
    deck = fixture_with_refills(4, bag("RRKY"), {"first": 2})
    assert deck.count("/") >= 1
    match_id = await start(arena, names, seed=3, deck=deck, first="2")
    for bot in bots:
        await bot.wait_ended(match_id, 30)
    record = await arena.record(match_id)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL and list(record.deck) == deck
    states = list(wire_record.iter_states(record))
    assert states[-1].refill_count == deck.count("/") and states[-1].refills == ()
    refilled = next(i for i, state in enumerate(states) if state.refill_count)
    for seat in GAME.to_move(states[refilled]):
        request = [r for r in bots[seat].messages("action_request") if r.match_id == match_id]
        asked = [i for i, state in enumerate(states[:-1]) if seat in GAME.to_move(state)].index(refilled)
        assert request[asked].observation == catalogue.observation_to_proto(GAME.observe(states[refilled], seat))


async def test_a_bad_fixture_order_is_refused_naming_it_and_starts_nothing(arena: Arena) -> None:
    await connect(arena, "x")
    await connect(arena, "y")
    for deck, words in ((bag("")[:99], "100 tiles"), (["Q", *bag("")[1:]], "'Q' at position 0")):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await start(arena, ["x", "y"], seed=1, deck=deck)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert words in (refused.value.details() or "")
    listing = await arena.matches.ListMatches(match_pb2.ListMatchesRequest(game="azul"))
    assert not listing.matches


async def test_a_fixture_without_the_refill_the_game_needs_ends_the_match_aborted_and_recorded(arena: Arena) -> None:
    """Four players draw 36 tiles a round: round 3 needs a refill that a bag-only deck does not give."""
    names = ["p0", "p1", "p2", "p3"]
    bots = [await connect(arena, name) for name in names]
    match_id = await start(arena, names, seed=1, deck=bag(""))
    ended = [await bot.wait_ended(match_id, 30) for bot in bots]
    assert all(end.outcome.termination == common_pb2.TERMINATION_ABORTED for end in ended)
    record = await arena.record(match_id)
    assert record.outcome.termination == common_pb2.TERMINATION_ABORTED
    assert len(record.decisions) > 10, "the rounds before the refill were played"
    events = [e async for e in arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id), timeout=10)]
    assert events[-1].WhichOneof("event") == "outcome"


@pytest.fixture
async def leagues(arena: Arena, redis_server: EmbeddedRedis) -> AsyncIterator[LeagueService]:
    """The arena fixture's node with a league service on the test's redis-server (nothing plays)."""
    client = connect_redis(redis_server.url)
    arena.node.leagues = LeagueService(LeagueStore(client), MatchQueue(client), arena.node.clock)
    try:
        yield arena.node.leagues
    finally:
        await client.aclose()


async def test_a_league_with_a_bad_rules_option_is_refused_naming_it_and_nothing_is_stored(
    arena: Arena, leagues: LeagueService
) -> None:
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    spec = league_pb2.LeagueSpec(game="azul", players_per_match=3, bot_names=["a", "b", "c"], options={"wall": "blue"})
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.CreateLeague(league_pb2.CreateLeagueRequest(spec=spec), metadata=ADMIN_METADATA)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "option wall must be 'standard' or 'grey', not 'blue'" in (raised.value.details() or "")
    assert await leagues.store.league_ids(10) == []
    spec.options["wall"] = "grey"
    created = await stub.CreateLeague(league_pb2.CreateLeagueRequest(spec=spec), metadata=ADMIN_METADATA)
    assert created.league.progress.total == 1 and dict(created.league.spec.options) == {"wall": '"grey"'}


class TypedAzul(Bot):
    """A Python-SDK bot that reads its turns through ``arena_bot.games.azul``: a tiling if it must, else the
    take that puts the most tiles on a pattern line."""

    games = ("azul",)
    answer_on_error = False  # a failed assertion in act leaves the deadline to pass: a rejection in the record

    def __init__(self) -> None:
        self.phases: list[Phase] = []

    def act(self, turn: Turn) -> str:
        view = azul_sdk.observation(turn)
        actions = azul_sdk.legal_actions(turn)
        assert [str(a) for a in actions] == list(turn.legal_actions)
        assert view.seat == turn.seat and turn.seat in view.to_move
        self.phases.append(view.phase)
        if view.phase is Phase.TILING:
            assert all(isinstance(a, Tiling) for a in actions)
            return str(actions[-1])
        takes = [a for a in actions if isinstance(a, Take)]
        assert len(takes) == len(actions)
        return str(takes[0])


async def test_a_python_sdk_bot_plays_a_grey_wall_match_through_the_azul_helpers(arena: Arena) -> None:
    typed = TypedAzul()
    runner = asyncio.ensure_future(typed.run_async(arena.address, await arena.register("typed"), max_matches=1))
    await connect(arena, "other")
    await eventually(lambda: "typed" in {s.name for s in arena.node.hub.connected()})
    match_id = await start(arena, ["typed", "other"], seed=9, wall="grey")
    await asyncio.wait_for(runner, 60)
    record = await arena.record(match_id)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL and not record.rejections
    assert Phase.TILING in typed.phases and Phase.OFFER in typed.phases
    started = bot_pb2.MatchStarted(match_id="m", game="5211", seat=0, bot_names=["a", "b"])
    with pytest.raises(ValueError, match="plays '5211', not azul"):
        azul_sdk.observation(Turn.from_proto(bot_pb2.ActionRequest(match_id="m"), MatchInfo.from_proto(started)))


# -- the command line ---------------------------------------------------------------------------------


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=60, check=False
    )


async def test_arena_bot_processes_play_a_grey_wall_match_and_watchers_see_each_round(arena: Arena) -> None:
    lineup = {"hero": "heuristic", "dice": "random"}
    processes = []
    try:
        for name, kind in lineup.items():
            env = {**os.environ, "ARENA_BOT_TOKEN": await arena.register(name)}
            command = ["bot", kind, "--game", "azul", "--server", arena.address]
            processes.append(
                subprocess.Popen(  # noqa: ASYNC220 - started once, stopped in finally
                    [sys.executable, "-m", "arena.cli", *command], env=env, stderr=subprocess.PIPE
                )
            )
        await eventually(lambda: set(lineup) <= {s.name for s in arena.node.hub.connected()}, 60)
        match_id = await start(arena, list(lineup), seed=7, wall="grey")
        outcome = None
        async for event in arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id), timeout=120):
            if event.WhichOneof("event") == "outcome":
                outcome = event.outcome
        assert outcome is not None and outcome.termination == common_pb2.TERMINATION_NORMAL
        record = await arena.record(match_id)
        assert record.game == "azul" and not record.rejections
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            await asyncio.to_thread(process.communicate, timeout=10)


def test_the_azul_demo_prints_factories_boards_and_walls_readably() -> None:
    done = _arena("demo", "--game", "azul", "--seed", "3")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("seat 0: heuristic, seat 1: heuristic, seat 2: random, seat 3: random; seed 3\n")
    assert "Azul, 4 players, standard wall" in out
    assert "B blue, Y yellow, R red, K black, W white" in out
    for words in (
        "Round 1: seat",
        "  factories  0:",
        "  centre     S",
        " | b y r k w",
        " takes ",
        "wall-tiling of round 1",
    ):
        assert words in out, words
    assert "Final boards" in out and "Winner(s): " in out


def test_the_grey_wall_demo_prints_each_seats_tiling_and_a_bad_option_is_one_line() -> None:
    done = _arena("demo", "--game", "azul", "--option", "wall=grey", "--seed", "2")
    assert done.returncode == 0, done.stderr
    assert "Azul, 4 players, grey wall" in done.stdout and " tiles 1:" in done.stdout
    assert " | . . . . ." in done.stdout, "an empty grey wall row"
    bad = _arena("demo", "--game", "azul", "--option", "wall=blue")
    assert bad.returncode == 2 and not bad.stdout
    assert bad.stderr.strip() == "arena demo: option wall must be 'standard' or 'grey', not 'blue'"


def test_a_rules_option_that_is_not_key_value_is_a_usage_error_naming_it() -> None:
    done = _arena("league", "create", "a", "b", "--game", "azul", "--option", "grey")
    assert done.returncode == 2
    assert "argument --option: 'grey' is not KEY=VALUE (e.g. wall=grey)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
