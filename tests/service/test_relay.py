"""Matches across nodes (arena.service.relay) through real node inboxes on a real redis-server: the
referee's seat and the home node's proxy pass the start, requests, answers and the end in order,
a bot that is nowhere is gone, and a dead referee's seats are dropped."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from arena.errors import SeatGoneError, StoredDataError
from arena.games.base import Outcome, Termination
from arena.games.lookup import get_game
from arena.grpc import convert
from arena.referee.seat import DecisionRequest, MatchEnd, MatchStart
from arena.referee.timecontrol import TimeControl
from arena.service.relay import Home, ProxySeat, Relay, RelayKind, RelaySeat
from arena.service.sessions import Connection, Outgoing, Relayed, SessionHub
from arena.store.nodes import NodeDirectory
from arena.store.relay import BotDirectory, RelayStore
from tests.referee.doubles import ManualClock

ACTION = "the bot's answer"
START = MatchStart("m1", "5211", 0, ("ann", "bob"), TimeControl(disconnect_grace=5.0), {})


def encode(message: Outgoing) -> bytes:
    """What the node puts on the wire (the gRPC layer's converter)."""
    return convert.outgoing_to_wire(message)


def request(sequence: int) -> DecisionRequest:
    """A real first request of a 5211 match, for seat 0."""
    rules = get_game("5211")
    state = rules.initial_state(2, 0, {})
    legal = [str(action) for action in rules.legal_actions(state, 0)]
    return DecisionRequest("m1", "5211", sequence, 0, rules.observe(state, 0), legal, legal[0], 0.0, 1.0, 10.0)


class Node:
    """One node's relay, with what it has read of its inbox so far."""

    def __init__(self, client: aioredis.Redis, node_id: str, clock: ManualClock) -> None:
        self.hub = SessionHub(clock)
        self.relay = Relay(RelayStore(client, node_id), self.hub, clock, encode)
        self.last = "0"

    async def pump(self, count: int) -> list[dict[str, str]]:
        """Handle the next ``count`` messages of this node's inbox (waiting a bounded while for them)."""
        handled: list[dict[str, str]] = []
        for _ in range(20):
            if len(handled) >= count:
                break
            for entry, fields in await self.relay.store.read(self.last, count - len(handled), block_ms=100):
                self.last = entry
                self.relay.handle(fields)
                handled.append(fields)
        assert len(handled) == count, f"expected {count} messages, got {handled}"
        return handled

    def stop(self) -> None:
        for task in [*self.relay.senders.values(), *self.relay.pending_sends, self.relay.follower]:
            if task is not None:
                task.cancel()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def nodes(client: aioredis.Redis, clock: ManualClock) -> AsyncIterator[tuple[Node, Node]]:
    """Node A referees; node B is the home of bot ann."""
    a, b = Node(client, "node-a", clock), Node(client, "node-b", clock)
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def drain(connection: Connection) -> Iterator[Outgoing]:
    while len(connection.outbox):
        message = connection.outbox.get_nowait()
        if message is not None:  # None would close the stream
            yield message


async def test_a_match_is_played_through_the_home_node_in_order(nodes: tuple[Node, Node], clock: ManualClock) -> None:
    a, b = nodes
    connection = b.hub.connect("ann", ["5211"], capacity=1)
    seat = RelaySeat(a.relay, Home("node-b", "b1"), "ann", "m1", 0, "5211")
    await seat.match_started(START)
    answer = seat.decide(request(1))
    assert [RelayKind(m["t"]) for m in await b.pump(2)] == [RelayKind.START, RelayKind.REQUEST]
    assert list(drain(connection)) == [Relayed(encode(START)), Relayed(encode(request(1)))]
    proxy = b.hub.sessions["ann"].seats["m1"][0]
    assert isinstance(proxy, ProxySeat) and proxy.origin == "node-a" and proxy.grace_seconds == 5.0
    assert proxy.answer(2, ACTION) == "stale sequence 2 in match m1: the current request is 1"
    assert proxy.answer(1, ACTION) is None
    assert proxy.answer(1, ACTION) is not None  # answered already: not forwarded twice
    await a.pump(1)
    assert await asyncio.wait_for(answer, 1) == ACTION
    end = MatchEnd("m1", 0, Outcome(Termination.NORMAL, (1, 0), (1, 2)))
    await seat.match_ended(end)
    await b.pump(1)
    assert list(drain(connection)) == [Relayed(encode(end))]
    assert "m1" not in b.hub.sessions["ann"].seats
    assert a.relay.origin_seats == {}


async def test_a_bot_not_connected_at_its_home_has_its_grace_period_there_then_is_gone(
    nodes: tuple[Node, Node], clock: ManualClock
) -> None:
    """Node B once answered a start for a bot it had no connection of with "gone" at once (or,
    holding an old session of the bot, seated it and said nothing): the bot, which had just left,
    had no grace period to come back in, as it has when it leaves mid-match."""
    a, b = nodes
    seat = RelaySeat(a.relay, Home("node-b", "b1"), "ann", "m1", 0, "5211")
    await seat.match_started(START)
    answer = seat.decide(request(1))
    await b.pump(2)
    assert [RelayKind(m["t"]) for m in await a.pump(1)] == [RelayKind.PRESENCE]
    seen = [seat.is_connected, answer.done()]
    again = b.hub.connect("ann", ["5211"], capacity=1)  # back within the grace period
    await a.pump(1)
    assert [*seen, seat.is_connected] == [False, False, True]
    assert list(drain(again)) == [Relayed(encode(START)), Relayed(encode(request(1)))]
    b.hub.disconnect(again)
    await a.pump(1)
    await clock.advance(START.time_control.disconnect_grace)
    assert [RelayKind(m["t"]) for m in await a.pump(1)] == [RelayKind.GONE]
    with pytest.raises(SeatGoneError, match="bot ann is gone from match m1"):
        await asyncio.wait_for(answer, 1)
    with pytest.raises(SeatGoneError, match="bot ann left match m1"):
        await seat.decide(request(2))


async def test_a_node_the_bot_has_left_cannot_end_its_seat(
    client: aioredis.Redis, nodes: tuple[Node, Node], clock: ManualClock
) -> None:
    """A node the bot left tells the referee the bot is gone when its grace period there ends,
    though the bot may play on from another node: the word of a node that is not the seat's home
    is ignored, and the home's own is checked against the directory."""
    a, b = nodes
    first = b.hub.connect("ann", ["5211"], capacity=1)
    seat = RelaySeat(a.relay, Home("node-b", "b1"), "ann", "m1", 0, "5211")
    await seat.match_started(START)
    answer = seat.decide(request(1))
    await b.pump(2)
    b.hub.disconnect(first)
    await a.pump(1)  # away
    await NodeDirectory(client, "node-c", "127.0.0.1:1").beat({})
    seat.home = Home("node-c", "c1")  # the referee has seen it on node C
    await clock.advance(START.time_control.disconnect_grace)
    assert [RelayKind(m["t"]) for m in await a.pump(1)] == [RelayKind.GONE]  # from node B
    await asyncio.sleep(0)
    assert not seat.gone and not answer.done()
    # Its home says it is gone, but the directory has it on node C's new start: it moves there.
    instance = (await a.relay.store.instances(["node-c"]))["node-c"]
    assert instance is not None
    await BotDirectory(client, "node-c").here({"ann": 1})
    seat.relay.send("node-a", {"t": "gone", "match": "m1", "bot": "ann", "seat": "0", "node": "node-c"})
    await a.pump(1)
    await asyncio.gather(*a.relay.pending_sends)
    assert seat.home == Home("node-c", instance) and not seat.gone and not answer.done()


async def test_the_home_node_tells_the_referee_when_its_bot_leaves_and_comes_back(nodes: tuple[Node, Node]) -> None:
    a, b = nodes
    first = b.hub.connect("ann", ["5211"], capacity=1)
    seat = RelaySeat(a.relay, Home("node-b", "b1"), "ann", "m1", 0, "5211")
    await seat.match_started(START)
    seat.decide(request(1))
    await b.pump(2)
    seen = [seat.is_connected]
    b.hub.disconnect(first)
    await a.pump(1)
    seen.append(seat.is_connected)
    again = b.hub.connect("ann", ["5211"], capacity=1)
    await a.pump(1)
    seen.append(seat.is_connected)
    assert seen == [True, False, True]
    # The new connection gets the start and the pending request again.
    assert list(drain(again))[-2:] == [Relayed(encode(START)), Relayed(encode(request(1)))]


async def test_a_pending_request_follows_its_bot_to_another_node_or_finds_it_gone(
    client: aioredis.Redis, nodes: tuple[Node, Node], clock: ManualClock
) -> None:
    a, _ = nodes
    c = Node(client, "node-c", clock)
    try:
        seat = RelaySeat(a.relay, Home("node-b", "b1"), "ann", "m1", 0, "5211")
        await seat.match_started(START)
        answer = seat.decide(request(1))
        # The bot reconnected to node C (alive): the start and the request are sent there.
        await NodeDirectory(client, "node-c", "127.0.0.1:1").beat({})
        await BotDirectory(client, "node-c").here({"ann": 1})
        c.hub.connect("ann", ["5211"], capacity=1)
        await seat.check()
        assert seat.home.node == "node-c"
        assert [m["t"] for m in await c.pump(2)] == ["start", "request"]
        # Then it is on no node: gone once the grace period has passed.
        await BotDirectory(client, "node-c").gone("ann")
        await seat.check()
        assert not seat.is_connected and not answer.done()
        await clock.advance(START.time_control.disconnect_grace)
        await seat.check()
        with pytest.raises(SeatGoneError, match="bot ann is on no node of the arena"):
            await asyncio.wait_for(answer, 1)
    finally:
        c.stop()


async def test_a_pending_request_is_sent_again_to_its_bots_node_restarted_under_its_id(
    client: aioredis.Redis, nodes: tuple[Node, Node]
) -> None:
    """A node restarted after a crash takes its id back with none of the old instance's seats or
    requests: the referee, which compared only node ids, saw its bot there again and waited for an
    answer to a request the bot never got, and then for every later one."""
    a, b = nodes
    before = NodeDirectory(client, "node-b", "127.0.0.1:1")
    await before.beat({})
    await BotDirectory(client, "node-b").here({"ann": 1})
    b.hub.connect("ann", ["5211"], capacity=1)
    home = await a.relay.locate("ann")
    assert home == Home("node-b", before.instance)
    seat = RelaySeat(a.relay, home, "ann", "m1", 0, "5211")
    await seat.match_started(START)
    answer = seat.decide(request(1))
    assert [m["t"] for m in await b.pump(2)] == ["start", "request"]
    await seat.check()
    assert await b.relay.store.read(b.last, 10, 1) == []  # the same instance: nothing sent again
    await client.delete("arena:node:node-b")
    after = NodeDirectory(client, "node-b", "127.0.0.1:1")
    await after.beat({})
    b.hub = SessionHub(ManualClock())  # the new instance's, without the seat
    b.relay.hub = b.hub
    b.hub.connect("ann", ["5211"], capacity=1)
    await seat.check()
    assert [m["t"] for m in await b.pump(2)] == ["start", "request"]
    assert [type(s) for s in b.hub.sessions["ann"].all_seats()] == [ProxySeat]
    assert seat.home == Home("node-b", after.instance) and not answer.done()


async def test_a_seat_whose_referee_node_has_died_is_dropped_after_two_checks(
    client: aioredis.Redis, nodes: tuple[Node, Node]
) -> None:
    a, b = nodes
    b.hub.connect("ann", ["5211"], capacity=1)
    await RelaySeat(a.relay, Home("node-b", "b1"), "ann", "m1", 0, "5211").match_started(START)
    await b.pump(1)
    proxy = b.hub.sessions["ann"].seats["m1"][0]
    assert isinstance(proxy, ProxySeat)
    beat = NodeDirectory(client, "node-a", "127.0.0.1:1")
    await beat.beat({})
    await b.relay.check_origins()
    seen = [(proxy.origin_missed, proxy.is_stale())]
    await client.delete("arena:node:node-a")  # its heartbeat expired
    for _ in range(2):
        await b.relay.check_origins()
        seen.append((proxy.origin_missed, proxy.is_stale()))
    assert seen == [(False, False), (True, False), (True, True)]
    assert proxy.origin_gone


async def test_a_node_starts_a_match_another_asks_for_or_says_why_not(nodes: tuple[Node, Node]) -> None:
    a, b = nodes
    asked: list[dict[str, Any]] = []

    async def adopt(spec: dict[str, Any]) -> str:
        asked.append(spec)
        return "m-new"

    refused = asyncio.ensure_future(a.relay.start_at("node-b", {"game": "5211"}, seconds=5))
    await b.pump(1)
    await a.pump(1)
    reply = await asyncio.wait_for(refused, 1)
    assert (reply["error"], reply["text"]) == ("ArenaError", "node node-b does not start matches for other nodes")
    b.relay.adopt = adopt
    started = asyncio.ensure_future(a.relay.start_at("node-b", {"game": "5211"}, seconds=5))
    await b.pump(1)
    await a.pump(1)
    assert (await asyncio.wait_for(started, 1))["match"] == "m-new"
    assert asked == [{"game": "5211"}] and a.relay.replies == {}


async def test_a_bot_on_a_dead_node_is_nowhere(client: aioredis.Redis, nodes: tuple[Node, Node]) -> None:
    a, _ = nodes
    await BotDirectory(client, "node-b").here({"ann": 1})
    assert await a.relay.locate("ann") is None  # node B has no heartbeat
    beat = NodeDirectory(client, "node-b", "127.0.0.1:1")
    await beat.beat({})
    assert await a.relay.locate("ann") == Home("node-b", beat.instance)
    assert await a.relay.locate("bob") is None


def test_a_message_of_an_unknown_kind_is_refused_naming_it(client: aioredis.Redis) -> None:
    relay = Relay(RelayStore(client, "node-a"), SessionHub(ManualClock()), ManualClock(), encode)
    with pytest.raises(StoredDataError, match="unknown relay message kind 'hello'"):
        relay.handle({"t": "hello", "match": "m1"})
    with pytest.raises(StoredDataError, match=r"\(300 characters\)"):
        RelayKind.parse("x" * 300)
    assert json.loads(json.dumps(RelayKind.ANSWER)) == "answer"


async def test_a_spec_the_other_node_cannot_read_is_answered_not_left_to_time_out(nodes: tuple[Node, Node]) -> None:
    a, b = nodes

    async def adopt(spec: dict[str, Any]) -> str:
        return str(spec["bot_names"])  # this spec has none: a KeyError, as a spec from a newer node may give

    b.relay.adopt = adopt
    asked = asyncio.ensure_future(a.relay.start_at("node-b", {"game": "5211"}, seconds=5))
    await b.pump(1)
    await a.pump(1)
    reply = await asyncio.wait_for(asked, 1)
    assert reply["error"] == "KeyError" and "bot_names" in reply["text"]


async def test_a_node_that_has_had_no_message_yet_misses_none(client: aioredis.Redis, clock: ManualClock) -> None:
    """A node read its inbox from ``$`` (new entries only) until its first message came, so one posted
    between two of its reads while it had had none was never read: a start passed on to a node that
    had just started went unanswered (a CI run timed out on it)."""
    sender = RelayStore(client, "node-a")

    class PostedBetweenReads(RelayStore):
        reads = 0

        async def read(self, last: str, count: int, block_ms: int) -> list[tuple[str, dict[str, str]]]:
            found = await super().read(last, count, block_ms)
            self.reads += 1
            if self.reads == 1:  # after the first read, before the next
                await sender.post("node-b", [{"t": RelayKind.ADOPTED.value, "req": "r1", "match": "m1"}])
            return found

    relay = Relay(PostedBetweenReads(client, "node-b"), SessionHub(clock), clock, encode)
    answered: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()
    relay.replies["r1"] = answered
    stop = asyncio.Event()
    running = asyncio.ensure_future(relay.run(stop, await relay.store.tail()))
    try:
        assert (await asyncio.wait_for(answered, 5))["match"] == "m1"
    finally:
        stop.set()
        await asyncio.wait_for(running, 5)
