"""An in-process demo match between built-in bots, printed decision by decision by the game's printer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from arena import catalogue


def play_demo(
    out: TextIO, game: str = catalogue.DEFAULT_GAME, seed: int = 1, options: Mapping[str, Any] | None = None
) -> Any:
    """Play one match of ``game`` (with rules ``options``) between its demo policies, print it readably and
    return the last state; raises ``GameSetupError`` if the game refuses the options."""
    entry = catalogue.entry(game)
    rules, printer = entry.rules, entry.printer
    names = entry.demo_policies
    bots = [catalogue.policy(game, name, seed * 10 + seat) for seat, name in enumerate(names)]
    state = rules.initial_state(len(bots), seed, options)
    print(", ".join(f"seat {seat}: {name}" for seat, name in enumerate(names)) + f"; seed {seed}", file=out)
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
