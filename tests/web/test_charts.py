"""The rating charts of the site: each line is the bot it is labelled with.

Found in a trial: a bot's page showed, for each of its leagues, the Elo line of that league's leader
(the chart cache was keyed by the league's version, not by whose lines it held).
"""

from __future__ import annotations

from arena.service.leagues import LeagueService
from arena.web.data import SiteData
from arena.web.elo_lines import elo_series
from tests.grpc.harness import Arena
from tests.queue.harness import wait_done
from tests.security.test_league_secrecy import create_league


async def test_a_bot_s_page_charts_its_own_rating_in_each_league(arena: Arena, leagues: LeagueService) -> None:
    names = ["c1", "c2", "c3"]
    for name in names:
        await arena.connect(name)
    league = await create_league(arena, names, games=4)
    await wait_done(leagues, league.league_id, 60)
    site = SiteData(arena.node)
    board = await site.league_board(league.league_id)
    info = await leagues.get(league.league_id)
    stored = await leagues.store.results(league.league_id)
    for name in names:
        page = await site.bot(name)
        [line] = [s for s in page["series"] if league.league_id in s["label"]]
        [expected] = elo_series(stored, [name], info.spec.duplicate, info.spec.players_per_match)
        assert [tuple(p) for p in line["points"]] == [tuple(p) for p in expected.points], name
    # The league's own chart still has its leaders, in rank order.
    assert [s["label"] for s in board["series"]] == [row["bot"] for row in board["rows"]][: len(board["series"])]
