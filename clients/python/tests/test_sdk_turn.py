"""The SDK's values without a server: turns built from requests, results, the starter bots."""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from typing import Any

import pytest
from arena_bot import MatchInfo, MatchResult, TimeControl, Turn
from arena_bot.bots import HastyBot, HeuristicBot, RandomBot
from conftest import GAME, action_request, match_ended, match_started, states

from arena.games.g5211.cards import Play
from arena.v1 import bot_pb2, game_5211_pb2


def test_a_turn_carries_the_engine_observation_and_the_wire_message() -> None:
    state = next(states(4, seed=8))
    request = action_request("m", 3, state, seat=2)
    turn = Turn.from_proto(request, MatchInfo.from_proto(match_started("m", seat=2, num_players=4)))
    assert turn.observation == GAME.observe(state, 2)
    assert isinstance(turn.game_observation, game_5211_pb2.Game5211Observation)
    assert turn.game_observation.seat == 2
    assert turn.legal_actions == tuple(str(a) for a in GAME.legal_actions(state, 2))
    assert turn.action_hint.startswith("lay 2 cards")
    assert (turn.match_id, turn.sequence, turn.seat, turn.game) == ("m", 3, 2, "5211")
    assert turn.match is not None
    assert turn.match.time_control == TimeControl(1.0, 10.0, 3, 30.0)


def test_time_left_counts_down_from_allowance_plus_bank() -> None:
    request = action_request("m", 1, next(states()))
    turn = Turn.from_proto(request, received_at=time.monotonic() - 0.5)
    assert 10.0 < turn.time_left() <= 10.5
    assert 0.0 < turn.free_time_left() <= 0.5
    late = Turn.from_proto(request, received_at=time.monotonic() - 60)
    assert late.time_left() == 0.0


def test_an_unknown_game_leaves_the_observation_to_the_wire_message() -> None:
    request = bot_pb2.ActionRequest(match_id="m", sequence=1, legal_actions=["x"], action_hint="say x")
    turn = Turn.from_proto(request)
    assert turn.observation is None
    assert turn.game_observation is None
    assert turn.game == ""


def test_a_match_result() -> None:
    result = MatchResult.from_proto(match_ended("m", seat=1), None)
    assert (result.placing, result.score, result.won) == (2, 9, False)
    broken = MatchResult.from_proto(bot_pb2.MatchEnded(match_id="m", seat=0), None)
    assert broken.outcome is None
    assert broken.placing is None
    assert not broken.won


def act(bot: Any, turn: Turn) -> Any:
    """A bot's answer, whether its ``act`` is sync or async."""
    answer = bot.act(turn)
    return asyncio.run(answer) if inspect.iscoroutine(answer) else answer


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_starter_bots_answer_legal_actions_all_match_long(num_players: int) -> None:
    bots = [RandomBot(seed=1), HastyBot(seed=2)]
    rng = random.Random(num_players)
    for index, state in enumerate(states(num_players, seed=num_players)):
        if not GAME.to_move(state) or index % 3:
            continue
        seat = rng.randrange(num_players)
        turn = Turn.from_proto(action_request("m", index + 1, state, seat=seat))
        for bot in bots:
            answer = str(act(bot, turn))
            assert answer in turn.legal_actions
            GAME.check_action(state, seat, Play.parse(answer))


def test_seeded_random_bots_repeat_themselves() -> None:
    turn = Turn.from_proto(action_request("m", 1, next(states())))
    first = [act(RandomBot(seed=5), turn) for _ in range(3)]
    assert len(set(first)) == 1


def test_the_heuristic_bot_refuses_other_games() -> None:
    turn = Turn.from_proto(bot_pb2.ActionRequest(match_id="m", sequence=1, legal_actions=["x"]))
    with pytest.raises(ValueError, match="plays 5211"):
        HeuristicBot().act(turn)
