"""FOOL! hides hands: through the real gRPC server, nothing a bot or a spectator receives tells it a card
of another seat's hand before the card is played or the round is scored.

Eight proto-only bots play FOOL!; one of them also sends cards it does not hold (likely some other seat's),
unparseable tokens and answers for a seat it does not hold. Every ActionRequest must equal the engine's
observation of that seat in the true state rebuilt from the record; every rejection reason and protocol
error may name only the bot's own cards and what it sent; every spectator view is a public view (no
hand); while the match runs, its listing and record give away nothing of the deal.
"""

from __future__ import annotations

import asyncio
import re

import grpc
import pytest

from arena.catalogue import observation_to_proto
from arena.games import get_game
from arena.games.fool import Card, State
from arena.referee.timecontrol import TimeControl
from arena.v1 import bot_pb2, common_pb2, match_pb2
from arena.wire import record as wire_record
from tests.grpc.harness import Arena
from tests.grpc.rawbot import Chooser, RawBot, random_chooser

GAME = get_game("fool")
TOKEN = re.compile(r"\b[GRYBW]\d{1,2}\b")
NOTATION = "G2-G27, R2-R23, Y2-Y21, B2-B15 or the wild W1"
"""The card ranges an invalid-token reason spells out: public, the same for every seat."""
SUMMARY_FIELDS = {
    "match_id",
    "game",
    "state",
    "bot_names",
    "options",
    "time_control",
    "outcome",
    "created_at",
    "started_at",
    "ended_at",
}


async def fool_bot(arena: Arena, name: str, chooser: Chooser) -> RawBot:
    bot = RawBot(arena.address, await arena.register(name), chooser, 8, games=("fool",)).start()
    arena.bots.append(bot)
    await bot.welcomed.wait()
    return bot


def mistaken() -> Chooser:
    """Every third request: a card it does not hold (another seat's, or out of play), then a token that is
    no card; otherwise a random legal card."""
    legal = random_chooser(5)
    count = 0

    def choose(request: bot_pb2.ActionRequest) -> str:
        nonlocal count
        count += 1
        view = request.observation.game_fool
        if count % 6 == 1:
            return next(c for c in view.cards_in_play if c not in view.hand)
        if count % 6 == 4:
            return "Q77"
        return legal(request)

    return choose


async def test_a_fool_match_tells_each_seat_its_own_hand_only(arena: Arena) -> None:
    names = [f"f{i}" for i in range(8)]
    pending: asyncio.Queue[bot_pb2.ActionRequest] = asyncio.Queue()
    held = {"on": True}

    def holding(request: bot_pb2.ActionRequest) -> str | None:
        if held["on"]:
            pending.put_nowait(request)
            return None
        return random_chooser(9)(request)

    bots = [await fool_bot(arena, names[0], holding)]
    bots.append(await fool_bot(arena, names[1], mistaken()))
    bots += [await fool_bot(arena, name, random_chooser(i)) for i, name in enumerate(names[2:], 2)]
    tc = TimeControl(decision_allowance=10.0, time_bank=0.0, strike_limit=1000, disconnect_grace=5.0)
    match_id = await arena.start_match(names, seed=4242, tc=tc, game="fool")
    views: list[match_pb2.WatchMatchResponse] = []

    async def watch() -> None:
        async for event in arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id)):
            views.append(event)

    watcher = asyncio.ensure_future(watch())
    first = await asyncio.wait_for(pending.get(), 20)
    # While it runs: its listing holds no seed, deal or hand, and its record is not released.
    listed = (await arena.matches.ListMatches(match_pb2.ListMatchesRequest(page_size=5))).matches
    summary = next(s for s in listed if s.match_id == match_id)
    assert summary.state == match_pb2.MATCH_STATE_RUNNING
    assert {f.name for f, _ in summary.ListFields()} <= SUMMARY_FIELDS
    assert not TOKEN.search(str(summary)), str(summary)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await arena.record(match_id)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert not TOKEN.search(refused.value.details() or "")
    # A protocol error (a seat it does not hold) names no card.
    bots[1].send_action(match_id, 1, "G2", seat=5)
    held["on"] = False
    bots[0].send_action(match_id, first.sequence, first.legal_actions[0], seat=first.seat)
    while not pending.empty():
        request = pending.get_nowait()
        bots[0].send_action(match_id, request.sequence, request.legal_actions[0], seat=request.seat)
    end = await bots[0].wait_ended(match_id, 120)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    await asyncio.wait_for(watcher, 10)

    record = await arena.record(match_id)
    states: list[State] = list(wire_record.iter_states(record))
    checked = 0
    for seat, bot in enumerate(bots):
        requests = [r for r in bot.messages("action_request") if r.match_id == match_id]
        assert requests, f"seat {seat} was never asked"
        for request in requests:
            step = next(
                i for i, s in enumerate(states) if not s.finished and s.to_play[0] == seat and _asked(s, request)
            )
            state = states[step]
            assert request.observation == observation_to_proto(GAME.observe(state, seat))
            assert list(request.observation.game_fool.hand) == [str(c) for c in state.hands[seat]]
            assert list(request.legal_actions) == [str(c) for c in GAME.legal_actions(state, seat)]
            checked += 1
    assert checked == len(states) - 1

    rejections = [r for r in bots[1].messages("action_rejected") if r.match_id == match_id]
    assert len(rejections) >= 4
    asked = {r.sequence: r for r in bots[1].messages("action_request") if r.match_id == match_id}
    for rejection in rejections:
        request = asked[rejection.sequence]
        own = set(request.observation.game_fool.hand)
        sent = next(c for c in request.observation.game_fool.cards_in_play if c not in own)
        assert set(TOKEN.findall(rejection.reason.replace(NOTATION, ""))) <= own | {sent}, rejection.reason
    errors = bots[1].messages("error")
    assert errors, "the answer for seat 5 was refused"
    assert all(not TOKEN.search(error.reason) for error in errors), [e.reason for e in errors]

    public = {observation_to_proto(GAME.public_view(s)).SerializeToString(deterministic=True) for s in states}
    seen = [e.view for e in views if e.WhichOneof("event") == "view"]
    assert len(seen) > 100
    for view in seen:
        assert not view.game_fool.HasField("seat")
        assert not view.game_fool.hand
        assert view.SerializeToString(deterministic=True) in public
    rounds = [e.round_scored for e in views if e.WhichOneof("event") == "round_scored"]
    assert [r.round for r in rounds] == list(range(1, len(states[-1].history) + 1))
    assert all(r.WhichOneof("game") == "game_fool" for r in rounds)


def _asked(state: State, request: bot_pb2.ActionRequest) -> bool:
    """Whether ``request`` was sent in ``state`` (its view's hand and the trick so far match)."""
    view = request.observation.game_fool
    return list(view.hand) == [str(c) for c in state.hands[request.seat]] and [
        (p.seat, p.card) for p in view.trick
    ] == [(p.seat, str(p.card)) for p in state.trick]


def test_the_card_pattern_finds_card_tokens() -> None:
    # The control for the reason checks above: the pattern does see cards in text.
    assert TOKEN.findall("illegal action G12: red was led and you hold red (R3 R9); play red or W1") == [
        "G12",
        "R3",
        "R9",
        "W1",
    ]
    assert str(Card.parse("b15")) == "B15"
