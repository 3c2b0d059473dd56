"""The league store (arena.store.leagues) on a real redis-server: a league is stored whole with its
queue entries, each result is stored once and leaves the queue, and nothing is lost or doubled."""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

from arena.league.result import StoredResult
from arena.league.schedule import LeagueSpec, schedule_league
from arena.store.leagues import QUEUE_STREAM, LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import text


def league(league_id: str, bots: int = 3, games: int = 1, duplicate: bool = False) -> list[dict[str, Any]]:
    """A real schedule: round robin of ``bots`` bots at 5211, two a match."""
    spec = LeagueSpec(league_id, "5211", 2, tuple(f"bot{i}" for i in range(bots)), games, duplicate=duplicate)
    return [m.to_dict() for m in schedule_league(spec)]


def result_of(match: dict[str, Any], winner: int = 0) -> dict[str, Any]:
    placings = tuple(1 if seat == winner else 2 for seat in range(len(match["bots"])))
    scores = tuple(10 if seat == winner else 0 for seat in range(len(match["bots"])))
    return StoredResult(match["match_id"], tuple(match["bots"]), scores, placings, deal_id=match["deal_id"]).to_dict()


async def entries(client: aioredis.Redis) -> dict[str, str]:
    """Queue entry id by match id, as a worker reads them."""
    return {fields["match"]: entry for entry, fields in await MatchQueue(client).read_new("w", 1000, 10)}


async def test_a_league_is_stored_whole_with_every_match_queued(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    await MatchQueue(client).ensure_group()
    matches = league("lg")
    spec = {"league_id": "lg", "created_at": 5.0}
    assert await store.create("lg", spec, matches, b"s3cret") == "lg"
    assert await store.spec("lg") == spec
    assert await store.secret("lg") == b"s3cret"
    assert await store.match("lg", matches[1]["match_id"]) == matches[1]
    assert await store.progress("lg") == (len(matches), 0, 0)
    assert await store.active_ids() == ["lg"]
    assert await store.created_at(["lg", "nope"]) == {"lg": 5.0}
    assert set(await entries(client)) == {m["match_id"] for m in matches}


async def test_an_existing_id_is_refused_and_nothing_changes(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    matches = league("lg")
    assert await store.create("lg", {"created_at": 1.0}, matches, b"one") == "lg"
    assert await store.create("lg", {"created_at": 2.0}, league("lg", bots=5), b"two") is None
    assert await store.spec("lg") == {"created_at": 1.0}
    assert await store.secret("lg") == b"one"
    assert await store.progress("lg") == (len(matches), 0, 0)
    assert await client.xlen(QUEUE_STREAM) == len(matches)


async def test_a_retried_create_request_returns_the_league_it_made_and_stores_nothing_new(
    client: aioredis.Redis,
) -> None:
    store = LeagueStore(client)
    matches = league("first")
    assert await store.create("first", {"created_at": 1.0}, matches, b"s", request_id="req-1") == "first"
    # The retry carries a new league id (the client made none): it is the first league still.
    assert await store.create("again", {"created_at": 2.0}, league("again"), b"s", request_id="req-1") == "first"
    assert await store.spec("again") is None
    assert await store.league_ids() == ["first"]
    assert await client.xlen(QUEUE_STREAM) == len(matches)
    # Another request makes another league.
    assert await store.create("other", {"created_at": 3.0}, league("other"), b"s", request_id="req-2") == "other"
    assert await store.league_ids() == ["other", "first"]
    assert await store.league_ids(limit=1) == ["other"]


async def test_a_result_is_stored_once_and_takes_its_match_off_the_queue(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    await MatchQueue(client).ensure_group()
    matches = league("lg")
    await store.create("lg", {}, matches, b"s")
    queued = await entries(client)
    first = matches[0]
    await store.mark_running("lg", first["match_id"])
    assert await store.progress("lg") == (3, 0, 1)
    stored = await store.record_result(
        "lg", first["match_id"], first["deal_id"], result_of(first), queued[first["match_id"]]
    )
    assert stored == (True, 1)
    assert await store.progress("lg") == (3, 1, 0)
    # Played again (a worker's lease ran out): the second result is not stored, the first stands.
    again = await store.record_result("lg", first["match_id"], first["deal_id"], result_of(first, winner=1))
    assert again == (False, 1)
    assert await store.results("lg") == [result_of(first)]
    assert await store.deal_results("lg", first["deal_id"]) == [result_of(first)]
    assert await store.matches_and_results([("lg", first["match_id"]), ("lg", matches[1]["match_id"])]) == [
        (first, True),
        (matches[1], False),
    ]
    assert await client.xlen(QUEUE_STREAM) == len(matches) - 1
    assert (await client.xpending(QUEUE_STREAM, "referees"))["pending"] == len(matches) - 1
    fields, counted = await store.pairings("lg")
    assert counted == 1 and fields


async def test_a_league_leaves_the_active_set_with_its_last_result(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    matches = league("lg")
    await store.create("lg", {}, matches, b"s")
    for match in matches:
        assert await store.active_ids() == ["lg"]
        await store.record_result("lg", match["match_id"], match["deal_id"], result_of(match))
    assert await store.active_ids() == []
    assert await store.progress("lg") == (3, 3, 0)
    assert [r["match_id"] for r in await store.results("lg")] == [m["match_id"] for m in matches]
    assert await store.queued("lg", 0, 10) == ([], 3)


async def test_results_come_back_whole_past_a_page_of_a_thousand(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    matches = [
        {"match_id": f"big.{i:05d}", "index": i, "bots": ["a", "b"], "deal_id": f"big.d{i:05d}"} for i in range(1003)
    ]
    await store.create("big", {}, matches, b"s")
    # Stored as record_result stores them (its script is tested above), in one round trip.
    async with client.pipeline(transaction=False) as pipe:
        pipe.rpush("arena:league:big:results", *(str(m["match_id"]) for m in matches))
        pipe.mset({f"arena:result:big:{m['match_id']}": json.dumps({"match_id": m["match_id"]}) for m in matches})
        await pipe.execute()
    results = await store.results("big")
    assert [r["match_id"] for r in results] == [m["match_id"] for m in matches]


async def test_a_duplicate_deal_counts_in_the_pairings_only_once_whole(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    matches = league("dup", bots=2, duplicate=True)
    assert len({m["deal_id"] for m in matches}) == 1 and len(matches) == 2
    await store.create("dup", {}, matches, b"s")
    one, two = matches
    assert await store.record_result("dup", one["match_id"], one["deal_id"], result_of(one), deal_size=2) == (True, 1)
    fields, counted = await store.pairings("dup")
    assert (fields, counted) == ({}, 1)  # counted, but held apart until its deal is whole
    assert await store.record_result("dup", two["match_id"], two["deal_id"], result_of(two), deal_size=2) == (True, 2)
    whole, counted = await store.pairings("dup")
    assert counted == 2 and whole
    # Rebuilt from the results, the aggregate is the same.
    await client.delete("arena:league:dup:pairs")
    assert await store.current_pairings("dup", done=2, deal_size=2) == whole


async def test_queued_pages_the_matches_still_to_start_in_schedule_order(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    matches = league("lg", bots=4)  # 6 matches
    await store.create("lg", {}, matches, b"s")
    await store.mark_running("lg", matches[1]["match_id"])
    await store.record_result("lg", matches[2]["match_id"], matches[2]["deal_id"], result_of(matches[2]))
    assert await store.queued("lg", 0, 4) == ([matches[0], matches[3]], 6)
    assert await store.queued("lg", 4, 4) == ([matches[4], matches[5]], 6)
    assert await store.queued("lg", 6, 4) == ([], 6)
    await store.mark_not_running("lg", matches[1]["match_id"])
    assert (await store.queued("lg", 0, 2))[0] == [matches[0], matches[1]]


async def test_cancel_counts_the_first_time_and_takes_the_league_off_the_active_set(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    await store.create("lg", {}, league("lg"), b"s")
    assert not await store.is_cancelled("lg")
    await store.cancel("lg", 10.0)
    await store.cancel("lg", 20.0)
    assert await store.is_cancelled("lg")
    assert text(await client.get("arena:league:lg:cancelled")) == "10.0"
    assert await store.active_ids() == []
    assert await store.progress("lg") == (3, 0, 0)  # its matches are still there: the workers drop them


async def test_a_match_parked_for_an_absent_bot_is_queued_again_when_it_connects(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    await MatchQueue(client).ensure_group()
    matches = league("lg")
    await store.create("lg", {}, matches, b"s")
    queued = await entries(client)
    first, second = matches[0]["match_id"], matches[1]["match_id"]
    await client.set("arena:botat:here", "node-a")
    parked = await store.park_many([("lg", first, queued[first], "away"), ("lg", second, queued[second], "here")])
    assert parked == [True, False]  # a connected bot's match stays on the queue
    assert await client.xlen(QUEUE_STREAM) == 2
    assert await store.parked_for("lg") == {"away": 1}  # what the league says it waits for
    assert await store.park_many([("lg", first, queued[first], "away")]) == [True]  # once is enough
    assert await store.parked_for("lg") == {"away": 1}
    assert await store.reconcile("lg") == 0  # parked is somewhere
    assert await store.unpark("away") == 1
    assert await store.unpark("away") == 0
    assert await store.parked_for("lg") == {}
    again = await entries(client)
    assert list(again) == [first]
    assert text(await client.hget("arena:league:lg:where", first)) == again[first]


async def test_reconcile_queues_again_only_the_open_matches_that_are_nowhere(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    await MatchQueue(client).ensure_group()
    matches = league("lg")
    await store.create("lg", {}, matches, b"s")
    queued = await entries(client)
    lost = matches[0]["match_id"]
    await client.xdel(QUEUE_STREAM, queued[lost])  # the store's host lost the entry
    done = matches[1]
    await store.record_result("lg", done["match_id"], done["deal_id"], result_of(done), queued[done["match_id"]])
    await store.mark_running("lg", done["match_id"])  # a crash left it marked running
    assert await store.reconcile("lg", chunk=1) == 1
    assert await store.reconcile("lg") == 0
    assert list(await entries(client)) == [lost]
    assert await store.progress("lg") == (3, 1, 0)
    assert await store.claim_reconciling("node-a", 5)
    assert not await store.claim_reconciling("node-b", 5)


async def test_a_dropped_match_closes_unplayed_unless_its_result_is_stored(client: aioredis.Redis) -> None:
    store = LeagueStore(client)
    await MatchQueue(client).ensure_group()
    matches = league("lg", bots=2)  # one match
    await store.create("lg", {}, matches, b"s")
    [(match_id, entry)] = (await entries(client)).items()
    await store.drop_many([("lg", match_id, entry)])
    assert await client.scard("arena:league:lg:open") == 0
    assert await store.active_ids() == []
    assert await client.xlen(QUEUE_STREAM) == 0
    assert await store.retired(["x", "y"]) is False
    await client.sadd("arena:retired", "y")
    assert await store.retired(["x", "y"]) is True
    assert await store.retired([]) is False
