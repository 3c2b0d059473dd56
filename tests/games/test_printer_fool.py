"""The FOOL! text printer shows every trick with its winner, Fools and sit-outs, and each round's
revealed hands and scores."""

from __future__ import annotations

from arena.games.fool import GameFool, format_cards
from arena.games.fool.heuristic import HeuristicFool
from arena.games.fool.printer import format_match, format_trick, seat_names

GAME = GameFool()


def test_a_whole_match_prints_every_trick_round_and_the_result() -> None:
    state = GAME.initial_state(7, 3)
    bot = HeuristicFool(0)
    while seats := GAME.to_move(state):
        (seat,) = seats
        state = GAME.apply(state, {seat: bot.choose(GAME.observe(state, seat), GAME.legal_actions(state, seat))})
    outcome = GAME.outcome(state)
    text = format_match(state, [f"bot{s}" for s in range(7)], outcome)
    assert text.startswith("FOOL!, 7 players, 84 cards in play, 12 a hand, two Fools a trick, a wild left costs 5\n")
    lines = text.splitlines()
    tricks = sum(len(result.tricks) for result in state.history)
    assert sum(line.lstrip().startswith("trick ") for line in lines) == tricks
    assert sum(line.startswith("Round ") for line in lines) == len(state.history)
    first = state.history[0].tricks[1]
    names = seat_names(7, [f"bot{s}" for s in range(7)])
    line = format_trick(2, first, names)
    assert line in lines
    assert f"{names[first.winner]} wins, Fools {names[first.fools[0]]}, {names[first.fools[1]]}" in line
    assert f"(sat out: {first.sat_out[0]}, {first.sat_out[1]})" in line
    last = state.history[-1]
    for seat in range(7):
        hand = format_cards(last.left_in_hand[seat]) or "-"
        assert any(f"{names[seat]}  left {hand}" in ln and f"total {last.totals[seat]:>4}" in ln for ln in lines)
    assert outcome is not None
    assert lines[-1] == f"Winner(s): {', '.join(names[s] for s in sorted(outcome.winners))}"


def test_an_unfinished_match_prints_only_scored_rounds() -> None:
    state = GAME.initial_state(4, 1)
    assert format_match(state).splitlines()[1:] == []
