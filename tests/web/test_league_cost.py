"""A league's match list on the site reads one page of results, whatever the league's size.

Found in a trial: the list read every result of the league on each request, and paged by offset
over the whole of it. With 100,000 results a page took 3–4 s, unauthenticated, and other calls
waited meanwhile. A page now reads the results it shows (and a bounded number it skips).
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from arena.games.base import Outcome, Termination
from arena.league.result import StoredResult
from arena.league.schedule import LeagueSpec, MatchSpec, schedule_league
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import LeagueService
from arena.store.embedded import EmbeddedRedis
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import connect
from arena.web.data import LEAGUE_RESULTS_SCANNED, PAGE_SIZE
from arena.web.site import WebServer, start_web
from tests.grpc.harness import Arena


@pytest.fixture
async def site(arena: Arena, redis_server: EmbeddedRedis) -> AsyncIterator[tuple[WebServer, LeagueService]]:
    """The arena fixture's node with leagues on the test's redis-server (no worker: the tests
    store results themselves), and its web site."""
    client = connect(redis_server.url)
    service = LeagueService(LeagueStore(client), MatchQueue(client), arena.node.clock)
    arena.node.leagues = service
    web = await start_web(arena.node, "127.0.0.1", 0)
    try:
        yield web, service
    finally:
        await web.stop()
        await client.aclose()


async def league_with_results(
    service: LeagueService, bots: int, games: int, *, duplicate: bool = False, unfinished_deals: int = 0
) -> tuple[str, list[MatchSpec]]:
    """A league whose results are stored (but for the last rotation of its first ``unfinished_deals``
    deals); its id and the matches whose results are stored, in the order they were."""
    names = tuple(f"bot{i}" for i in range(bots))
    spec = LeagueSpec(f"L{secrets.token_hex(4)}", "5211", 2, names, games_per_pairing=games, duplicate=duplicate)
    info = await service.create(spec, TimeControl())
    matches = list(schedule_league(spec))
    unfinished = list(dict.fromkeys(m.deal_id for m in matches))[:unfinished_deals]
    held_back = {[m for m in matches if m.deal_id == deal][-1].match_id for deal in unfinished}
    stored = [m for m in matches if m.match_id not in held_back]
    deal_size = 2 if duplicate else 1
    for m in stored:  # one at a time: the order they are stored in is the order the list shows
        result = StoredResult.from_outcome(
            m.match_id, m.bots, Outcome(Termination.NORMAL, (2, 1), (1, 2)), deal_id=m.deal_id
        )
        run = result.to_dict() | {"record_id": f"{m.match_id}.run"}
        await service.store.record_result(info.league_id, m.match_id, m.deal_id, run, deal_size=deal_size)
    return info.league_id, stored


async def walk(session: aiohttp.ClientSession, url: str, query: str) -> list[str]:
    """Every match the league's list shows, page after page."""
    shown: list[str] = []
    page = ""
    for _ in range(100):
        async with session.get(f"{url}api/matches?{query}&page={page}") as response:
            assert response.status == 200, await response.text()
            data: dict[str, Any] = await response.json()
        shown += [m["match_id"] for m in data["matches"]]
        page = data["next_page"]
        if not page:
            return shown
    raise AssertionError(f"the list of {query} did not end")


async def bytes_sent(service: LeagueService) -> int:
    return int((await service.store.r.info("stats"))["total_net_output_bytes"])


async def test_a_page_of_a_large_league_reads_a_page_of_its_results(
    site: tuple[WebServer, LeagueService],
) -> None:
    web, service = site
    league_id, stored = await league_with_results(service, bots=8, games=30)  # 840 results
    async with aiohttp.ClientSession() as session:
        before = await bytes_sent(service)
        async with session.get(f"{web.url}api/matches?league={league_id}") as response:
            page = await response.json()
        first = await bytes_sent(service) - before
        before = await bytes_sent(service)
        async with session.get(f"{web.url}api/matches?league={league_id}&bot=nobody") as response:
            none = await response.json()
        skipping = await bytes_sent(service) - before
    newest = [f"{m.match_id}.run" for m in reversed(stored)]
    assert [m["match_id"] for m in page["matches"]] == newest[:PAGE_SIZE]
    assert first < 64 * 1024, f"one page of a league of {len(stored)} results read {first} bytes of the store"
    # A filter that fits nothing reads a bounded stretch, and says where to go on from.
    assert none["matches"] == [] and none["next_page"]
    assert skipping < LEAGUE_RESULTS_SCANNED * 1024, f"{skipping} bytes read for one page that skipped every result"


async def test_the_pages_of_a_league_show_each_whole_deal_s_results_once_newest_first(
    site: tuple[WebServer, LeagueService],
) -> None:
    web, service = site
    league_id, stored = await league_with_results(service, bots=4, games=6, duplicate=True, unfinished_deals=3)
    per_deal = {m.deal_id: sum(1 for s in stored if s.deal_id == m.deal_id) for m in stored}
    whole = [f"{m.match_id}.run" for m in reversed(stored) if per_deal[m.deal_id] == 2]
    assert len(whole) > 2 * PAGE_SIZE and len(whole) < len(stored)
    async with aiohttp.ClientSession() as session:
        assert await walk(session, web.url, f"league={league_id}") == whole
        assert await walk(session, web.url, f"league={league_id}&state=finished") == whole
        mine = [f"{m.match_id}.run" for m in reversed(stored) if per_deal[m.deal_id] == 2 and "bot1" in m.bots]
        assert await walk(session, web.url, f"league={league_id}&bot=bot1") == mine
        for token in ("-5", "7", "s", "r-1", "s1e3", "x12"):
            async with session.get(f"{web.url}api/matches?league={league_id}&page={token}") as response:
                assert response.status == 400, token
                assert repr(token) in (await response.json())["error"], token
