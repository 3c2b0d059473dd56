"""The Azul text printer shows the table, every board and the scores, and only public information."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, cast

from arena.games.azul import GameAzul
from arena.games.azul.actions import Take
from arena.games.azul.heuristic import HeuristicAzul
from arena.games.azul.printer import describe_end, describe_start, describe_turn, format_take, format_view, seat_names
from arena.games.base import Policy

GAME = GameAzul()


class Uniform:
    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        return self._rng.choice(legal_actions)


def test_a_view_shows_factories_centre_every_board_and_scores() -> None:
    state = GAME.initial_state(3, 5, {"first": 0})
    first = GAME.legal_actions(state, 0)[0]  # factory 0, its first colour, to line 5
    assert isinstance(first, Take)
    state = GAME.apply(state, {0: first})
    lines = format_view(GAME.public_view(state), seat_names(3, ["a", "b", "c"]))
    text = "\n".join(lines)
    factories = "  ".join(f"{n}:{''.join(t.name for t in f) or '-'}" for n, f in enumerate(state.factories))
    assert f"factories  {factories}" in text
    assert "centre     S " in text
    for seat, name in enumerate(("a", "b", "c")):
        assert f"seat {seat} ({name}): score 0" in text
    assert "    . . . . . | y r k w b" in text, "an empty line 5 beside the standard wall's row 5"
    assert "            . | b y r k w" in text, "an empty line 1 beside the standard wall's row 1"
    count = state.boards[0].lines[4].count(first.colour)
    shown = " ".join(["."] * (5 - count) + [first.colour.name] * count)
    assert f"    {shown} | y r k w b" in text, "seat 0's line 5 holds the tiles it took"
    assert text.count("floor") == 3


def test_the_view_is_the_same_whatever_the_bag_order() -> None:
    state = GAME.initial_state(2, 9)
    shuffled = state._replace(bag=tuple(reversed(state.bag)))
    names = seat_names(2)
    assert format_view(GAME.public_view(state), names) == format_view(GAME.public_view(shuffled), names)


def transcript(seed: int, options: dict[str, Any], names: list[str]) -> list[str]:
    """A whole match between the heuristic and a uniform player, printed by describe_start/step/end."""
    bots: list[Policy] = [HeuristicAzul(1), Uniform(2)]
    state = GAME.initial_state(2, seed, options)
    lines = describe_start(state, names)
    while seats := GAME.to_move(state):
        actions = {
            seat: bots[seat].choose(GAME.observe(state, seat), GAME.legal_actions(state, seat)) for seat in seats
        }
        after = GAME.apply(state, actions)
        lines += describe_turn(state, actions, after, names)
        state = after
    return lines + describe_end(state, names)


def test_a_transcript_plays_a_whole_match_deterministically() -> None:
    names = seat_names(2, ["heuristic", "random"])
    text = transcript(7, {"wall": "grey"}, names)
    assert text == transcript(7, {"wall": "grey"}, names)
    joined = "\n".join(text)
    assert text[0] == "Azul, 2 players, grey wall"
    assert text[1].startswith("  tiles: B blue, Y yellow, R red, K black, W white; S the starting-player marker")
    assert "Round 1: seat" in joined and "wall-tiling of round 1" in joined
    assert " tiles " in joined and " takes " in joined
    assert "Final boards" in joined and "Winner(s): " in joined
    assert text[-1].startswith("Winner(s): ")


def test_a_take_is_printed_with_what_it_does() -> None:
    deck = ["R", "R", "R", "W", *["B"] * 20, *["Y"] * 20, *["R"] * 17, *["K"] * 20, *["W"] * 19]
    state = GAME.initial_state(2, 0, {"first": 0}, deck=deck)
    view = GAME.public_view(state)
    assert (
        format_take(view, 0, cast(Take, GAME.parse_action("0 R 2")))
        == "0 R 2: 2 R to line 2, 1 to the floor, W to the centre"
    )
    state = GAME.apply(state, {0: GAME.parse_action("0 R 2")})
    assert format_take(GAME.public_view(state), 1, cast(Take, GAME.parse_action("C W F"))) == (
        "C W F: 1 W to the floor, S (starts the next round)"
    )
