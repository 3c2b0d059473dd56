"""Outsiders cannot lock bots out: connection, Hello and ping floods are capped on a real server,
and guesses of the admin token are locked out per address.

Every flood is scaled down through ``Limits`` (a cap of 50 against 200 sockets, and so on) so the
tests are bounded; each ends by checking that a legitimate bot still connects and plays.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

import grpc
import pytest
import redis.asyncio as aioredis

from arena.errors import LimitExceededError, LimitsError
from arena.league.schedule import LeagueSpec
from arena.referee.match import EventKind
from arena.referee.timecontrol import TimeControl
from arena.service import matches as matches_module
from arena.service.leagues import LeagueService
from arena.service.limits import AdminNetworks
from arena.store.embedded import EmbeddedRedis
from arena.v1 import (
    bot_pb2,
    bot_pb2_grpc,
    common_pb2,
    ladder_pb2,
    ladder_pb2_grpc,
    league_pb2,
    league_pb2_grpc,
    match_pb2,
    registry_pb2,
    registry_pb2_grpc,
)
from tests.grpc.harness import ADMIN_METADATA, Arena, eventually, limited_arena
from tests.grpc.rawbot import RawBot
from tests.proxy import StallingProxy
from tests.registered import registered

UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED


async def play_a_normal_match(arena: Arena, names: tuple[str, str]) -> None:
    """Two fresh bots connect and play a match to its normal end, with no timeout."""
    for name in names:
        await arena.connect(name)
    match_id = await arena.start_match(list(names), seed=5)
    end = await arena.bots[-1].wait_ended(match_id, 20)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not arena.bots[-1].messages("action_rejected")


def closed_count(sockets: list[socket.socket]) -> int:
    """How many of these non-blocking sockets the server has closed."""
    closed = 0
    for sock in sockets:
        try:
            while data := sock.recv(65536):
                del data
            closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    return closed


def refused(arena: Arena, reason: str) -> float:
    assert arena.node.metrics is not None
    value: float = arena.node.metrics.hello_refused.labels(reason)._value.get()
    return value


async def test_idle_tcp_connections_are_capped_and_dropped_and_a_bot_still_plays(arena_redis: EmbeddedRedis) -> None:
    async with limited_arena(arena_redis, max_connections=50, handshake_timeout_seconds=3.0) as arena:
        idle = [socket.create_connection(("127.0.0.1", arena.server.port)) for _ in range(200)]
        try:
            for sock in idle:
                sock.setblocking(False)
            # Past the cap a connection is closed at once; the rest when their handshake times out.
            await eventually(lambda: closed_count(idle) >= 150, 2.5)
            await eventually(lambda: closed_count(idle) == 200, 10)
            await play_a_normal_match(arena, ("legit1", "legit2"))
        finally:
            for sock in idle:
                sock.close()


async def test_a_stalled_connection_without_fin_is_noticed_and_the_bot_disconnected(arena_redis: EmbeddedRedis) -> None:
    async with limited_arena(arena_redis, keepalive_seconds=0.5, keepalive_timeout_seconds=1.0) as arena:
        proxy = StallingProxy(arena.server.port)
        port = await proxy.start()
        try:
            token = await arena.register("stalling")
            bot = RawBot(f"127.0.0.1:{port}", token).start()
            arena.bots.append(bot)
            await asyncio.wait_for(bot.welcomed.wait(), 10)
            assert arena.node.hub.sessions["stalling"].connection is not None
            proxy.stalled.set()
            await eventually(lambda: arena.node.hub.sessions["stalling"].connection is None, 6)
        finally:
            await proxy.stop()


async def silent_streams(address: str, count: int) -> list[grpc.aio.AioRpcError]:
    """Open ``count`` bot streams that never send their Hello; the errors they end with."""

    async def one(channel: grpc.aio.Channel) -> grpc.aio.AioRpcError:
        async def nothing() -> AsyncIterator[bot_pb2.ConnectRequest]:
            await asyncio.Event().wait()
            yield bot_pb2.ConnectRequest()

        call = bot_pb2_grpc.BotServiceStub(channel).Connect(nothing())
        try:
            async for _ in call:
                pass
        except grpc.aio.AioRpcError as error:
            return error
        raise AssertionError("a stream without a Hello was not ended")

    channels = [grpc.aio.insecure_channel(address) for _ in range(4)]
    try:
        return list(await asyncio.wait_for(asyncio.gather(*(one(channels[i % 4]) for i in range(count))), 15))
    finally:
        for channel in channels:
            await channel.close()


async def test_streams_without_a_hello_are_capped_and_ended_and_a_bot_still_plays(arena_redis: EmbeddedRedis) -> None:
    async with limited_arena(
        arena_redis, max_pending_hellos=100, max_pending_hellos_per_peer=20, hello_timeout_seconds=1.0
    ) as arena:
        errors = await silent_streams(arena.address, 200)
        codes = [error.code() for error in errors]
        assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) >= 100
        assert codes.count(grpc.StatusCode.INVALID_ARGUMENT) >= 1
        # (UNAVAILABLE: a stream the transport refused, past the per-connection stream cap.)
        assert set(codes) <= {
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            grpc.StatusCode.INVALID_ARGUMENT,
            grpc.StatusCode.UNAVAILABLE,
        }
        assert any("from your address" in (e.details() or "") for e in errors)
        assert refused(arena, "too_many_pending") == codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED)
        assert refused(arena, "timeout") == codes.count(grpc.StatusCode.INVALID_ARGUMENT)
        await play_a_normal_match(arena, ("legit1", "legit2"))


async def test_the_global_cap_on_streams_awaiting_a_hello_holds_over_every_peer(arena_redis: EmbeddedRedis) -> None:
    async with limited_arena(
        arena_redis, max_pending_hellos=10, max_pending_hellos_per_peer=1000, hello_timeout_seconds=1.0
    ) as arena:
        errors = await silent_streams(arena.address, 40)
        exhausted = [e for e in errors if e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED]
        assert len(exhausted) >= 30
        assert "more than 10 bot streams are awaiting their Hello" in (exhausted[0].details() or "")


async def hello_with(address: str, token: str) -> grpc.aio.AioRpcError | None:
    """Send one Hello; the error it is refused with, or None when welcomed.

    Like a real bot, the stream stays open for writing after the Hello.
    """

    async with grpc.aio.insecure_channel(address) as channel:
        return await hello_on(channel, token)


async def hello_on(channel: grpc.aio.Channel, token: str) -> grpc.aio.AioRpcError | None:
    """``hello_with`` on a channel of the caller's."""
    call = bot_pb2_grpc.BotServiceStub(channel).Connect()
    try:
        with contextlib.suppress(asyncio.InvalidStateError):  # ended already: its status says why
            await call.write(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(token=token, games=["5211"])))
        async for response in call:
            if response.WhichOneof("kind") == "welcome":
                call.cancel()
                return None
    except grpc.aio.AioRpcError as error:
        return error
    return None


async def test_token_guessing_is_locked_out_with_backoff_and_counted(arena_redis: EmbeddedRedis) -> None:
    async with limited_arena(arena_redis, hello_failures=3, lockout_seconds=3.0) as arena:
        token = await arena.register("owner")
        errors = [await hello_with(arena.address, f"guess-{i}") for i in range(8)]
        codes = [e.code() if e is not None else None for e in errors]
        assert codes[:3] == [grpc.StatusCode.UNAUTHENTICATED] * 3
        assert codes[3:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 5
        assert errors[3] is not None and "too many refused Hellos" in (errors[3].details() or "")
        assert refused(arena, "bad_token") == 3
        assert refused(arena, "locked_out") == 5
        # The right token is refused too while the address is locked out, and welcomed after.
        assert await hello_with(arena.address, token) is not None
        await asyncio.sleep(3.2)
        assert await hello_with(arena.address, token) is None


async def test_guesses_sent_together_are_locked_out_as_if_one_after_another(arena_redis: EmbeddedRedis) -> None:
    """A trial sent 30 bad Hellos at once from one address each time its lockout ended: all were
    checked against the lockout before the first was counted (the token lookup is a Redis round
    trip), so 5 were compared where one more guess is all a lockout that ends lets through."""
    async with limited_arena(arena_redis, hello_failures=10, lockout_seconds=1.0) as arena:
        await arena.register("owner")
        channels = [grpc.aio.insecure_channel(arena.address) for _ in range(30)]
        compared: list[int] = []
        try:
            await asyncio.gather(*(channel.channel_ready() for channel in channels))
            for wave in range(2):
                await asyncio.sleep(1.1 * wave)  # the lockout has ended
                errors = await asyncio.gather(*(hello_on(c, f"guess-{wave}-{i}") for i, c in enumerate(channels)))
                compared.append([e.code() if e is not None else None for e in errors].count(UNAUTHENTICATED))
        finally:
            await asyncio.gather(*(channel.close() for channel in channels))
        assert compared == [10, 1]
        assert refused(arena, "bad_token") == 11
        assert not arena.node.hello_lockout._turns  # each address's turn goes with its last attempt


async def test_a_locked_out_stream_is_refused_once_its_hello_has_come(arena_redis: EmbeddedRedis) -> None:
    """The refusal waits for the Hello: a client whose write meets a stream already closed is told
    INTERNAL by grpc.aio, not the server's reason (grpc/grpc#36066; a CI run's lockout test saw it)."""
    async with limited_arena(arena_redis, hello_failures=1, lockout_seconds=60.0) as arena:
        assert await hello_with(arena.address, "guess") is not None
        async with grpc.aio.insecure_channel(arena.address) as channel:
            call = bot_pb2_grpc.BotServiceStub(channel).Connect()
            await asyncio.sleep(0.5)
            assert not call.done()
            await call.write(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(token="guess-again", games=["5211"])))
            with pytest.raises(grpc.aio.AioRpcError) as refusal:
                await asyncio.wait_for(call.read(), 5)
        assert refusal.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refusal.value.details() == "too many refused Hellos from your address: try again in 60 s"
        assert refused(arena, "locked_out") == 1


async def test_a_good_token_between_guesses_does_not_clear_them(arena_redis: EmbeddedRedis) -> None:
    """A trial guessed without end by saying Hello with a token of its own between guesses (open
    registration gives anyone one): each good Hello cleared the address's count of refused ones."""
    async with limited_arena(arena_redis, hello_failures=3, lockout_seconds=60.0) as arena:
        own = await arena.register("mine")
        codes = []
        for guess in ("g1", "g2", own, "g3", own):
            error = await hello_with(arena.address, guess)
            codes.append(None if error is None else error.code())
        assert codes == [grpc.StatusCode.UNAUTHENTICATED] * 2 + [None, grpc.StatusCode.UNAUTHENTICATED] + [
            grpc.StatusCode.RESOURCE_EXHAUSTED
        ]


async def test_a_ping_flood_ends_the_stream_and_a_normal_bot_is_untouched(arena_redis: EmbeddedRedis) -> None:
    async with limited_arena(arena_redis, pings_per_second=5, ping_burst=20) as arena:
        flooder = await arena.connect("flooder")
        for _ in range(200):
            flooder.outbox.put_nowait(bot_pb2.ConnectRequest(ping=bot_pb2.Ping()))
        await eventually(lambda: flooder.error is not None, 5)
        reason = arena.node.hub.sessions["flooder"].last_close_text
        assert reason == "more than 20 pings at once or 5 a second"
        assert arena.node.metrics is not None
        assert arena.node.metrics.client_errors.labels("ping_flood")._value.get() == 1
        polite = await arena.connect("polite")
        for _ in range(10):
            polite.outbox.put_nowait(bot_pb2.ConnectRequest(ping=bot_pb2.Ping()))
        await play_a_normal_match(arena, ("legit1", "legit2"))
        assert polite.error is None


@pytest.mark.parametrize("count", [200])
async def test_undecodable_first_messages_are_counted_not_logged_each(count: int, arena_redis: EmbeddedRedis) -> None:
    async with limited_arena(arena_redis, hello_failures=10_000) as arena:
        async with grpc.aio.insecure_channel(arena.address) as channel:
            connect = channel.stream_stream(
                "/arena.v1.BotService/Connect", request_serializer=bytes, response_deserializer=bytes
            )
            for _ in range(count):
                with pytest.raises(grpc.aio.AioRpcError) as raised:
                    async for _ in connect(iter([b"\xff\xff\xff"])):
                        pass
                assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert refused(arena, "undecodable") == count


async def test_open_registration_is_rate_limited_and_grants_no_matches_or_leagues(
    arena_redis: EmbeddedRedis, arena_client: aioredis.Redis
) -> None:
    async with limited_arena(arena_redis, registrations_per_minute=3) as arena:
        arena.node.registry.open_registration = True
        registry = registry_pb2_grpc.RegistryServiceStub(arena.channel)
        for i in range(3):
            await registry.RegisterBot(registry_pb2.RegisterBotRequest(name=f"open{i}"))
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await registry.RegisterBot(registry_pb2.RegisterBotRequest(name="open3"))
        assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "more than 3 bot registrations a minute from your address" in (raised.value.details() or "")
        assert await registered(arena_client) == ["open0", "open1", "open2"]
        for i in range(5):  # the admin is not rate-limited
            await arena.register(f"admin{i}")
        for name in ("mine", "yours"):
            await arena.connect(name)
        request = match_pb2.StartMatchRequest(game="5211", bot_names=["mine", "yours"])
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await arena.matches.StartMatch(request)
        assert raised.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await league_pb2_grpc.LeagueServiceStub(arena.channel).CreateLeague(
                league_pb2.CreateLeagueRequest(spec=league_pb2.LeagueSpec(game="5211", bot_names=["mine", "yours"]))
            )
        assert raised.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert not arena.node.matches.running


async def test_spectator_streams_are_capped_and_one_frees_a_place(arena_redis: EmbeddedRedis) -> None:
    """Every WatchMatch stream is sent (and converted) every event of its match: a trial opened a
    thousand on one match and tripled the node's CPU for it, with no cap (the web site has one)."""
    async with limited_arena(arena_redis, max_watchers=2) as arena:
        for name in ("w1", "w2"):
            await arena.connect(name, think_seconds=0.05)
        match_id = await arena.start_match(["w1", "w2"], seed=3)
        request = match_pb2.WatchMatchRequest(match_id=match_id)
        watching = [arena.matches.WatchMatch(request) for _ in range(2)]
        for call in watching:
            assert (await call.read()) is not grpc.aio.EOF
        refused = arena.matches.WatchMatch(request)
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await refused.read()
        assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error.value.details() == "more than 2 WatchMatch streams are open on this node: try again later"
        watching.pop().cancel()
        for _ in range(100):  # the place frees once the server has seen the cancel
            again = arena.matches.WatchMatch(request)
            code = await first_read(again)
            if code is None:
                break
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, code
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("no place freed for a new WatchMatch stream")
        for call in [*watching, again]:
            call.cancel()


async def test_a_spectator_too_far_behind_is_told_it_was_dropped(
    arena_redis: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spectator that reads slower than its match plays is dropped once its buffer is full; it was
    dropped in silence: it read what was buffered, then waited for ever (its stream, and its place
    under --max-watchers, held until its client left). Now it reads what was buffered, then the
    reason (RESOURCE_EXHAUSTED over gRPC)."""
    monkeypatch.setattr(matches_module, "WATCH_QUEUE_LIMIT", 3)
    async with limited_arena(arena_redis) as arena:
        for name in ("s1", "s2"):
            await arena.connect(name)
        match_id = await arena.start_match(["s1", "s2"], seed=6)
        watch = arena.node.matches.watch(match_id)
        read = [await anext(watch)]  # then it lags: the match plays on
        await arena.node.matches.wait(match_id)
        with pytest.raises(LimitExceededError, match="fell too far behind"):
            async with asyncio.timeout(10):
                read += [event async for event in watch]
        assert 1 <= len(read) <= 4 and read[-1].kind is not EventKind.ENDED


async def first_read(
    call: grpc.aio.UnaryStreamCall[match_pb2.WatchMatchRequest, match_pb2.WatchMatchResponse],
) -> grpc.StatusCode | None:
    """None once the stream's first message has come; the status it was refused with, else."""
    try:
        await call.read()
    except grpc.aio.AioRpcError as error:
        return error.code()
    return None


Metadata = Sequence[tuple[str, str]]
WRONG_ADMIN = (("authorization", "Bearer not-the-admin-token"),)


def admin_calls(arena: Arena) -> list[Callable[[Metadata], Awaitable[object]]]:
    """One call of each RPC that needs the admin token, to be made with the metadata given."""
    matches, channel = arena.matches, arena.channel
    registry = registry_pb2_grpc.RegistryServiceStub(channel)
    leagues = league_pb2_grpc.LeagueServiceStub(channel)
    ladders = ladder_pb2_grpc.LadderServiceStub(channel)
    spec = league_pb2.LeagueSpec(game="5211", bot_names=["ann", "bob"])
    return [
        lambda m: matches.StartMatch(match_pb2.StartMatchRequest(game="5211", bot_names=["ann", "bob"]), metadata=m),
        lambda m: registry.RegisterBot(registry_pb2.RegisterBotRequest(name="carol"), metadata=m),
        lambda m: registry.RevokeToken(registry_pb2.RevokeTokenRequest(name="ann"), metadata=m),
        lambda m: registry.RotateToken(registry_pb2.RotateTokenRequest(name="ann"), metadata=m),
        lambda m: leagues.CreateLeague(league_pb2.CreateLeagueRequest(spec=spec), metadata=m),
        lambda m: leagues.CancelLeague(league_pb2.CancelLeagueRequest(league_id="L1"), metadata=m),
        lambda m: ladders.CreateLadder(
            ladder_pb2.CreateLadderRequest(spec=ladder_pb2.LadderSpec(game="5211", players_per_match=2)), metadata=m
        ),
        lambda m: ladders.PauseLadder(ladder_pb2.PauseLadderRequest(ladder_id="LD1"), metadata=m),
        lambda m: ladders.ResumeLadder(ladder_pb2.ResumeLadderRequest(ladder_id="LD1"), metadata=m),
        lambda m: ladders.RetireBot(ladder_pb2.RetireBotRequest(bot_name="ann"), metadata=m),
    ]


async def status_of(call: Awaitable[object]) -> tuple[grpc.StatusCode, str]:
    """The status a unary call ends with, and its details."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


async def test_admin_token_guesses_are_locked_out_and_then_the_right_token_is_refused_too(
    arena: Arena, arena_client: aioredis.Redis
) -> None:
    """A trial made 300 wrong-token admin calls a second, without end. Wrong tokens on every admin RPC
    count together against the address (10 by default); then every call that says a token is refused
    without it being compared, the admin's own too. Bot tokens are counted apart."""
    token = await arena.register("ann")
    await arena.register("bob")
    calls = admin_calls(arena)
    for i in range(10):
        code, details = await status_of(calls[i % len(calls)](WRONG_ADMIN))
        assert code == grpc.StatusCode.PERMISSION_DENIED, (i, details)
    locked = "too many wrong admin tokens from your address: try again in 30 s"
    for call in calls:
        assert await status_of(call(WRONG_ADMIN)) == (grpc.StatusCode.RESOURCE_EXHAUSTED, locked)
        assert await status_of(call(ADMIN_METADATA)) == (grpc.StatusCode.RESOURCE_EXHAUSTED, locked)
    assert await registered(arena_client) == ["ann", "bob"]  # nothing was done by any of them
    assert await hello_with(arena.address, token) is None  # a bot still says Hello from this address


async def test_a_call_without_an_admin_token_is_no_guess(arena: Arena) -> None:
    """A call that needs the admin token and says none learns nothing of it: refused, not counted
    (an operator who forgot --admin-token is not locked out)."""
    await arena.register("ann")
    for call in admin_calls(arena) * 5:
        code, details = await status_of(call(()))
        assert code == grpc.StatusCode.PERMISSION_DENIED, details
        assert await status_of(call((("authorization", "Bearer "),))) == (code, details)
    rotate = registry_pb2_grpc.RegistryServiceStub(arena.channel).RotateToken
    await rotate(registry_pb2.RotateTokenRequest(name="ann"), metadata=ADMIN_METADATA)


async def test_a_wrong_admin_token_on_a_public_call_counts_as_a_guess(arena: Arena, leagues: LeagueService) -> None:
    """GetLeague answers the admin with the league's seed: a wrong token there told a guesser as much
    as a refusal would. It is counted; once locked out, a call saying a token is refused, and one
    saying none is answered as ever."""
    for name in ("ann", "bob"):
        await arena.register(name)
    await leagues.create(LeagueSpec("LS", "5211", 2, ("ann", "bob"), games_per_pairing=1, seed=7), TimeControl())
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    get = league_pb2.GetLeagueRequest(league_id="LS")
    assert (await stub.GetLeague(get, metadata=ADMIN_METADATA)).league.spec.seed == 7
    for _ in range(5):
        assert not (await stub.GetLeague(get, metadata=WRONG_ADMIN)).league.spec.HasField("seed")
        await stub.ListLeagues(league_pb2.ListLeaguesRequest(), metadata=WRONG_ADMIN)
    for metadata in (WRONG_ADMIN, ADMIN_METADATA):
        code, details = await status_of(stub.GetLeague(get, metadata=metadata))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert details.startswith("too many wrong admin tokens from your address: try again in")
    assert (await stub.GetLeague(get)).league.league_id == "LS"


async def test_an_admin_lockout_ends_and_a_wrong_token_after_it_locks_the_address_again(
    arena_redis: EmbeddedRedis,
) -> None:
    async with limited_arena(arena_redis, admin_token_failures=2, lockout_seconds=0.5) as arena:
        await arena.register("ann")
        rotate = registry_pb2_grpc.RegistryServiceStub(arena.channel).RotateToken
        request = registry_pb2.RotateTokenRequest(name="ann")
        for _ in range(2):
            assert (await status_of(rotate(request, metadata=WRONG_ADMIN)))[0] == grpc.StatusCode.PERMISSION_DENIED
        assert await status_of(rotate(request, metadata=ADMIN_METADATA)) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "too many wrong admin tokens from your address: try again in 1 s",
        )
        await asyncio.sleep(0.6)
        await rotate(request, metadata=ADMIN_METADATA)
        # The right token does not clear the count (a guesser behind the admin's address would go
        # on between the admin's calls): one more wrong token locks the address again at once.
        assert (await status_of(rotate(request, metadata=WRONG_ADMIN)))[0] == grpc.StatusCode.PERMISSION_DENIED
        assert (await status_of(rotate(request, metadata=ADMIN_METADATA)))[0] == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_refused_hellos_do_not_lock_the_admin_out(arena_redis: EmbeddedRedis) -> None:
    async with limited_arena(arena_redis, hello_failures=2, lockout_seconds=60.0) as arena:
        token = await arena.register("ann")
        for guess in ("g1", "g2"):
            assert await hello_with(arena.address, guess) is not None
        refused = await hello_with(arena.address, token)
        assert refused is not None and refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        rotate = registry_pb2_grpc.RegistryServiceStub(arena.channel).RotateToken
        await rotate(registry_pb2.RotateTokenRequest(name="ann"), metadata=ADMIN_METADATA)


async def test_from_outside_the_admin_networks_the_admin_token_is_refused_without_being_compared(
    arena: Arena, arena_client: aioredis.Redis
) -> None:
    """With ``--admin-network``, an address outside them cannot guess the admin token at all, nor
    lock the admin out: every call that says a token, the right one too, is refused naming the
    networks, and none is counted. Bot tokens are not admin tokens: a bot still says Hello."""
    token = await arena.register("ann")
    await arena.register("bob")
    arena.node.admin_networks = AdminNetworks.parse(["10.0.0.0/8", "fd00::/8"])
    refused = "the admin token is accepted only from 10.0.0.0/8, fd00::/8; this call came from 127.0.0.1"
    for call in admin_calls(arena) * 2:
        assert await status_of(call(WRONG_ADMIN)) == (grpc.StatusCode.PERMISSION_DENIED, refused)
        assert await status_of(call(ADMIN_METADATA)) == (grpc.StatusCode.PERMISSION_DENIED, refused)
    assert await registered(arena_client) == ["ann", "bob"]
    assert await hello_with(arena.address, token) is None
    arena.node.admin_networks = AdminNetworks()  # anywhere again: nothing was counted meanwhile
    assert await status_of(admin_calls(arena)[1](ADMIN_METADATA)) == (grpc.StatusCode.OK, "")


async def test_inside_the_admin_networks_wrong_tokens_lock_no_one_out(arena: Arena) -> None:
    """The admin's own network is trusted: a guesser behind the admin's address (a NAT, the same host)
    locked the admin out for up to an hour."""
    await arena.register("ann")
    await arena.register("bob")
    arena.node.admin_networks = AdminNetworks.parse(["127.0.0.0/8"])
    calls = admin_calls(arena)
    for i in range(30):
        code, details = await status_of(calls[i % len(calls)](WRONG_ADMIN))
        assert code == grpc.StatusCode.PERMISSION_DENIED, (i, details)
    assert await status_of(calls[1](ADMIN_METADATA)) == (grpc.StatusCode.OK, "")


@pytest.mark.parametrize("given", ["nonsense", "10.0.0.0/33", "10.0.0.1/8x", ""])
def test_an_admin_network_that_is_none_is_refused_naming_it(given: str) -> None:
    with pytest.raises(LimitsError, match=re.escape(f"--admin-network {given!r} is not")):
        AdminNetworks.parse([given])


@pytest.mark.parametrize(
    ("peer", "inside"),
    [
        ("ipv4:10.1.2.3", True),
        ("ipv4:192.168.0.1", False),
        ("ipv6:[fd00::1]", True),
        ("ipv6:[::ffff:10.0.0.7]", True),  # an IPv4 client of a dual-stack socket
        ("ipv6:%5Bfd00::2%5D", True),  # as gRPC writes an IPv6 peer
        ("ipv6:[::1]", False),
        ("unix:/run/arena.sock", False),
        ("something-else", False),
    ],
)
def test_a_peer_is_inside_the_admin_networks_by_its_address(peer: str, inside: bool) -> None:
    assert AdminNetworks.parse(["10.0.0.0/8", "fd00::/8"]).admits(peer) is inside
    assert AdminNetworks().admits(peer) is None
    assert AdminNetworks.parse(["127.0.0.1"]).admits("unix:/run/arena.sock") is True
