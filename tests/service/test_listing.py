"""Match lists (arena.service.listing): opaque page tokens, phases in order, filters before paging."""

from __future__ import annotations

import base64

import pytest
import redis.asyncio as aioredis

from arena.errors import InvalidPageTokenError
from arena.games.base import Outcome, Termination
from arena.referee.record import MatchRecord
from arena.referee.timecontrol import TimeControl
from arena.service.listing import ListPosition, MatchLister
from arena.service.matches import MatchManager
from arena.service.sessions import SessionHub
from arena.store.match_index import MatchQuery, Phase
from arena.store.redis_stores import RedisRecordStore
from tests.referee.doubles import ManualClock


def test_a_page_token_reads_back_and_anything_else_is_refused_by_name() -> None:
    for position in (ListPosition(Phase.FINISHED, (12.5, "m1")), ListPosition(Phase.PENDING, (3.0, "L1234abcd.00002"))):
        assert ListPosition.parse(position.token()) == position
    forged = [
        "not base64!",
        base64.urlsafe_b64encode(b"x:1.0:m1").decode(),  # no such phase
        base64.urlsafe_b64encode(b"f:nan:m1").decode(),
        base64.urlsafe_b64encode(b"f:1.0:bad id").decode(),
        base64.urlsafe_b64encode(b"p:1.0:m1").decode(),  # a queued position names a league's match
    ]
    for token in forged:
        with pytest.raises(InvalidPageTokenError, match="invalid page token") as refused:
            ListPosition.parse(token)
        assert token[:40] in str(refused.value)


async def test_finished_matches_are_filtered_before_they_are_paged(arena_client: aioredis.Redis) -> None:
    clock = ManualClock()
    store = RedisRecordStore(arena_client)
    outcome = Outcome(Termination.NORMAL, (1, 0), (1, 2))
    for n in range(9):
        players = ("ann", "bob") if n % 3 == 0 else ("cat", "dan")
        await store.save(
            MatchRecord(f"m{n}", "5211", players, n, {}, None, TimeControl(), outcome=outcome, ended_at=float(n))
        )
    lister = MatchLister(MatchManager(SessionHub(clock), clock, store), None)
    seen: list[str] = []
    after = None
    for _ in range(10):
        page, after = await lister.page(MatchQuery(bot="ann"), after, 1)
        seen += [i.match_id for i in page]
        assert len(page) == 1
        if after is None:
            break
    assert seen == ["m6", "m3", "m0"]
    # A node without Redis has no queued matches, and a list of them alone is empty at once.
    assert await lister.page(MatchQuery(phase=Phase.PENDING), None, 5) == ([], None)
    page, after = await lister.page(MatchQuery(), None, 20, phases=(Phase.RUNNING,))
    assert (page, after) == ([], None)
