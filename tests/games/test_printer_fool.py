"""The FOOL! text printer shows every trick with its winner, Fools and sit-outs, and each round's
revealed hands and scores."""

from __future__ import annotations

from arena.games.fool import GameFool, format_cards
from arena.games.fool.heuristic import HeuristicFool
from arena.games.fool.printer import describe_end, describe_start, describe_turn, format_trick, seat_names

GAME = GameFool()


def test_a_whole_match_prints_every_trick_round_and_the_result() -> None:
    state = GAME.initial_state(7, 3)
    bot = HeuristicFool(0)
    lines = describe_start(state)
    while seats := GAME.to_move(state):
        (seat,) = seats
        actions = {seat: bot.choose(GAME.observe(state, seat), GAME.legal_actions(state, seat))}
        after = GAME.apply(state, actions)
        lines += describe_turn(state, actions, after)
        state = after
    lines += describe_end(state)
    outcome = GAME.outcome(state)
    assert lines[0] == "FOOL!, 7 players, 84 cards in play, 12 a hand, two Fools a trick, a wild left costs 5"
    tricks = sum(len(result.tricks) for result in state.history)
    assert sum(line.lstrip().startswith("trick ") for line in lines) == tricks
    assert sum(line.startswith("Round ") for line in lines) == len(state.history)
    first = state.history[0].tricks[1]
    names = seat_names(7)
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


def test_an_unfinished_match_ends_with_no_result() -> None:
    assert describe_end(GAME.initial_state(4, 1)) == ["", "The match is not over."]
