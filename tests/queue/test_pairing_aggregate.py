"""GetLeaderboard reads a pairing aggregate kept beside the league (real redis-server, real gRPC).

The audit found the table refitted from every stored result on every request (1.5-3 s at 100,000
results). Now the script that stores a result also adds it to the league's pairing aggregate (a
duplicate deal once all its rotations are in), so the leaderboard never reads the results; the
aggregate is rebuilt from them when it has not counted them all (a league stored before it existed).
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import cast

import pytest
from redis.typing import EncodableT, FieldT

from arena.league.aggregate import PairingAggregate, is_current
from arena.league.result import StoredResult
from arena.league.schedule import LeagueSpec
from arena.league.table import LeagueTable
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import LeagueService
from arena.store.embedded import EmbeddedRedis
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import connect, key, text
from arena.v1 import league_pb2, league_pb2_grpc
from tests.grpc.harness import Arena
from tests.queue.harness import assert_same_table


@pytest.fixture
async def leagues(arena: Arena, redis_server: EmbeddedRedis) -> AsyncIterator[LeagueService]:
    """The arena fixture's node with leagues on the test's redis-server (no worker: the test stores)."""
    client = connect(redis_server.url)
    arena.node.leagues = LeagueService(LeagueStore(client), MatchQueue(client), arena.node.clock)
    try:
        yield arena.node.leagues
    finally:
        await client.aclose()


async def _play_all(leagues: LeagueService, league_id: str, seed: int, deal_size: int = 1) -> list[StoredResult]:
    """Store a random result for every scheduled match (some twice: a re-run counts once)."""
    rng = random.Random(seed)
    stored = []
    for match in [await leagues.store.match(league_id, m) for m in sorted(await _match_ids(leagues, league_id))]:
        assert match is not None
        k = len(match["bots"])
        placings = tuple(rng.sample(range(1, k + 1), k))
        result = StoredResult(match["match_id"], tuple(match["bots"]), (0,) * k, placings, deal_id=match["deal_id"])
        for _ in range(1 + (rng.random() < 0.2)):
            await leagues.store.record_result(
                league_id, result.match_id, match["deal_id"], result.to_dict(), deal_size=deal_size
            )
        stored.append(result)
    return stored


async def _match_ids(leagues: LeagueService, league_id: str) -> list[str]:
    return [text(m) for m in await leagues.store.r.hkeys(key("league", f"{league_id}:matches"))]


async def test_the_leaderboard_comes_from_the_aggregate_not_the_results(
    arena: Arena, leagues: LeagueService, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = LeagueSpec("Lagg", "5211", 3, ("a", "b", "c", "d"), games_per_pairing=5, seed=1)
    await leagues.create(spec, TimeControl())
    results = await _play_all(leagues, "Lagg", seed=2)
    fields, counted = await leagues.store.pairings("Lagg")
    assert counted == len(results)
    assert fields == PairingAggregate.from_results(results).to_fields()

    reads: list[str] = []
    original = leagues.store.results

    async def counting(league_id: str) -> list[dict[str, object]]:
        reads.append(league_id)
        return await original(league_id)

    monkeypatch.setattr(leagues.store, "results", counting)
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    board = await stub.GetLeaderboard(league_pb2.GetLeaderboardRequest(league_id="Lagg"))
    assert reads == []
    replay = LeagueTable.from_results(results, spec.bots)
    assert [(e.bot_name, e.rank, e.matches, e.wins) for e in board.entries] == [
        (r.bot, r.rank, r.matches, r.wins) for r in replay.rows
    ]
    for entry, row in zip(board.entries, replay.rows, strict=True):
        assert (entry.rating, entry.rating_low, entry.rating_high) == pytest.approx(
            (row.rating, row.rating_low, row.rating_high), abs=1e-6
        )
        assert entry.rated and entry.provisional  # 20 matches at most: provisional
    # The live Elo is retired: the leaderboard carries one rating, the fit's (the deprecated elo field
    # repeats it for clients released before).
    assert all(e.elo == e.rating for e in board.entries)
    assert league_pb2.LeaderboardEntry.DESCRIPTOR.fields_by_name["elo"].GetOptions().deprecated


async def test_a_lost_aggregate_is_rebuilt_from_the_results(arena: Arena, leagues: LeagueService) -> None:
    spec = LeagueSpec("Lreb", "5211", 2, ("a", "b", "c"), games_per_pairing=6, seed=4)
    await leagues.create(spec, TimeControl())
    results = await _play_all(leagues, "Lreb", seed=5)
    _, before = await leagues.leaderboard("Lreb")
    await leagues.store.r.delete(key("league", "Lreb:pairs"))
    leagues._tables.clear()  # a fresh node, as after a restart
    _, after = await leagues.leaderboard("Lreb")
    assert_same_table(after, before)
    assert_same_table(after, LeagueTable.from_results(results, spec.bots))
    assert (await leagues.store.pairings("Lreb"))[1] == len(results)


async def test_a_duplicate_deal_counts_once_whole_and_unplayed_bots_are_unrated(leagues: LeagueService) -> None:
    spec = LeagueSpec("Ldup", "5211", 2, ("a", "b", "c"), games_per_pairing=4, seed=6, duplicate=True)
    await leagues.create(spec, TimeControl())
    ids = sorted(await _match_ids(leagues, "Ldup"))
    first = await leagues.store.match("Ldup", ids[0])
    assert first is not None
    half = StoredResult(first["match_id"], tuple(first["bots"]), (1, 0), (1, 2), deal_id=first["deal_id"])
    await leagues.store.record_result("Ldup", half.match_id, first["deal_id"], half.to_dict(), deal_size=2)
    _, table = await leagues.leaderboard("Ldup")
    assert table.matches == 0  # half a deal: not yet
    assert [(r.bot, r.rank, r.rated) for r in table.rows] == [("a", 0, False), ("b", 0, False), ("c", 0, False)]
    twin = next(
        m for m in [await leagues.store.match("Ldup", i) for i in ids[1:]] if m and m["deal_id"] == first["deal_id"]
    )
    other = StoredResult(twin["match_id"], tuple(twin["bots"]), (1, 0), (1, 2), deal_id=twin["deal_id"])
    await leagues.store.record_result("Ldup", other.match_id, twin["deal_id"], other.to_dict(), deal_size=2)
    _, table = await leagues.leaderboard("Ldup")
    assert table.matches == 2
    assert_same_table(table, LeagueTable.from_results([half, other], spec.bots))
    assert table.rows[-1].rank == 0 and not table.rows[-1].rated  # the bot outside the deal


def _without_spread(fields: dict[str, str]) -> dict[str, str]:
    """An aggregate as it was stored before the spread statistics existed."""
    old = {}
    for name, value in fields.items():
        kind = name.split("\t")[0]
        if kind in ("p", "b"):
            old[name] = " ".join(value.split()[: 2 if kind == "p" else 6])
        elif name == "#":
            old[name] = " ".join(value.split()[:2])
        elif kind not in ("t", "x"):
            old[name] = value
    return old


async def test_an_aggregate_without_the_spread_statistics_is_rebuilt_not_misread(leagues: LeagueService) -> None:
    spec = LeagueSpec("Lold", "5211", 4, ("a", "b", "c", "d", "e"), games_per_pairing=2, seed=8)
    await leagues.create(spec, TimeControl())
    results = await _play_all(leagues, "Lold", seed=9)
    pairs = key("league", "Lold:pairs")
    fields, counted = await leagues.store.pairings("Lold")
    current = PairingAggregate.from_results(results).to_fields()
    assert fields == current and counted == len(results)
    assert any(name.startswith("t\t") for name in fields)  # triples of bots met at 4-player tables
    await leagues.store.r.delete(pairs)
    # redis-py types `mapping` as Mapping[FieldT, EncodableT]: its key type is invariant, so no dict[str, str] fits.
    stored = cast(dict[FieldT, EncodableT], {**_without_spread(fields), "#stored": str(counted)})
    await leagues.store.r.hset(pairs, mapping=stored)
    leagues._tables.clear()  # a fresh node reading a league stored by the previous version
    _, table = await leagues.leaderboard("Lold")
    assert (await leagues.store.pairings("Lold")) == (current, len(results))  # rebuilt
    replay = LeagueTable.from_results(results, spec.bots)
    assert_same_table(table, replay)
    assert table.fit.dispersion == pytest.approx(replay.fit.dispersion)


async def test_the_spread_statistics_of_duplicate_deals_are_added_whole(leagues: LeagueService) -> None:
    spec = LeagueSpec("Ld3", "5211", 3, ("a", "b", "c", "d"), games_per_pairing=1, seed=10, duplicate=True)
    await leagues.create(spec, TimeControl())
    results = await _play_all(leagues, "Ld3", seed=11, deal_size=3)
    fields, counted = await leagues.store.pairings("Ld3")
    assert counted == len(results)
    assert fields == PairingAggregate.from_results(results).to_fields()
    assert is_current(fields) and "x\t3" in fields
