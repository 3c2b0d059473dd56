"""An in-process demo match between built-in bots, printed decision by decision by the game's printer."""

from __future__ import annotations

from typing import Any, TextIO

from arena import catalogue


def play_demo(out: TextIO, game: str = catalogue.DEFAULT_GAME, seed: int = 1) -> Any:
    """Play one match of ``game`` between its demo policies, print it readably and return the last state."""
    entry = catalogue.entry(game)
    rules, printer = entry.rules, entry.printer
    names = entry.demo_policies
    bots = [catalogue.policy(game, name, seed * 10 + seat) for seat, name in enumerate(names)]
    print(", ".join(f"seat {seat}: {name}" for seat, name in enumerate(names)) + f"; seed {seed}", file=out)
    state = rules.initial_state(len(bots), seed)
    for line in printer.describe_start(state):
        print(line, file=out)
    while seats := rules.to_move(state):
        actions = {
            seat: bots[seat].choose(rules.observe(state, seat), rules.legal_actions(state, seat)) for seat in seats
        }
        after = rules.apply(state, actions)
        for line in printer.describe_step(state, actions, after):
            print(line, file=out)
        state = after
    for line in printer.describe_end(state):
        print(line, file=out)
    return state
