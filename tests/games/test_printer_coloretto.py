"""The Coloretto match printer tells a whole match in readable lines, from public views only."""

from __future__ import annotations

import random

from arena.games.coloretto import GameColoretto, State
from arena.games.coloretto.printer import describe_end, describe_start, describe_turn

GAME = GameColoretto()


def narrate(state: State, seed: int) -> tuple[State, list[str]]:
    rng = random.Random(seed)
    lines = describe_start(state)
    while GAME.to_move(state):
        actions = {state.seat: rng.choice(GAME.legal_actions(state, state.seat))}
        after = GAME.apply(state, actions)
        lines += describe_turn(state, actions, after)
        state = after
    return state, lines + describe_end(state)


def test_a_match_reads_step_by_step_with_the_final_scoring_and_joker_choices() -> None:
    state, lines = narrate(GAME.initial_state(4, 9, {"first": 0}), 9)
    text = "\n".join(lines)
    assert lines[0] == "Coloretto, 4 players, brown scoring"
    assert "Round 1: seat 0 starts (draw pile 73)" in text
    assert "seat 0 draws " in text and " in row " in text and " takes row " in text
    assert "draws LR: this is the last round!" in text
    assert "Game 1 scoring" in text
    outcome = GAME.outcome(state)
    assert outcome is not None
    best = max(outcome.scores)
    assert f"Winner(s): {', '.join(f'seat {s}' for s in sorted(outcome.winners))}" == lines[-1]
    assert f"{best:>3} points" in text
    for seat, score in enumerate(state.results[0].scores):
        if score.jokers:
            assert f"seat {seat}: {score.score:>3} points" in text
            assert "jokers to " in text


def test_a_four_game_match_shows_every_game_and_the_per_game_totals() -> None:
    _, lines = narrate(GAME.initial_state(2, 4, {"games": 4}), 4)
    text = "\n".join(lines)
    assert [f"Game {k} scoring" in text for k in range(1, 5)] == [True] * 4
    assert "the row left over leaves the game" in text
    assert sum(line.count(" + ") == 3 for line in lines if "points  (" in line) == 2


def test_the_printer_never_shows_the_next_card() -> None:
    state = GAME.initial_state(3, 2, {"first": 0})
    after = GAME.apply(state, {0: GAME.parse_action("draw")})
    lines = describe_turn(state, {0: GAME.parse_action("draw")}, after)
    assert lines == [f"  seat 0 draws {after.drawn}"]
