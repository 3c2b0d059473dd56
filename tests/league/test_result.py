"""Stored results: JSON round trips, validation, and the pairwise decomposition."""

from __future__ import annotations

import json

import pytest

from arena.catalogue import policy as get_policy
from arena.games.base import Termination
from arena.games.g5211 import Game5211
from arena.league.result import PairGame, StoredResult


def test_round_trip_through_json() -> None:
    result = StoredResult(
        match_id="L.00001",
        bots=("a", "b", "c"),
        scores=(10, 7, 7),
        placings=(1, 2, 2),
        termination=Termination.ILLEGAL_ACTION,
        forfeited=frozenset({2}),
        timeouts=(0, 1, 3),
        deal_id="L.d00000",
    )
    text = json.dumps(result.to_dict())
    assert StoredResult.from_dict(json.loads(text)) == result
    assert StoredResult.from_dict({"match_id": "x", "bots": ["a", "b"], "scores": [1, 0], "placings": [1, 2]}) == (
        StoredResult("x", ("a", "b"), (1, 0), (1, 2))
    )


def test_from_a_real_match() -> None:
    game = Game5211()
    state = game.initial_state(3, 11)
    bots = [get_policy("5211", "random", seat) for seat in range(3)]
    while seats := game.to_move(state):
        state = game.apply(
            state, {s: bots[s].choose(game.observe(state, s), game.legal_actions(state, s)) for s in seats}
        )
    outcome = game.outcome(state)
    assert outcome is not None
    result = StoredResult.from_outcome("m", ("x", "y", "z"), outcome, deal_id="d")
    assert result.timeouts == (0, 0, 0)
    assert result.placings == outcome.placings and result.scores == outcome.scores
    assert len(result.pair_games()) == 3


def test_pair_games() -> None:
    games = StoredResult("m", ("a", "b", "c", "a"), (3, 2, 2, 0), (1, 2, 2, 4)).pair_games()
    third = 1 / 3
    # The two "a" seats are not a game.
    assert games == [
        PairGame("a", "b", 1.0, third),
        PairGame("a", "c", 1.0, third),
        PairGame("b", "c", 0.5, third),
        PairGame("b", "a", 1.0, third),
        PairGame("c", "a", 1.0, third),
    ]
    aborted = StoredResult("m", ("a", "b"), (0, 0), (1, 1), Termination.ABORTED)
    assert aborted.pair_games() == [] and not aborted.is_rated


@pytest.mark.parametrize(
    "fields",
    [
        {"scores": (1,)},
        {"placings": (1, 3)},
        {"timeouts": (0,)},
        {"forfeited": frozenset({2})},
    ],
)
def test_invalid_results(fields: dict[str, object]) -> None:
    base: dict[str, object] = {"match_id": "m", "bots": ("a", "b"), "scores": (1, 0), "placings": (1, 2)}
    with pytest.raises(ValueError, match="result 'm'"):
        StoredResult(**(base | fields))  # type: ignore[arg-type]
