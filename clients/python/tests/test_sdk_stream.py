"""The SDK against a scripted arena: Hello, echo of sequences, supersession, concurrency, reconnects."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc
import pytest
from arena_bot import Bot, ConnectionRefusedByServerError, ConnectionReplacedError, MatchInfo, MatchResult, Turn
from arena_bot.bots import RandomBot
from conftest import STEP, Arena, action_request, match_ended, match_started, states

from arena import wire
from arena.games.g5211 import Game5211
from arena.v1 import bot_pb2, common_pb2

GAME = Game5211()


class RecordingBot(Bot):
    """Answers the first legal action and remembers what it saw."""

    max_concurrent_matches = 2

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.started: list[MatchInfo] = []
        self.ended: list[MatchResult] = []
        self.rejections: list[bot_pb2.ActionRejected] = []

    def act(self, turn: Turn) -> str:
        self.turns.append(turn)
        return turn.legal_actions[0]

    def on_match_start(self, match: MatchInfo) -> None:
        self.started.append(match)

    def on_match_end(self, result: MatchResult) -> None:
        self.ended.append(result)

    def on_action_rejected(self, rejection: bot_pb2.ActionRejected) -> None:
        self.rejections.append(rejection)


@contextlib.asynccontextmanager
async def running(bot: Bot, address: str | Sequence[str], **options: Any) -> AsyncIterator[asyncio.Task[None]]:
    """Run ``bot`` in the background; stop it (and surface its errors) at the end."""
    task = asyncio.create_task(
        bot.run_async(address, "secret-token", initial_backoff=0.01, max_backoff=0.05, **options)
    )
    try:
        yield task
    finally:
        bot.stop()
        await asyncio.wait_for(task, STEP)


async def test_hello_then_one_action_echoes_match_and_sequence(arena: Arena) -> None:
    bot = RecordingBot()
    state = next(states())
    async with running(bot, arena.address):
        peer = await arena.service.next_peer()
        hello = await peer.welcome()
        assert hello.token == "secret-token"
        assert list(hello.games) == []  # a Bot plays every game it is registered for unless it names some
        assert hello.max_concurrent_matches == 2
        assert hello.client_name == "arena-bot"
        await peer.send(match_started=match_started("m1", seat=0))
        await peer.send(action_request=action_request("m1", 7, state))
        action = await peer.recv_kind("action")
        assert (action.match_id, action.sequence) == ("m1", 7)
        assert action.text == str(GAME.legal_actions(state, 0)[0])
    (turn,) = bot.turns
    assert turn.observation == GAME.observe(state, 0)
    assert turn.game == "5211"
    assert turn.seat == 0
    assert turn.match is not None
    assert turn.match.bot_names == ("bot0", "bot1", "bot2")
    assert turn.match.time_control.strike_limit == 3
    assert turn.match.options == {"long_game": False}
    assert 0 < turn.time_left() <= 11
    assert [m.match_id for m in bot.started] == ["m1"]


async def test_two_seats_of_one_match_are_played_apart_and_each_answer_echoes_its_seat(arena: Arena) -> None:
    bot = RecordingBot()
    state = next(states())
    async with running(bot, arena.address):
        peer = await arena.service.next_peer()
        await peer.welcome()
        await peer.send(match_started=match_started("m1", seat=0))
        await peer.send(match_started=match_started("m1", seat=2))
        # Sequence numbers count each seat's requests: both seats get a request 1.
        await peer.send(action_request=action_request("m1", 1, state, seat=0))
        await peer.send(action_request=action_request("m1", 1, state, seat=2))
        actions = [await peer.recv_kind("action"), await peer.recv_kind("action")]
        assert sorted((a.match_id, a.seat, a.sequence) for a in actions) == [("m1", 0, 1), ("m1", 2, 1)]
        assert all(a.HasField("seat") for a in actions)
        await peer.send(match_ended=match_ended("m1", seat=0))
        await peer.send(match_ended=match_ended("m1", seat=2))
        for _ in range(100):
            if len(bot.ended) == 2:
                break
            await asyncio.sleep(0.01)
    assert sorted(m.seat for m in bot.started) == [0, 2]
    assert sorted(t.seat for t in bot.turns) == [0, 2]
    assert len(bot.ended) == 2


async def test_a_superseded_request_is_not_answered(arena: Arena) -> None:
    release = asyncio.Event()

    class SlowFirst(Bot):
        async def act(self, turn: Turn) -> str:
            if turn.sequence == 1:
                await release.wait()
            return turn.legal_actions[-1]

    game_states = states()
    first, second = next(game_states), next(game_states)
    async with running(SlowFirst(), arena.address):
        peer = await arena.service.next_peer()
        await peer.welcome()
        await peer.send(match_started=match_started("m1"))
        await peer.send(action_request=action_request("m1", 1, first))
        await peer.send(action_request=action_request("m1", 2, second))
        action = await peer.recv_kind("action")
        assert action.sequence == 2
        assert action.text == str(GAME.legal_actions(second, 0)[-1])
        release.set()
        with pytest.raises(TimeoutError):
            await peer.recv_kind("action", wait=0.3)


async def test_sync_acts_of_two_matches_run_at_once(arena: Arena) -> None:
    barrier = threading.Barrier(2, timeout=STEP)

    class Meeting(Bot):
        max_concurrent_matches = 2

        def act(self, turn: Turn) -> str:
            barrier.wait()  # passes only if both matches' decisions run at the same time
            return turn.legal_actions[0]

    state = next(states())
    async with running(Meeting(), arena.address):
        peer = await arena.service.next_peer()
        await peer.welcome()
        for match_id in ("a", "b"):
            await peer.send(match_started=match_started(match_id))
            await peer.send(action_request=action_request(match_id, 1, state))
        answers = {(await peer.recv_kind("action")).match_id for _ in range(2)}
        assert answers == {"a", "b"}


async def test_async_acts_of_two_matches_run_at_once(arena: Arena) -> None:
    arrived: dict[str, asyncio.Event] = {"a": asyncio.Event(), "b": asyncio.Event()}

    class Meeting(Bot):
        async def act(self, turn: Turn) -> str:
            arrived[turn.match_id].set()
            other = "b" if turn.match_id == "a" else "a"
            await asyncio.wait_for(arrived[other].wait(), STEP)
            return turn.legal_actions[0]

    state = next(states())
    async with running(Meeting(), arena.address):
        peer = await arena.service.next_peer()
        await peer.welcome()
        for match_id in ("a", "b"):
            await peer.send(match_started=match_started(match_id))
            await peer.send(action_request=action_request(match_id, 1, state))
        answers = {(await peer.recv_kind("action")).match_id for _ in range(2)}
        assert answers == {"a", "b"}


async def test_reconnect_says_hello_again_and_answers_the_resent_request(arena: Arena) -> None:
    bot = RecordingBot()
    game_states = states()
    first, second = next(game_states), next(game_states)
    async with running(bot, arena.address):
        peer = await arena.service.next_peer()
        await peer.welcome()
        await peer.send(match_started=match_started("m1"))
        await peer.send(action_request=action_request("m1", 3, first))
        answered = await peer.recv_kind("action")
        peer.end(grpc.StatusCode.UNAVAILABLE, "node restarting")

        peer = await arena.service.next_peer()
        hello = await peer.welcome()
        assert hello.token == "secret-token"
        # The server resends the match start and the pending request, with the same sequence.
        await peer.send(match_started=match_started("m1"))
        await peer.send(action_request=action_request("m1", 3, first))
        again = await peer.recv_kind("action")
        assert (again.sequence, again.text) == (3, answered.text)
        await peer.send(action_request=action_request("m1", 4, second))
        assert (await peer.recv_kind("action")).sequence == 4
        await peer.send(match_ended=match_ended("m1"))
        await asyncio.sleep(0.05)
    assert [m.match_id for m in bot.started] == ["m1"]  # once, not again on the resend
    assert len(bot.turns) == 2  # the resent request was answered from the cache
    (result,) = bot.ended
    assert result.won
    assert result.placing == 1
    assert result.score == 10


async def test_a_decision_in_flight_when_the_stream_drops_is_answered_on_the_new_stream(arena: Arena) -> None:
    release = threading.Event()
    calls: list[int] = []

    class Slow(Bot):
        def act(self, turn: Turn) -> str:
            calls.append(turn.sequence)
            release.wait(STEP)
            return turn.legal_actions[0]

    state = next(states())
    async with running(Slow(), arena.address):
        peer = await arena.service.next_peer()
        await peer.welcome()
        await peer.send(match_started=match_started("m1"))
        await peer.send(action_request=action_request("m1", 5, state))
        await asyncio.sleep(0.05)
        peer.end()  # a clean end of stream: the bot must come back too
        peer = await arena.service.next_peer()
        await peer.welcome()
        await peer.send(match_started=match_started("m1"))
        await peer.send(action_request=action_request("m1", 5, state))
        release.set()
        action = await peer.recv_kind("action")
        assert action.sequence == 5
        with pytest.raises(TimeoutError):
            await peer.recv_kind("action", wait=0.3)
    assert calls == [5]


def _dead_address() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


async def test_the_next_address_is_tried_when_one_fails(arena: Arena) -> None:
    async with running(RecordingBot(), [_dead_address(), arena.address]):
        peer = await arena.service.next_peer()
        hello = await peer.welcome()
        assert hello.token == "secret-token"


async def test_a_refused_token_stops_the_bot(arena: Arena) -> None:
    task = asyncio.create_task(RecordingBot().run_async(arena.address, "wrong", initial_backoff=0.01))
    peer = await arena.service.next_peer()
    await peer.recv_kind("hello")
    peer.end(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
    with pytest.raises(ConnectionRefusedByServerError, match="UNAUTHENTICATED"):
        await asyncio.wait_for(task, STEP)


async def test_a_replaced_connection_does_not_come_back(arena: Arena) -> None:
    task = asyncio.create_task(RecordingBot().run_async(arena.address, "t", initial_backoff=0.01))
    peer = await arena.service.next_peer()
    await peer.welcome()
    peer.end(grpc.StatusCode.ABORTED, "replaced by a newer connection of the same bot")
    with pytest.raises(ConnectionReplacedError, match="replaced by a newer connection"):
        await asyncio.wait_for(task, STEP)


async def test_pings_at_the_keep_alive_interval_and_a_silent_stream_is_dropped(arena: Arena) -> None:
    async with running(RecordingBot(), arena.address):
        peer = await arena.service.next_peer()
        await peer.welcome(keep_alive=0.05)
        ping = await peer.recv_kind("ping")
        assert ping.client_time.seconds > 0
        # The server says nothing more: after a few intervals the bot reconnects.
        peer = await arena.service.next_peer()
        await peer.welcome()


async def test_a_failing_act_answers_the_first_legal_action(arena: Arena, caplog: pytest.LogCaptureFixture) -> None:
    class Broken(Bot):
        def act(self, turn: Turn) -> str:
            raise RuntimeError("boom")

    state = next(states())
    with caplog.at_level(logging.WARNING, logger="arena_bot"):
        async with running(Broken(), arena.address):
            peer = await arena.service.next_peer()
            await peer.welcome()
            await peer.send(action_request=action_request("m1", 1, state))
            action = await peer.recv_kind("action")
            assert action.text == str(GAME.legal_actions(state, 0)[0])
    assert "act failed" in caplog.text


async def test_rejections_and_protocol_errors_are_reported(arena: Arena, caplog: pytest.LogCaptureFixture) -> None:
    bot = RecordingBot()
    rejection = bot_pb2.ActionRejected(
        match_id="m1",
        sequence=1,
        fault=common_pb2.FAULT_ILLEGAL_ACTION,
        reason="illegal action",
        fallback_action="B1 B2",
        strikes=1,
        strike_limit=3,
    )
    with caplog.at_level(logging.WARNING, logger="arena_bot"):
        async with running(bot, arena.address):
            peer = await arena.service.next_peer()
            await peer.welcome()
            await peer.send(action_rejected=rejection)
            await peer.send(error=bot_pb2.ProtocolError(match_id="m9", sequence=4, reason="unknown match 'm9'"))
            await peer.send(keep_alive=bot_pb2.KeepAlive())
            await asyncio.sleep(0.1)
    assert bot.rejections == [rejection]
    assert "unknown match 'm9'" in caplog.text


async def test_max_matches_ends_the_run(arena: Arena) -> None:
    bot = RandomBot(seed=1)
    task = asyncio.create_task(bot.run_async(arena.address, "t", max_matches=1, initial_backoff=0.01))
    peer = await arena.service.next_peer()
    await peer.welcome()
    await peer.send(match_started=match_started("m1"))
    await peer.send(match_ended=match_ended("m1"))
    await asyncio.wait_for(task, STEP)


async def test_a_whole_match_against_the_engine(arena: Arena) -> None:
    """Drive a real 2-player match through the stream: the heuristic bot in seat 0, random elsewhere."""
    from arena_bot.bots import HeuristicBot

    state = GAME.initial_state(2, 42)
    async with running(HeuristicBot(seed=3), arena.address):
        peer = await arena.service.next_peer()
        await peer.welcome()
        await peer.send(match_started=match_started("m1", seat=0, num_players=2))
        sequence = 0
        while GAME.to_move(state):
            sequence += 1
            await peer.send(action_request=action_request("m1", sequence, state))
            action = await peer.recv_kind("action")
            assert action.sequence == sequence
            mine = GAME.check_action(state, 0, GAME.parse_action(action.text))
            state = GAME.apply(state, {0: mine, 1: GAME.legal_actions(state, 1)[0]})
        outcome = GAME.outcome(state)
        assert outcome is not None
        await peer.send(match_ended=bot_pb2.MatchEnded(match_id="m1", seat=0, outcome=wire.outcome_to_proto(outcome)))
