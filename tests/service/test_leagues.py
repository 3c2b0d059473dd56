"""The league service (arena.service.leagues) on a real redis-server: what it refuses changes nothing
and names the value, a retried create makes one league, and a league runs, finishes or is cancelled."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis

from arena.errors import (
    GameSetupError,
    LeagueExistsError,
    LeagueNotFoundError,
    LeagueSpecError,
    NotRegisteredForGameError,
    UnknownGameError,
)
from arena.league.result import StoredResult
from arena.league.schedule import LeagueSpec
from arena.referee.timecontrol import TimeControl
from arena.service.auth import BotRegistry
from arena.service.leagues import MAX_GAMES_PER_PAIRING, MAX_REQUEST_ID, LeagueProgress, LeagueService, LeagueState
from arena.service.limits import Limits
from arena.store.ladders import LadderStore
from arena.store.leagues import QUEUE_STREAM, LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import RedisTokenStore
from tests.referee.doubles import ManualClock

BOTS = ("ann", "bob", "cid")


def service(client: aioredis.Redis, **kwargs: Any) -> LeagueService:
    return LeagueService(LeagueStore(client), MatchQueue(client), ManualClock(), **kwargs)


def spec(league_id: str = "lg", bots: tuple[str, ...] = BOTS, **kwargs: Any) -> LeagueSpec:
    return LeagueSpec(league_id, "5211", 2, bots, **kwargs)


async def nothing_stored(client: aioredis.Redis) -> bool:
    return await client.zcard("arena:leagues") == 0 and await client.exists(QUEUE_STREAM) == 0


async def finish(client: aioredis.Redis, league_id: str, count: int | None = None) -> None:
    """Store results for the league's first ``count`` matches (all by default), the first seat winning."""
    store = LeagueStore(client)
    queued, _ = await store.queued(league_id, 0, 1000)
    for match in queued[:count]:
        result = StoredResult(match["match_id"], tuple(match["bots"]), (5, 0), (1, 2), deal_id=match["deal_id"])
        await store.record_result(league_id, match["match_id"], match["deal_id"], result.to_dict())


async def test_a_league_is_created_with_every_match_queued(client: aioredis.Redis) -> None:
    leagues = service(client)
    info = await leagues.create(spec(), TimeControl(), name="Friday")
    assert (info.league_id, info.name, info.spec, info.created_at) == ("lg", "Friday", spec(), 1000.0)
    assert info.progress == LeagueProgress(3, 0, 0)
    assert info.progress.state is LeagueState.RUNNING and info.progress.queued == 3
    assert await client.xlen(QUEUE_STREAM) == 3
    assert await leagues.get("lg") == info
    assert [i.league_id for i in await leagues.recent()] == ["lg"]
    unnamed = await leagues.create(spec("lg2"), TimeControl())
    assert unnamed.name == "lg2"


async def test_a_retried_create_request_returns_the_league_it_made(client: aioredis.Redis) -> None:
    leagues = service(client)
    request = "r" * MAX_REQUEST_ID
    first = await leagues.create(spec("one"), TimeControl(), request_id=request)
    again = await leagues.create(spec("two"), TimeControl(), request_id=request)  # retried under a new league id
    assert again == first
    assert await leagues.create(spec("one"), TimeControl(), request_id=request) == first  # not "exists already"
    assert [i.league_id for i in await leagues.recent()] == ["one"]
    # A longer id is refused, not cut (two ids sharing their first 128 characters made one league: a trial).
    with pytest.raises(LeagueSpecError, match=f"^a request_id is at most {MAX_REQUEST_ID} characters, not 129$"):
        await leagues.create(spec("three"), TimeControl(), request_id=request + "b")
    assert [i.league_id for i in await leagues.recent()] == ["one"]
    with pytest.raises(LeagueExistsError, match="'one' exists already"):
        await leagues.create(spec("one"), TimeControl())


@pytest.mark.parametrize(
    ("make", "error", "names"),
    [
        (lambda: LeagueSpec("lg", "chess", 2, BOTS), UnknownGameError, "chess"),
        (lambda: LeagueSpec("lg", "5211", 9, BOTS), LeagueSpecError, "5211 is for 2 to 5 players, not 9 a match"),
        (lambda: spec(bots=("ann", "ann")), LeagueSpecError, r"distinct and non-empty: \['ann', 'ann'\]"),
        (
            lambda: spec(bots=tuple(f"b{i}" for i in range(5))),
            LeagueSpecError,
            "a league of 5 bots is too big: at most 4",
        ),
        (
            lambda: spec(games_per_pairing=MAX_GAMES_PER_PAIRING + 1),
            LeagueSpecError,
            f"not {MAX_GAMES_PER_PAIRING + 1}",
        ),
        (lambda: spec(games_per_pairing=30), LeagueSpecError, "a league of 90 matches is too big: at most 50"),
        (lambda: spec(options={"jokers": 2}), GameSetupError, "unknown 5211 option.*jokers"),
        (lambda: spec(options={"long_game": "yes"}), GameSetupError, "long_game must be true or false, not 'yes'"),
    ],
)
async def test_a_refused_league_names_the_value_and_stores_nothing(
    client: aioredis.Redis, make: Any, error: type[Exception], names: str
) -> None:
    leagues = service(client, limits=Limits(max_league_bots=4, max_league_matches=50))
    with pytest.raises(error, match=names):
        await leagues.create(make(), TimeControl())
    assert await nothing_stored(client)


async def test_a_league_of_bots_not_registered_for_the_game_is_refused(client: aioredis.Redis) -> None:
    registry = BotRegistry(RedisTokenStore(client), admin_token="admin")
    await registry.register("ann", "admin", games=["5211"])
    await registry.register("bob", "admin", games=["azul"])
    leagues = service(client, check_bots=registry.check_plays)
    with pytest.raises(NotRegisteredForGameError, match="bot 'bob' is not registered for game '5211'"):
        await leagues.create(spec(bots=("ann", "bob")), TimeControl())
    with pytest.raises(NotRegisteredForGameError, match="no bot named 'zed' is registered"):
        await leagues.create(spec(bots=("ann", "zed")), TimeControl())
    assert await nothing_stored(client)
    await registry.register("cid", "admin")  # every game
    assert (await leagues.create(spec(bots=("ann", "cid")), TimeControl())).progress.total == 1


async def test_an_unknown_league_or_a_ladder_is_not_found_and_named(client: aioredis.Redis) -> None:
    leagues = service(client)
    with pytest.raises(LeagueNotFoundError, match="no league 'nope'"):
        await leagues.get("nope")
    await LadderStore(client).create("LD00000000", {"kind": "ladder", "game": "5211"}, b"s")
    with pytest.raises(LeagueNotFoundError, match="no league 'LD00000000'"):
        await leagues.get("LD00000000")
    with pytest.raises(LeagueNotFoundError):
        await leagues.results("nope")
    with pytest.raises(LeagueNotFoundError):
        await leagues.cancel("nope")
    long = "x" * 500
    with pytest.raises(LeagueNotFoundError, match=r"\(500 characters\)"):
        await leagues.get(long)


async def test_a_cancelled_league_drops_what_is_still_queued(client: aioredis.Redis) -> None:
    leagues = service(client)
    await leagues.create(spec(), TimeControl())
    await finish(client, "lg", count=1)
    info = await leagues.cancel("lg")
    assert info.progress.state is LeagueState.CANCELLED
    assert (info.progress.done, info.progress.queued, info.progress.dropped) == (1, 0, 2)
    assert (await leagues.cancel("lg")).progress == info.progress


async def test_a_finished_league_stays_finished_when_cancelled(client: aioredis.Redis) -> None:
    leagues = service(client)
    await leagues.create(spec(), TimeControl())
    await finish(client, "lg")
    info = await leagues.cancel("lg")
    assert info.progress.state is LeagueState.FINISHED and not info.progress.cancelled
    assert len(await leagues.results("lg")) == 3


async def test_the_leaderboard_ranks_the_bots_from_the_stored_results(client: aioredis.Redis) -> None:
    leagues = service(client)
    await leagues.create(spec(), TimeControl())
    _, empty = await leagues.leaderboard("lg")
    assert {row.bot for row in empty.rows} == set(BOTS)
    await finish(client, "lg")
    info, table = await leagues.leaderboard("lg")
    assert info.progress.finished
    assert sum(row.matches for row in table.rows) == 6  # 3 matches, two bots each
    assert (await leagues.leaderboard("lg"))[1] is table  # one fit per league version


def test_progress_states() -> None:
    assert LeagueProgress(0, 0, 0).state is LeagueState.RUNNING  # nothing scheduled is not finished
    assert LeagueProgress(4, 1, 1).queued == 2
    assert LeagueProgress(4, 4, 0, cancelled=True).state is LeagueState.FINISHED
    cancelled = LeagueProgress(4, 1, 1, cancelled=True)
    assert (cancelled.state, cancelled.queued, cancelled.dropped) == (LeagueState.CANCELLED, 0, 2)
