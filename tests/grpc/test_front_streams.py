"""The bot stream's tests again, with the node behind its front (``arena serve --front``).

Behind the front the node's ``BotServicer.Connect`` takes each of a bot's messages in the call that
brings it from the link, and writes each message for the bot as it is sent, with no task between
(``BotServicer._relay_directly``): a path of its own through the same rules, so the tests of what a
bot may get wrong, of reconnects and of ends told later run on it too (imported below, with this
module's ``arena`` fixture), with a ping flood and a bot that ends its side.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arena.store.embedded import EmbeddedRedis
from arena.v1 import bot_pb2, common_pb2
from tests.grpc.harness import Arena, eventually, limited_arena, stalled_end
from tests.grpc.rawbot import RawBot
from tests.grpc.test_faults import (  # noqa: F401 - collected here again, behind the front
    test_a_bot_that_reconnects_resumes_its_match,
    test_a_disconnect_without_reconnect_forfeits_after_the_grace_period,
    test_a_flooding_bot_is_cut_off_without_disturbing_other_matches,
    test_a_second_connection_replaces_the_first,
    test_decisions_missed_while_away_cost_no_strike_and_the_end_is_told_on_return,
    test_illegal_and_unparseable_actions_are_rejected_with_a_reason,
    test_stale_unknown_and_foreign_actions_get_clear_errors_and_change_nothing,
)
from tests.grpc.test_protocol import (  # noqa: F401 - collected here again, behind the front
    test_a_bot_in_two_seats_must_say_which_seat_it_answers_for,
    test_a_huge_unknown_match_id_is_echoed_truncated,
    test_a_match_end_queued_to_a_dropped_connection_is_told_on_the_next,
    test_an_undecodable_message_after_hello_ends_the_stream_with_invalid_argument,
)
from tests.test_front import BUILT_IN_A_FIXTURE, build_front

pytestmark = BUILT_IN_A_FIXTURE


@pytest.fixture(scope="module")
def front() -> Path:
    """The front, built."""
    return build_front()


@pytest.fixture
async def arena(arena_redis: EmbeddedRedis, front: Path) -> AsyncIterator[Arena]:
    """The harness's ``arena``, behind the front."""
    async with limited_arena(arena_redis, front=front) as served:
        yield served


async def test_a_ping_flood_through_the_front_ends_the_stream_and_the_others_play(
    arena_redis: EmbeddedRedis, front: Path
) -> None:
    async with limited_arena(arena_redis, front=front, pings_per_second=5, ping_burst=20) as arena:
        flooder = await arena.connect("flooder")
        for _ in range(200):
            flooder.outbox.put_nowait(bot_pb2.ConnectRequest(ping=bot_pb2.Ping()))
        await eventually(lambda: flooder.error is not None, 5)
        assert arena.node.hub.sessions["flooder"].last_close_text == "more than 20 pings at once or 5 a second"
        for name in ("p", "q"):
            await arena.connect(name)
        match_id = await arena.start_match(["p", "q"])
        end = await arena.bots[-1].wait_ended(match_id, 20)
        assert end.outcome.termination == common_pb2.TERMINATION_NORMAL


async def test_a_bot_that_ends_its_side_through_the_front_is_disconnected_and_its_stream_ends_ok(
    arena: Arena,
) -> None:
    bot = await arena.connect("leaver")
    bot.outbox.put_nowait(None)  # the raw bot half-closes its stream
    await eventually(lambda: arena.node.hub.sessions["leaver"].connection is None, 5)
    assert arena.node.hub.sessions["leaver"].last_close_text == "the bot closed the stream"
    await eventually(lambda: bot._task is not None and bot._task.done(), 5)
    assert bot.error is None


async def test_a_replaced_stream_keeps_its_match_end_until_it_is_gone_and_the_bot_is_told_once(
    arena: Arena,
) -> None:
    """Behind the front an end is written to the link at once, and the front says when the bot's
    stream took it. A stream closed meanwhile (its bot connected again) keeps the end until the front
    has written it or the stream is gone, as a gRPC write waits: handed to the new connection at
    once, it could be told on both."""
    ended = await stalled_end(arena)
    stalled = arena.node.hub.sessions["dropper"].connection
    await eventually(lambda: stalled is not None and bool(stalled.unconfirmed))
    again = RawBot(arena.address, ended.token).start()  # replaces the stalled stream
    arena.bots.append(again)
    await asyncio.wait_for(again.welcomed.wait(), 10)
    await asyncio.sleep(0.5)
    assert not again.messages("match_ended"), "the end went to the new stream while the old could still take it"
    ended.call.cancel()
    await ended.channel.close()
    await again.wait_ended(ended.match_id, 10)
    await asyncio.sleep(0.3)
    assert len([m for m in again.messages("match_ended") if m.match_id == ended.match_id]) == 1
