"""The ladder service and its matchmaker (arena.service.ladders) on a real redis-server: what it
refuses changes nothing and names the value, a retried create makes one ladder, pause and resume,
and the matchmaker fills the free slots of the bots online, never those of a paused ladder."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis

from arena.errors import GameSetupError, LadderNotFoundError, LadderSpecError, UnknownGameError
from arena.league.result import StoredResult
from arena.referee.timecontrol import TimeControl
from arena.service.ladders import LadderService, LadderState, Matchmaker, paced
from arena.store.ladders import LadderStore
from arena.store.leagues import QUEUE_STREAM, LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.relay import BotDirectory
from tests.commandstats import commands_run
from tests.referee.doubles import ManualClock

CROWD = 3000
"""Bots online for other games than the ladders': a pass must not read them one by one."""


def service(client: aioredis.Redis, clock: ManualClock | None = None) -> LadderService:
    return LadderService(LadderStore(client), MatchQueue(client), clock or ManualClock())


async def nothing_stored(client: aioredis.Redis) -> bool:
    return await client.zcard("arena:ladders") == 0 and await client.exists(QUEUE_STREAM) == 0


async def test_a_ladder_is_created_running_with_its_settings(client: aioredis.Redis) -> None:
    clock = ManualClock()
    ladders = service(client, clock)
    info = await ladders.create("azul", 3, name="n" * 300, duplicate=True, options={})
    assert info.ladder_id.startswith("LD") and len(info.ladder_id) == 10
    assert (info.game, info.players, info.duplicate, info.name) == ("azul", 3, True, "n" * 100)
    assert (info.state, info.done, info.open, info.created_at) == (LadderState.RUNNING, 0, 0, 1000.0)
    assert info.time_control == TimeControl()
    assert await ladders.get(info.ladder_id) == info
    await clock.advance(1)
    plain = await ladders.create("5211", 0, options={"long_game": True})
    assert (plain.players, plain.name, plain.options) == (2, plain.ladder_id, {"long_game": True})
    assert [i.ladder_id for i in await ladders.recent()] == [plain.ladder_id, info.ladder_id]


async def test_a_retried_create_request_returns_the_ladder_it_made(client: aioredis.Redis) -> None:
    ladders = service(client)
    first = await ladders.create("5211", 2, request_id="req-1")
    assert await ladders.create("5211", 4, request_id="req-1") == first
    assert await ladders.create("5211", 2, request_id="req-2") != first
    with pytest.raises(LadderSpecError, match=r"^a request_id is at most 128 characters, not 129$"):
        await ladders.create("5211", 2, request_id="r" * 129)
    assert len(await ladders.recent()) == 2


@pytest.mark.parametrize(
    ("game", "players", "options", "error", "names"),
    [
        ("chess", 2, {}, UnknownGameError, "chess"),
        ("5211", 9, {}, LadderSpecError, "5211 is for 2 to 5 players, not 9"),
        ("azul", 1, {}, LadderSpecError, "azul is for 2 to 4 players, not 1"),
        ("5211", 2, {"jokers": 2}, GameSetupError, "unknown 5211 option.*jokers"),
    ],
)
async def test_a_refused_ladder_names_the_value_and_stores_nothing(
    client: aioredis.Redis, game: str, players: int, options: dict[str, Any], error: type[Exception], names: str
) -> None:
    with pytest.raises(error, match=names):
        await service(client).create(game, players, options=options)
    assert await nothing_stored(client)


async def test_an_unknown_ladder_or_a_league_is_not_found_and_named(client: aioredis.Redis) -> None:
    ladders = service(client)
    await LeagueStore(client).create("lg", {"league_id": "lg", "game": "5211"}, [], b"s")
    for unknown in ("nope", "lg"):
        with pytest.raises(LadderNotFoundError, match=f"no ladder '{unknown}'"):
            await ladders.get(unknown)
    with pytest.raises(LadderNotFoundError):
        await ladders.pause("nope")
    with pytest.raises(LadderNotFoundError):
        await ladders.history("nope", "ann")
    assert await client.exists("arena:ladder:nope:paused") == 0


async def test_pause_and_resume(client: aioredis.Redis) -> None:
    ladders = service(client)
    ladder_id = (await ladders.create("5211", 2)).ladder_id
    assert (await ladders.pause(ladder_id)).state is LadderState.PAUSED
    assert (await ladders.get(ladder_id)).state is LadderState.PAUSED
    assert (await ladders.pause(ladder_id, paused=False)).state is LadderState.RUNNING


async def online(client: aioredis.Redis, bots: dict[str, int], game: str = "5211") -> None:
    await BotDirectory(client, "node-a").here(bots, {bot: [game] for bot in bots})


async def test_the_matchmaker_fills_the_free_slots_of_the_bots_online(client: aioredis.Redis) -> None:
    ladders = service(client)
    maker = Matchmaker(ladders, "node-a", seed=1)
    assert await maker.one_pass() == -1  # no ladder
    ladder_id = (await ladders.create("5211", 2)).ladder_id
    await online(client, {"ann": 1, "bob": 1, "cid": 1})
    await online(client, {"dan": 1}, game="azul")  # plays another game
    assert await LadderStore(client).hold_matchmaking("node-a", 30)
    assert await maker.one_pass() == 1  # one table of two: the third bot of 5211 waits
    info = await ladders.get(ladder_id)
    assert (info.done, info.open) == (0, 1)
    [table] = await LadderStore(client).open_tables([ladder_id])
    assert set(table) < {"ann", "bob", "cid"}
    assert await maker.one_pass() == 0  # every free slot is taken
    await ladders.pause(ladder_id)
    await ladders.retire("cid")
    assert await maker.one_pass() == -1  # no ladder running


async def test_a_pass_reads_the_bots_of_its_ladders_games_not_every_bot_online(client: aioredis.Redis) -> None:
    """Found measuring the matchmaker: each pass (every half second while a ladder runs) read three
    keys of every bot online in the arena, whatever it plays: with 10,000 bots online one pass cost
    its node about a second of CPU."""
    ladders = service(client)
    await ladders.create("5211", 2)
    await online(client, {"ann": 1, "bob": 1})
    await online(client, {f"crowd{i}": 1 for i in range(CROWD)}, game="azul")
    assert await LadderStore(client).hold_matchmaking("node-a", 30)
    await client.config_resetstat()
    assert await Matchmaker(ladders, "node-a", seed=1).one_pass() == 1
    used = await commands_run(client)
    assert used < 100, f"one pass ran {used} commands with {CROWD} bots of another game online"


@pytest.mark.parametrize(
    ("length", "due", "earliest"),
    [
        (0.01, 100.5, 100.04),  # a quick pass: every half second, or 40 ms after a match ends
        (0.2, 100.8, 100.8),  # a long one: at most a quarter of the node's time
        (1.0, 101.5, 101.5),  # and the lease (3 s) renewed within half its length
    ],
)
def test_passes_take_at_most_their_share_of_the_node(length: float, due: float, earliest: float) -> None:
    assert paced(100.0, 100.0 + length, 0.5, 3.0) == pytest.approx((due, earliest))


async def test_a_node_without_the_lease_schedules_nothing(client: aioredis.Redis) -> None:
    ladders = service(client)
    ladder_id = (await ladders.create("5211", 2)).ladder_id
    await online(client, {"ann": 2, "bob": 2})
    assert await LadderStore(client).hold_matchmaking("node-b", 30)
    assert await Matchmaker(ladders, "node-a", seed=1).one_pass() == 0
    assert (await ladders.get(ladder_id)).open == 0


async def test_standings_and_history_follow_the_stored_results(client: aioredis.Redis) -> None:
    ladders = service(client)
    ladder_id = (await ladders.create("5211", 2)).ladder_id
    await online(client, {"ann": 1, "bob": 1})
    await LadderStore(client).hold_matchmaking("node-a", 30)
    maker = Matchmaker(ladders, "node-a", seed=1)
    assert await maker.one_pass() == 1
    match = await LeagueStore(client).match(ladder_id, f"{ladder_id}.000000")
    assert match is not None
    winner = StoredResult(match["match_id"], tuple(match["bots"]), (5, 0), (1, 2), deal_id=match["deal_id"])
    await LeagueStore(client).record_result(ladder_id, match["match_id"], match["deal_id"], winner.to_dict())
    info, lines = await ladders.standings(ladder_id)
    assert info.done == 1
    assert [line.bot for line in lines] == list(match["bots"])  # the winner first
    assert [line.games for line in lines] == [1, 1]
    await ladders.retire(match["bots"][0])
    _, again = await ladders.standings(ladder_id)
    assert again == lines  # fitted once per count of results
    assert await maker.one_pass() == 0  # the retired bot is not scheduled again
    # A matchmaker charts the bots' ratings when it fits the standings anew.
    assert await Matchmaker(ladders, "node-a", seed=1).one_pass() == 0
    points = await ladders.history(ladder_id, match["bots"][1])
    assert [p["games"] for p in points] == [1]
    assert await ladders.history(ladder_id, match["bots"][1], limit=0) == points[-1:]
