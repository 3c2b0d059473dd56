"""Azul observations on the wire: lossless round trips, the envelopes, and nothing hidden crosses."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import catalogue, wire
from arena.games.azul import RULES, Observation, Phase, Placement, RoundResult, State, Tiling
from arena.v1 import game_azul_pb2, observation_pb2
from arena.wire import azul

GAME = RULES


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
    assert parsed.WhichOneof("game") == "game_azul"
    assert catalogue.game_of(parsed) == "azul"
    result: Observation = catalogue.observation_from_proto(parsed)
    return result


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), num_players=st.integers(2, 4), wall=st.sampled_from(["standard", "grey"]))
def test_every_observation_of_a_random_match_round_trips(seed: int, num_players: int, wall: str) -> None:
    for index, state in enumerate(play_random(num_players, seed, {"wall": wall})):
        if index % 4 and state.phase is Phase.OFFER:
            continue  # every fourth offer is plenty; every tiling and the end are checked
        observation = GAME.observe(state, index % num_players)
        assert _roundtrip(observation) == observation
        view = GAME.public_view(state)
        assert _roundtrip(view) == view


def test_optional_and_enum_fields_keep_zero_and_unset_apart() -> None:
    states = list(play_random(3, 5, {"wall": "grey"}))
    first = catalogue.observation_to_proto(GAME.observe(states[0], 0)).game_azul
    assert first.HasField("seat") and first.seat == 0
    assert not first.HasField("marker_holder") and first.marker_in_centre
    assert first.phase == game_azul_pb2.AzulObservation.PHASE_OFFER
    assert first.wall_side == game_azul_pb2.AzulObservation.WALL_SIDE_GREY
    assert first.end_reason == game_azul_pb2.AzulObservation.END_REASON_UNSPECIFIED and not first.bonuses
    assert [len(f.tiles) for f in first.factories] == [4] * 7 and sum(first.bag_counts) == 100 - 28
    assert all(list(row.spaces) == [""] * 5 for board in first.boards for row in board.wall_rows)
    public = catalogue.observation_to_proto(GAME.public_view(states[0])).game_azul
    assert not public.HasField("seat")
    # Seat 0 as the marker's holder is set, not confused with unset.
    held = next(s for s in states if s.marker_holder == 0)
    assert catalogue.observation_to_proto(GAME.public_view(held)).game_azul.HasField("marker_holder")
    tiling = next(s for s in states if s.phase is Phase.TILING)
    message = catalogue.observation_to_proto(GAME.public_view(tiling)).game_azul
    assert message.phase == game_azul_pb2.AzulObservation.PHASE_TILING
    assert list(message.to_move) == sorted(tiling.tiling_seats)
    last = catalogue.observation_to_proto(GAME.public_view(states[-1])).game_azul
    assert last.phase == game_azul_pb2.AzulObservation.PHASE_OVER and not last.to_move
    assert last.end_reason != game_azul_pb2.AzulObservation.END_REASON_UNSPECIFIED and len(last.bonuses) == 3


def test_a_round_result_travels_in_its_envelope() -> None:
    states = list(play_random(4, 11, {"wall": "grey"}))
    after_first_round = next(s for s in states if s.history)
    result = after_first_round.history[0]
    envelope = catalogue.round_result_to_proto(result, 1)
    assert envelope.round == 1 and envelope.WhichOneof("game") == "game_azul"
    assert catalogue.game_of(envelope) == "azul"
    parsed = observation_pb2.RoundResult.FromString(envelope.SerializeToString())
    assert catalogue.round_result_from_proto(parsed) == result
    assert len(parsed.game_azul.tilings) == 4
    # WatchMatch's round_scored: the rules' last scored round of the public view, in its envelope.
    last = GAME.round_result(GAME.public_view(states[-1]))
    assert last == (len(states[-1].history), states[-1].history[-1])
    assert catalogue.round_result_from_proto(catalogue.round_result_to_proto(last[1], last[0])) == last[1]
    assert GAME.round_result(GAME.public_view(states[0])) is None


def test_a_placement_to_the_floor_has_no_column_and_round_trips() -> None:
    result = RoundResult(
        round=3,
        starter=1,
        tilings=(Tiling.parse("1:F 2:4"), None),
        placements=((Placement(1, None, 0), Placement(2, 4, 3)), ()),
        floor_penalties=(1, 0),
        scores=(7, 0),
        next_starter=0,
    )
    message = azul.round_result_to_proto(result)
    assert list(message.tilings) == ["1:F 2:4", ""]
    assert not message.seat_placements[0].placements[0].HasField("column")
    assert message.seat_placements[0].placements[1].column == 4
    assert azul.round_result_from_proto(message) == result


def test_bad_wire_values_are_refused_naming_them() -> None:
    message = catalogue.observation_to_proto(GAME.observe(GAME.initial_state(3, 1), 0))
    message.game_azul.factories[0].tiles[0] = "Q"
    with pytest.raises(wire.WireError, match="'Q'"):
        catalogue.observation_from_proto(message)
    message = catalogue.observation_to_proto(GAME.observe(GAME.initial_state(3, 1), 0))
    message.game_azul.boards[1].floor_tiles.append("X")
    with pytest.raises(wire.WireError, match="floor tile 'X'"):
        catalogue.observation_from_proto(message)
    message.game_azul.boards[1].ClearField("floor_tiles")
    message.game_azul.boards[1].pattern_lines[0].tiles.extend(["R", "R"])
    with pytest.raises(wire.WireError, match="pattern line 1 cannot hold 'RR'"):
        catalogue.observation_from_proto(message)
    unset = game_azul_pb2.AzulObservation(num_players=3, phase=game_azul_pb2.AzulObservation.PHASE_OFFER)
    with pytest.raises(wire.WireError, match="wall side"):
        azul.observation_from_proto(unset)
    with pytest.raises(wire.WireError, match="'9:9'"):
        azul.round_result_from_proto(game_azul_pb2.AzulRoundResult(tilings=["9:9"]))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), num_players=st.integers(2, 4), wall=st.sampled_from(["standard", "grey"]))
def test_the_hidden_bag_order_does_not_change_the_bytes(seed: int, num_players: int, wall: str) -> None:
    """Two states that differ only in the bag's order (and the seed of later refills) give every seat the same bytes."""
    rng = random.Random(seed)
    for index, state in enumerate(play_random(num_players, seed, {"wall": wall})):
        if index % 5:
            continue
        other = state._replace(bag=tuple(rng.sample(state.bag, len(state.bag))), seed=state.seed + 1)
        for seat in (None, index % num_players):
            mine = GAME.public_view(state) if seat is None else GAME.observe(state, seat)
            theirs = GAME.public_view(other) if seat is None else GAME.observe(other, seat)
            assert catalogue.observation_to_proto(mine).SerializeToString(
                deterministic=True
            ) == catalogue.observation_to_proto(theirs).SerializeToString(deterministic=True)
