"""An in-process demo match between built-in bots, printed turn by turn in card notation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from arena.bots import get_policy
from arena.games.g5211 import Game5211, ScoringKind
from arena.games.g5211.cards import format_cards
from arena.games.g5211.state import State


def play_demo(
    out: TextIO, seed: int = 5211, policies: Sequence[str] = ("heuristic", "heuristic", "random", "random")
) -> State:
    """Play one 5211 match between the named built-in policies and print every reveal and scoring."""
    game = Game5211()
    bots = [get_policy(game.name, name, seed * 10 + seat) for seat, name in enumerate(policies)]
    names = [f"seat {seat} ({name})" for seat, name in enumerate(policies)]
    width = max(len(n) for n in names)
    state = game.initial_state(len(bots), seed)
    print(f"5211, {len(bots)} players, seed {seed}", file=out)
    while seats := game.to_move(state):
        if state.turn == 0:
            print(f"\nRound {state.round} (draw pile {len(state.draw_pile)})", file=out)
            for seat, name in enumerate(names):
                print(f"  {name:<{width}}  hand {format_cards(state.hands[seat])}", file=out)
        actions = {
            seat: bots[seat].choose(game.observe(state, seat), game.legal_actions(state, seat)) for seat in seats
        }
        reveal = "   ".join(f"{seat}: {actions[seat]!s:<5}" for seat in sorted(actions))
        print(f"  turn {state.turn + 1} reveal  {reveal}", file=out)
        state = game.apply(state, actions)
        if state.turn == 0 or state.finished:
            result = state.history[-1]
            if result.kind is ScoringKind.KODODO:
                how = "exactly the Kododo target: only Kododo cards score"
            elif result.kind is ScoringKind.COLOUR and result.colour is not None:
                how = f"{result.colour.name.lower()} wins the majority"
            else:
                how = "no colour wins: nobody scores"
            print(f"  scoring: {how}", file=out)
            for seat, name in enumerate(names):
                scored = format_cards(result.scored[seat]) or "-"
                gained = f"+{result.points[seat]:<2} {scored:<14}"
                print(f"    {name:<{width}}  {gained} total {state.points()[seat]}", file=out)
    outcome = game.outcome(state)
    assert outcome is not None
    print("\nResult", file=out)
    for seat in sorted(range(len(bots)), key=lambda s: outcome.placings[s]):
        print(
            f"  {outcome.placings[seat]}. {names[seat]:<{width}}  {outcome.scores[seat]:>3} points, "
            f"{state.score_pile_cards()[seat]} cards",
            file=out,
        )
    print(f"Winner(s): {', '.join(names[s] for s in sorted(outcome.winners))}", file=out)
    return state
