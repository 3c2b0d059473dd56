"""No seed, record or result from which a running or future deal can be computed leaves the server.

Attacks found in trials, each reproduced here against a real gRPC server, a real redis-server and
raw bots written from the proto:

- the league seed was returned to anyone (GetLeague, ListLeagues, GetLeaderboard), and every deal
  seed was a public hash of it and the deal number: a bot knew every hidden card of its matches;
- rotation 0 of a duplicate deal (seed included) was readable while the other rotations of the same
  deal were still to be played;
- a match re-run after an abort was dealt the same cards again.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import grpc
import pytest

from arena.catalogue import observation_to_proto
from arena.games import get_game
from arena.service.leagues import LeagueService
from arena.store.match_index import MatchQuery
from arena.v1 import bot_pb2, common_pb2, league_pb2, league_pb2_grpc, match_pb2
from tests.grpc.harness import ADMIN_METADATA, Arena, eventually
from tests.queue.harness import wait_done

GAME = get_game("5211")


def slow_time_control() -> common_pb2.TimeControl:
    tc = common_pb2.TimeControl(strike_limit=3)
    tc.decision_allowance.FromSeconds(20)
    tc.time_bank.FromSeconds(20)
    return tc


async def create_league(arena: Arena, bots: list[str], *, games: int, duplicate: bool = False) -> league_pb2.League:
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    spec = league_pb2.LeagueSpec(
        game="5211",
        players_per_match=2,
        bot_names=bots,
        games_per_pairing=games,
        duplicate_deals=duplicate,
        time_control=slow_time_control(),
    )
    response = await stub.CreateLeague(league_pb2.CreateLeagueRequest(spec=spec), metadata=ADMIN_METADATA)
    return response.league


def attackers_deal_seed(league_seed: int, deal: int) -> int:
    """What the attack computed: the deal seed as a public hash of the league seed and the deal number."""
    digest = hashlib.blake2b(f"arena-league/{league_seed}/deal/{deal}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 11


async def test_no_client_but_the_admin_sees_a_league_seed(arena: Arena, leagues: LeagueService) -> None:
    for name in ("s1", "s2"):
        await arena.connect(name)
    league = await create_league(arena, ["s1", "s2"], games=2)
    await wait_done(leagues, league.league_id, 60)
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    request = league_pb2.GetLeagueRequest(league_id=league.league_id)
    assert league.spec.HasField("seed")  # CreateLeague is the admin's
    anonymous = [
        (await stub.GetLeague(request)).league,
        (await stub.ListLeagues(league_pb2.ListLeaguesRequest())).leagues[0],
        (await stub.GetLeaderboard(league_pb2.GetLeaderboardRequest(league_id=league.league_id))).league,
    ]
    for seen in anonymous:
        assert not seen.spec.HasField("seed"), seen
    admin = (await stub.GetLeague(request, metadata=ADMIN_METADATA)).league
    assert admin.spec.HasField("seed")


async def test_even_a_published_league_seed_predicts_no_deal(arena: Arena, leagues: LeagueService) -> None:
    bots = {name: await arena.connect(name) for name in ("p1", "p2", "p3")}
    league = await create_league(arena, list(bots), games=4)
    await wait_done(leagues, league.league_id, 90)
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    request = league_pb2.GetLeagueRequest(league_id=league.league_id)
    league_seed = (await stub.GetLeague(request, metadata=ADMIN_METADATA)).league.spec.seed
    predicted = tried = 0
    for bot in bots.values():
        first: dict[str, bot_pb2.ActionRequest] = {}
        for r in bot.messages("action_request"):
            first.setdefault(r.match_id, r)
        for match_id, r in first.items():
            index = int(match_id.split(".")[1])  # "<league>.<index>.<run>": a deal per match
            state = GAME.initial_state(2, attackers_deal_seed(league_seed, index))
            tried += 1
            predicted += observation_to_proto(GAME.observe(state, r.seat)) == r.observation
    assert tried == 4 * 3 * 2
    assert predicted == 0


async def test_a_duplicate_deal_stays_sealed_until_every_rotation_has_ended(
    arena: Arena, leagues: LeagueService
) -> None:
    held: asyncio.Queue[bot_pb2.ActionRequest] = asyncio.Queue()
    hold = {"on": True}

    def second_rotation_waits(request: bot_pb2.ActionRequest) -> str | None:
        if hold["on"] and request.match_id.split(".")[1] == "00001":
            held.put_nowait(request)
            return None
        return request.legal_actions[0]

    first = await arena.connect("r1", capacity=1)
    second = await arena.connect("r2", chooser=second_rotation_waits, capacity=1)
    league = await create_league(arena, ["r1", "r2"], games=1, duplicate=True)
    waiting = await asyncio.wait_for(held.get(), 60)  # rotation 1 has started; rotation 0 has ended
    rotation0 = next(m for m in first.ended if m.split(".")[1] == "00000")
    rotation1 = waiting.match_id
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)

    for match_id in (rotation0, rotation1):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await arena.record(match_id)
        assert refused.value.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            async for _ in arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id)):
                pass
        assert refused.value.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION)
    for scheduled in (rotation0.rsplit(".", 1)[0], rotation1.rsplit(".", 1)[0]):
        # Asked for by its scheduled id, a rotation's answer named its run (a trial's: listed nowhere).
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await arena.record(scheduled)
        details = refused.value.details() or ""
        assert scheduled in details and rotation0 not in details and rotation1 not in details, details
    listed = (await arena.matches.ListMatches(match_pb2.ListMatchesRequest(page_size=100))).matches
    assert not {rotation0, rotation1} & {m.match_id for m in listed}  # held, and running
    for _ in range(200):  # rotation 1 may start before the worker has stored rotation 0's result
        board = await stub.GetLeaderboard(league_pb2.GetLeaderboardRequest(league_id=league.league_id))
        if board.league.progress.done == 1:
            break
        await asyncio.sleep(0.05)
    assert board.league.progress.done == 1
    assert all(entry.matches == 0 and entry.points == 0 for entry in board.entries)

    hold["on"] = False
    second.send_action(waiting.match_id, waiting.sequence, waiting.legal_actions[0])
    await wait_done(leagues, league.league_id, 60)
    await eventually(lambda: rotation1 in second.ended, 10)

    async def readable(match_id: str) -> match_pb2.MatchRecord | None:
        try:
            return await arena.record(match_id)
        except grpc.aio.AioRpcError:
            return None

    for _ in range(100):  # the deal is unsealed right after its last result is stored
        records = [await readable(rotation0), await readable(rotation1)]
        if all(records):
            break
        await asyncio.sleep(0.05)
    zero, one = records
    assert zero is not None and one is not None
    assert zero.seed == one.seed  # one deal, two rotations
    board = await stub.GetLeaderboard(league_pb2.GetLeaderboardRequest(league_id=league.league_id))
    assert [entry.matches for entry in board.entries] == [2, 2]


async def test_a_match_re_run_after_an_abort_is_dealt_afresh(arena: Arena, leagues: LeagueService) -> None:
    asked: asyncio.Queue[bot_pb2.ActionRequest] = asyncio.Queue()
    stall = {"on": True}

    def stalls_first(request: bot_pb2.ActionRequest) -> str | None:
        if stall["on"]:
            asked.put_nowait(request)
            return None
        return request.legal_actions[0]

    await arena.connect("a1")
    await arena.connect("a2", chooser=stalls_first)
    league = await create_league(arena, ["a1", "a2"], games=1)
    await asyncio.wait_for(asked.get(), 60)
    stall["on"] = False
    await arena.node.matches.shutdown(0)  # as a node shutdown does: the match is recorded as aborted
    arena.node.matches.closing = False  # and the node starts again, to play it afresh
    await wait_done(leagues, league.league_id, 60)  # re-run after the lease
    store = arena.node.matches.store
    listed = await store.page(MatchQuery(), None, 10)
    records = [r for i in listed if i.match_id.startswith(league.league_id) and (r := await store.get(i.match_id))]
    assert sorted(str(r.termination) for r in records) == ["Termination.ABORTED", "Termination.NORMAL"]
    assert records[0].seed != records[1].seed


async def test_the_worker_gets_the_record_of_a_sealed_rotation_that_ended_before_it_waited(arena: Arena) -> None:
    """The race behind a flaky run: a rotation ended before its league worker called ``wait``, whose
    record was sealed, so ``wait`` refused it as sealed and the worker played the rotation again."""
    x, _ = await arena.connect("x"), await arena.connect("y")
    match_id = await arena.node.matches.start("5211", ["x", "y"], seed=5, seal="deal-9", seal_size=2)
    await x.wait_ended(match_id)
    await eventually(lambda: match_id not in arena.node.matches.running, 10)
    record = await arena.node.matches.wait(match_id)
    assert record.match_id == match_id and record.outcome is not None
    with pytest.raises(grpc.aio.AioRpcError) as refused:  # still sealed for everyone else
        await arena.record(match_id)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION


class ReleasedWhenLookedFor:
    """The node's real record store, its seal released (the deal's last rotation ending) just as a
    held record is looked for."""

    def __init__(self, store: Any, seal: str) -> None:
        self.store = store
        self.seal = seal

    async def held(self, match_id: str) -> Any:
        await self.store.release(self.seal)
        return await self.store.held(match_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_a_rotation_s_record_released_as_it_is_asked_for_is_found(arena: Arena) -> None:
    """A record asked for as its deal was released was looked for among the stored records before the
    release and among the held ones after it: the match was said not to exist (``arena sprt``, polling
    for a rotation's record, stopped on it in a CI run)."""
    x, _ = await arena.connect("x"), await arena.connect("y")
    match_id = await arena.node.matches.start("5211", ["x", "y"], seed=5, seal="deal-7", seal_size=2)
    await x.wait_ended(match_id)
    await arena.node.matches.wait(match_id)  # ended, and held
    real = arena.node.matches.store
    arena.node.matches.store = ReleasedWhenLookedFor(real, "deal-7")
    assert (await arena.record(match_id)).match_id == match_id


async def test_no_bot_plays_two_rotations_of_one_deal_at_once(arena: Arena, leagues: LeagueService) -> None:
    """A bot that asked for matches at once was seated in every rotation of a deal at the same time
    (a trial): in one it held the cards its opponent holds in the other, live. The rotations of a
    deal now play one after another, whatever the bots' capacity."""
    for name in ("p1", "p2"):
        await arena.connect(name, think_seconds=0.01)
    league = await create_league(arena, ["p1", "p2"], games=3, duplicate=True)
    await wait_done(leagues, league.league_id, 120)
    played: dict[str, list[tuple[float, float, str]]] = {}
    for result in await leagues.store.results(league.league_id):
        record = await arena.record(result["record_id"])
        span = (record.started_at.ToNanoseconds() / 1e9, record.ended_at.ToNanoseconds() / 1e9, record.match_id)
        played.setdefault(result["deal_id"], []).append(span)
    assert len(played) == 3 and all(len(spans) == 2 for spans in played.values()), played
    for spans in played.values():
        (_, first_end, first), (second_start, _, second) = sorted(spans)
        assert first_end <= second_start, f"{first} and {second}, rotations of one deal, overlapped"
