"""The site shows nothing of a duplicate deal until all its rotations have ended, and no hand ever."""

from __future__ import annotations

import asyncio
import json

import aiohttp

from arena.service.leagues import LeagueService
from arena.v1 import bot_pb2
from arena.web.site import start_web
from tests.grpc.harness import Arena
from tests.queue.harness import wait_done
from tests.security.test_league_secrecy import create_league


async def test_no_page_shows_a_rotation_of_a_duplicate_deal_still_being_played(
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
    waiting = await asyncio.wait_for(held.get(), 60)  # rotation 1 runs; rotation 0 has ended
    rotation0 = next(m for m in first.ended if m.split(".")[1] == "00000")
    rotations = (rotation0, waiting.match_id)  # held, and running: neither is listed
    web = await start_web(arena.node, "127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as session:
            for path in ("api/overview", f"api/leagues/{league.league_id}", f"leagues/{league.league_id}", ""):
                async with session.get(f"{web.url}{path}") as response:
                    text = await response.text()
                    assert response.status == 200, path
                    assert not [m for m in rotations if m in text], path
            for query in (f"league={league.league_id}", "", "bot=r1", "state=running", "state=finished"):
                async with session.get(f"{web.url}api/matches?{query}") as response:
                    shown = {m["match_id"] for m in (await response.json())["matches"]}
                assert not shown & set(rotations), query
            for match_id in rotations:
                for path in ("", "/replay", "/events"):
                    async with session.get(f"{web.url}api/matches/{match_id}{path}") as response:
                        assert response.status == 404, (match_id, path, await response.text())
            board = json.loads(await (await session.get(f"{web.url}api/leagues/{league.league_id}")).text())
            assert all(row["matches"] == 0 for row in board["rows"])
            hold["on"] = False
            second.send_action(waiting.match_id, waiting.sequence, waiting.legal_actions[0])
            await wait_done(leagues, league.league_id, 60)
            async with session.get(f"{web.url}api/matches?league={league.league_id}") as response:
                listed = [m["match_id"] for m in (await response.json())["matches"]]
            assert len(listed) == 2
    finally:
        await web.stop()
