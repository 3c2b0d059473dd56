"""Coloretto observations on the wire: lossless round trips, the envelopes, and nothing hidden crosses."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import catalogue, wire
from arena.games.coloretto import GameColoretto, Observation, State
from arena.v1 import game_coloretto_pb2, observation_pb2
from arena.wire import coloretto

GAME = GameColoretto()


def play_random(num_players: int, seed: int, options: dict[str, object] | None = None) -> Iterator[State]:
    """Every state of one match between uniformly random players."""
    rng = random.Random(seed * 7 + num_players)
    state = GAME.initial_state(num_players, seed, options)
    yield state
    while seats := GAME.to_move(state):
        state = GAME.apply(state, {seat: rng.choice(GAME.legal_actions(state, seat)) for seat in seats})
        yield state


def _roundtrip(observation: Observation) -> Observation:
    message = catalogue.observation_to_proto(observation)
    parsed = observation_pb2.Observation.FromString(message.SerializeToString())
    assert parsed.WhichOneof("game") == "game_coloretto"
    assert catalogue.game_of(parsed) == "coloretto"
    result: Observation = catalogue.observation_from_proto(parsed)
    return result


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    num_players=st.integers(2, 5),
    scoring=st.sampled_from(["brown", "grey"]),
    games=st.sampled_from([1, 4]),
)
def test_every_observation_of_a_random_match_round_trips(seed: int, num_players: int, scoring: str, games: int) -> None:
    for index, state in enumerate(play_random(num_players, seed, {"scoring": scoring, "games": games})):
        if index % 3 and not state.finished:
            continue  # every third state is plenty; the last one holds every game's result
        observation = GAME.observe(state, index % num_players)
        assert _roundtrip(observation) == observation
        view = GAME.public_view(state)
        assert _roundtrip(view) == view


def test_optional_fields_keep_zero_and_unset_apart() -> None:
    states = list(play_random(3, 5))
    first = catalogue.observation_to_proto(GAME.observe(states[0], 0)).game_coloretto
    assert first.HasField("seat") and first.seat == 0
    assert not first.HasField("drawn")
    assert all(not row.HasField("taken_by") for row in first.rows)
    public = catalogue.observation_to_proto(GAME.public_view(states[0])).game_coloretto
    assert not public.HasField("seat")
    drawn = next(s for s in states if s.drawn is not None)
    assert catalogue.observation_to_proto(GAME.public_view(drawn)).game_coloretto.drawn == str(drawn.drawn)
    last = catalogue.observation_to_proto(GAME.public_view(states[-1])).game_coloretto
    assert last.finished and not last.HasField("to_move")
    assert len(last.game_results) == 1 and len(last.game_results[0].scores) == 3


def test_a_round_result_travels_in_its_envelope() -> None:
    states = list(play_random(4, 11))
    after_first_round = next(s for s in states if s.history)
    record = after_first_round.history[0]
    envelope = catalogue.round_result_to_proto(record, 1)
    assert envelope.round == 1 and envelope.WhichOneof("game") == "game_coloretto"
    assert catalogue.game_of(envelope) == "coloretto"
    parsed = observation_pb2.RoundResult.FromString(envelope.SerializeToString())
    assert catalogue.round_result_from_proto(parsed) == record
    # WatchMatch's round_scored: the rules' last scored round of the public view, in its envelope.
    last = GAME.round_result(GAME.public_view(states[-1]))
    assert last == (len(states[-1].history), states[-1].history[-1])
    assert catalogue.round_result_from_proto(catalogue.round_result_to_proto(last[1], last[0])) == last[1]
    assert GAME.round_result(GAME.public_view(states[0])) is None


def test_bad_wire_values_are_refused_naming_them() -> None:
    message = catalogue.observation_to_proto(GAME.observe(GAME.initial_state(3, 1), 0))
    message.game_coloretto.colours.append("Q")
    with pytest.raises(wire.WireError, match="'Q'"):
        catalogue.observation_from_proto(message)
    unset = game_coloretto_pb2.ColorettoObservation(num_players=3)
    with pytest.raises(wire.WireError, match="scoring"):
        coloretto.observation_from_proto(unset)
    with pytest.raises(wire.WireError, match="cannot hold LR"):
        coloretto.collection_from_proto(game_coloretto_pb2.ColorettoCards(cards=["A", "LR"]))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), num_players=st.integers(2, 5))
def test_the_hidden_pile_order_does_not_change_the_bytes(seed: int, num_players: int) -> None:
    """Two states that differ only in the draw-pile order (and later games' piles) give every seat the same bytes."""
    rng = random.Random(seed)
    for index, state in enumerate(play_random(num_players, seed, {"games": 4})):
        if index % 5:
            continue
        pile = list(state.pile)
        rng.shuffle(pile)
        other = state._replace(
            pile=tuple(pile), later_piles=tuple(tuple(rng.sample(p, len(p))) for p in state.later_piles)
        )
        for seat in (None, index % num_players):
            mine = GAME.public_view(state) if seat is None else GAME.observe(state, seat)
            theirs = GAME.public_view(other) if seat is None else GAME.observe(other, seat)
            assert catalogue.observation_to_proto(mine).SerializeToString(
                deterministic=True
            ) == catalogue.observation_to_proto(theirs).SerializeToString(deterministic=True)
