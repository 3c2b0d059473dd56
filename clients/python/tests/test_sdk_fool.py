"""The FOOL! helpers and the starter bots on FOOL! turns built as the server builds them."""

from __future__ import annotations

import random

import pytest
from arena_bot import Turn
from arena_bot.bots import HeuristicBot, RandomBot
from arena_bot.games import fool, g5211
from conftest import action_request, states
from test_sdk_turn import act

from arena import catalogue
from arena.games.fool import RULES, Card, State
from arena.v1 import bot_pb2


def fool_request(sequence: int, state: State, seat: int) -> bot_pb2.ActionRequest:
    return bot_pb2.ActionRequest(
        match_id="f",
        sequence=sequence,
        seat=seat,
        observation=catalogue.observation_to_proto(RULES.observe(state, seat)),
        legal_actions=[str(a) for a in RULES.legal_actions(state, seat)],
        action_hint=RULES.describe_action(state, seat),
    )


def test_a_fool_turn_is_typed_and_the_starter_bots_play_legal_cards_all_match_long() -> None:
    state = RULES.initial_state(8, 3)
    bots = [RandomBot(seed=1), HeuristicBot(seed=2), HeuristicBot(seed=3, game="fool")]
    rng = random.Random(3)
    sequence = 0
    while seats := RULES.to_move(state):
        (seat,) = seats
        sequence += 1
        turn = Turn.from_proto(fool_request(sequence, state, seat))
        assert turn.game == "fool"
        view = fool.observation(turn)
        assert view == RULES.observe(state, seat)
        assert view.hand == state.hands[seat]
        assert fool.legal_actions(turn) == list(RULES.legal_actions(state, seat))
        for bot in bots:
            answer = str(act(bot, turn))
            RULES.check_action(state, seat, Card.parse(answer))
        state = RULES.apply(state, {seat: rng.choice(RULES.legal_actions(state, seat))})
    assert sequence > 100


def test_the_fool_helpers_refuse_another_game_and_the_others_refuse_fool() -> None:
    other = Turn.from_proto(action_request("m", 1, next(states())))
    with pytest.raises(ValueError, match="plays '5211', not fool"):
        fool.observation(other)
    turn = Turn.from_proto(fool_request(1, RULES.initial_state(4, 1), 0))
    with pytest.raises(ValueError, match="not 5211"):
        g5211.observation(turn)
