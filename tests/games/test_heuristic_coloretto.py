"""The built-in Coloretto heuristic clearly beats uniform random play, and is deterministic per seed."""

from __future__ import annotations

import random

import pytest

from arena.games.coloretto import GameColoretto
from arena.games.coloretto.heuristic import HeuristicColoretto

GAME = GameColoretto()


def heuristic_wins(players: int, seed: int) -> bool:
    """One seeded game: the heuristic in seat ``seed % players``, uniform random bots elsewhere."""
    heuristic = HeuristicColoretto(seed)
    rng = random.Random(seed * 7 + 1)
    me = seed % players
    state = GAME.initial_state(players, seed)
    while GAME.to_move(state):
        seat = state.seat
        legal = GAME.legal_actions(state, seat)
        action = heuristic.choose(GAME.observe(state, seat), legal) if seat == me else rng.choice(legal)
        assert action in legal
        state = GAME.apply(state, {seat: action})
    outcome = GAME.outcome(state)
    assert outcome is not None
    return outcome.winners == frozenset({me})


@pytest.mark.parametrize(
    "players", [3, pytest.param(4, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow)]
)  # the strength test at more seats: in make test, not make test-fast
def test_the_heuristic_wins_a_clear_majority_against_random_bots(players: int) -> None:
    games = 200 if players == 4 else 100
    wins = sum(heuristic_wins(players, seed) for seed in range(games))
    assert wins > 0.7 * games, f"{wins} of {games} outright wins (random play would win about {games // players})"


def test_the_heuristic_is_deterministic_given_its_seed() -> None:
    def actions(seed: int) -> list[str]:
        heuristic = HeuristicColoretto(seed)
        state = GAME.initial_state(4, 11)
        played = []
        while GAME.to_move(state):
            action = heuristic.choose(GAME.observe(state, state.seat), GAME.legal_actions(state, state.seat))
            played.append(str(action))
            state = GAME.apply(state, {state.seat: action})
        return played

    assert actions(3) == actions(3)
