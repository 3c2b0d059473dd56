"""The built-in Azul heuristic clearly beats uniform random play, deterministically given its seed."""

from __future__ import annotations

import random

import pytest

from arena.games.azul import GameAzul, State
from arena.games.azul.heuristic import HeuristicAzul

GAME = GameAzul()
GAMES = 200


def play(seed: int, wall: str, heuristic_seat: int) -> tuple[State, list[str]]:
    state = GAME.initial_state(2, seed, {"wall": wall})
    bot = HeuristicAzul(seed)
    rng = random.Random(seed + 1)
    actions: list[str] = []
    while seats := GAME.to_move(state):
        chosen = {}
        for seat in seats:
            legal = GAME.legal_actions(state, seat)
            chosen[seat] = bot.choose(GAME.observe(state, seat), legal) if seat == heuristic_seat else rng.choice(legal)
            assert chosen[seat] in legal
        actions.extend(str(chosen[s]) for s in sorted(chosen))
        state = GAME.apply(state, chosen)
    return state, actions


@pytest.mark.slow  # a strength test over many matches: in make test, not make test-fast
def test_the_heuristic_wins_a_clear_majority_against_random() -> None:
    wins = 0
    for seed in range(GAMES):
        seat = seed % 2
        state, _ = play(seed, "grey" if seed % 4 >= 2 else "standard", seat)
        outcome = GAME.outcome(state)
        assert outcome is not None
        wins += outcome.winners == {seat}
    assert wins >= 0.8 * GAMES, f"the heuristic won only {wins} of {GAMES}"


def test_the_heuristic_is_deterministic_given_its_seed() -> None:
    assert play(11, "grey", 0)[1] == play(11, "grey", 0)[1]
    assert play(12, "standard", 1)[1] == play(12, "standard", 1)[1]
