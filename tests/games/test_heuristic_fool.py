"""The built-in FOOL! heuristic clearly beats uniform random play, and sees only its observation."""

from __future__ import annotations

import pytest

from arena.bots.policy import RandomPolicy
from arena.games import Outcome
from arena.games.fool import GameFool
from arena.games.fool.heuristic import HeuristicFool

GAME = GameFool()
GAMES = 200


def match(players: int, seed: int, heuristic_seat: int) -> Outcome:
    bots = [HeuristicFool(seed) if s == heuristic_seat else RandomPolicy(seed * 10 + s) for s in range(players)]
    state = GAME.initial_state(players, seed)
    while seats := GAME.to_move(state):
        (seat,) = seats
        choice = bots[seat].choose(GAME.observe(state, seat), GAME.legal_actions(state, seat))
        state = GAME.apply(state, {seat: choice})
    outcome = GAME.outcome(state)
    assert outcome is not None
    return outcome


@pytest.mark.slow  # a strength test over many matches: in make test, not make test-fast
def test_one_heuristic_seat_wins_a_clear_majority_against_three_random_seats() -> None:
    # Random play would win about a quarter of these; the heuristic wins about three quarters.
    wins = sum(seed % 4 in match(4, seed, seed % 4).winners for seed in range(GAMES))
    assert wins > GAMES * 0.6, f"the heuristic won only {wins} of {GAMES}"


def test_the_heuristic_is_deterministic_and_picks_a_legal_card() -> None:
    state = GAME.initial_state(6, 17)
    for _ in range(60):
        (seat,) = GAME.to_move(state)
        view, legal = GAME.observe(state, seat), GAME.legal_actions(state, seat)
        choice = HeuristicFool(1).choose(view, legal)
        assert choice in legal
        assert HeuristicFool(2).choose(view, legal) == choice
        state = GAME.apply(state, {seat: choice})
