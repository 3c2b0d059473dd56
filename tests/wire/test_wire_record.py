"""A MatchRecord on the wire holds enough to replay its match exactly."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import wire
from arena.games.g5211 import Game5211
from arena.games.g5211.cards import full_deck
from arena.v1 import common_pb2, match_pb2
from arena.wire import record as wire_record

GAME = Game5211()


def recorded_match(num_players: int, seed: int, deck: list[str] | None = None) -> tuple[match_pb2.MatchRecord, object]:
    """Play a random match with the engine and write it down as the server would."""
    rng = random.Random(seed)
    state = GAME.initial_state(num_players, seed, {}, deck)
    record = match_pb2.MatchRecord(
        match_id=f"m-{seed}",
        game="5211",
        options=wire.options_to_proto({"long_game": False}),
        seed=seed,
        deck=deck or [],
        bot_names=[f"bot{seat}" for seat in range(num_players)],
    )
    turn = 0
    sequence = 0
    while seats := GAME.to_move(state):
        actions = {}
        for seat in sorted(seats):
            action = rng.choice(GAME.legal_actions(state, seat))
            actions[seat] = action
            sequence += 1
            fallback = rng.random() < 0.05
            record.decisions.append(
                match_pb2.Decision(
                    turn_index=turn,
                    seat=seat,
                    action=str(action),
                    elapsed=wire.duration_to_proto(rng.random()),
                    is_fallback=fallback,
                    fault=common_pb2.FAULT_TIMEOUT if fallback else common_pb2.FAULT_UNSPECIFIED,
                    sequence=sequence,
                )
            )
        state = GAME.apply(state, actions)
        turn += 1
    outcome = GAME.outcome(state)
    assert outcome is not None
    record.outcome.CopyFrom(wire.outcome_to_proto(outcome))
    return match_pb2.MatchRecord.FromString(record.SerializeToString()), state


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), num_players=st.integers(2, 5))
def test_a_record_replays_to_the_same_final_state(seed: int, num_players: int) -> None:
    record, final = recorded_match(num_players, seed)
    states = list(wire_record.iter_states(record))
    assert states[-1] == final
    assert GAME.outcome(states[-1]) == wire.outcome_from_proto(record.outcome)


def test_an_explicit_deck_replays() -> None:
    deck = [str(card) for card in full_deck()]
    random.Random(4).shuffle(deck)
    record, final = recorded_match(3, 0, deck)
    states = list(wire_record.iter_states(record))
    assert states[-1] == final
    assert states[0].draw_pile != GAME.initial_state(3, 0).draw_pile


def test_a_tampered_record_does_not_replay() -> None:
    record, _ = recorded_match(2, 5)
    del record.decisions[1]
    with pytest.raises(wire.WireError, match=r"'m-5' does not replay: turn 0 has actions for seats \[0\], but seats"):
        list(wire_record.iter_states(record))
    record, _ = recorded_match(2, 5)
    record.decisions[0].action = "Z9"
    with pytest.raises(wire.WireError, match=r"does not replay.*Z9"):
        list(wire_record.iter_states(record))
    record, _ = recorded_match(2, 5)
    record.decisions[2].turn_index = 0
    with pytest.raises(wire.WireError, match=r"out of order|two decisions"):
        list(wire_record.iter_states(record))
