"""FOOL! observations on the wire: lossless round trips, the envelopes, and no hidden hand crosses."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import catalogue, wire
from arena.games.fool import GameFool, Observation, State
from arena.v1 import game_fool_pb2, observation_pb2
from arena.wire import fool

GAME = GameFool()


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
    assert parsed.WhichOneof("game") == "game_fool"
    assert catalogue.game_of(parsed) == "fool"
    result: Observation = catalogue.observation_from_proto(parsed)
    return result


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    num_players=st.integers(4, 8),
    two_fools_from=st.sampled_from([7, 8]),
    wild_penalty=st.integers(1, 100),
)
def test_every_observation_of_a_random_match_round_trips(
    seed: int, num_players: int, two_fools_from: int, wild_penalty: int
) -> None:
    options: dict[str, object] = {"two_fools_from": two_fools_from, "wild_penalty": wild_penalty}
    for index, state in enumerate(play_random(num_players, seed, options)):
        if index % 7 and not state.finished:
            continue  # every seventh state is plenty; the last one holds every round
        observation = GAME.observe(state, index % num_players)
        assert _roundtrip(observation) == observation
        view = GAME.public_view(state)
        assert _roundtrip(view) == view


def test_optional_fields_keep_zero_and_unset_apart() -> None:
    states = list(play_random(4, 5))
    first = catalogue.observation_to_proto(GAME.observe(states[0], 0)).game_fool
    assert first.HasField("seat") and first.seat == 0
    assert first.HasField("to_play") and not first.HasField("last_trick")
    assert first.lead_colour == game_fool_pb2.FOOL_COLOUR_UNSPECIFIED and len(first.hand) == 12
    public = catalogue.observation_to_proto(GAME.public_view(states[0])).game_fool
    assert not public.HasField("seat") and not public.hand
    assert list(public.hand_sizes) == [12] * 4
    last = catalogue.observation_to_proto(GAME.public_view(states[-1])).game_fool
    assert last.finished and not last.HasField("to_play") and last.HasField("last_trick")
    assert len(last.rounds) == len(states[-1].history)
    assert last.last_round.round == len(states[-1].history)
    assert not first.HasField("last_round")


def test_a_round_result_travels_in_its_envelope() -> None:
    states = list(play_random(6, 11))
    after_first_round = next(s for s in states if s.history)
    result = after_first_round.history[0]
    envelope = catalogue.round_result_to_proto(result, 1)
    assert envelope.round == 1 and envelope.WhichOneof("game") == "game_fool"
    assert catalogue.game_of(envelope) == "fool"
    parsed = observation_pb2.RoundResult.FromString(envelope.SerializeToString())
    assert catalogue.round_result_from_proto(parsed) == result
    # WatchMatch's round_scored: the rules' last scored round of the public view, in its envelope.
    last = GAME.round_result(GAME.public_view(states[-1]))
    assert last == (len(states[-1].history), states[-1].history[-1])
    assert catalogue.round_result_from_proto(catalogue.round_result_to_proto(last[1], last[0])) == last[1]
    assert GAME.round_result(GAME.public_view(states[0])) is None


def test_bad_wire_values_are_refused_naming_them() -> None:
    message = catalogue.observation_to_proto(GAME.observe(GAME.initial_state(5, 1), 0))
    message.game_fool.hand.append("G28")
    with pytest.raises(wire.WireError, match="'G28'"):
        catalogue.observation_from_proto(message)
    bad_colour = game_fool_pb2.FoolObservation(num_players=4, lead_colour=9)  # type: ignore[arg-type]
    with pytest.raises(wire.WireError, match="colour 9"):
        fool.observation_from_proto(bad_colour)
    with pytest.raises(wire.WireError, match="'w1'"):
        fool.card_from_text("w1")  # the wire carries exact notation


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), num_players=st.integers(4, 8), seat_pick=st.integers(0, 7))
def test_other_seats_hands_do_not_change_the_bytes(seed: int, num_players: int, seat_pick: int) -> None:
    """Two states that differ only in other seats' hands (and the seed of later deals) give a seat, and a
    spectator, the same bytes."""
    rng = random.Random(seed)
    seat = seat_pick % num_players
    for index, state in enumerate(play_random(num_players, seed)):
        if index % 9 or state.finished:
            continue
        others = [s for s in range(num_players) if s != seat]
        pool = [c for s in others for c in state.hands[s]]
        rng.shuffle(pool)
        hands = list(state.hands)
        for s in others:
            hands[s], pool = tuple(sorted(pool[: len(hands[s])])), pool[len(hands[s]) :]
        other = state._replace(hands=tuple(hands), setup=dataclasses.replace(state.setup, seed=rng.randrange(2**32)))
        for mine, theirs in (
            (GAME.observe(state, seat), GAME.observe(other, seat)),
            (GAME.public_view(state), GAME.public_view(other)),
        ):
            assert catalogue.observation_to_proto(mine).SerializeToString(
                deterministic=True
            ) == catalogue.observation_to_proto(theirs).SerializeToString(deterministic=True)
