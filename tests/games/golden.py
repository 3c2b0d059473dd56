"""Golden playthroughs: seeded games of every catalogued game recorded turn by turn, to catch any change of the rules.

Each file in ``tests/games/golden/`` holds one game between built-in random policies: the
observation of every seat to move (in seat order) before every turn (as
``arena.games.to_jsonable`` gives it), the actions in notation, the final observations and the
outcome. ``test_golden.py`` regenerates them in memory and compares. After an intended rules
change, regenerate and review the diff::

    python -m tests.games.golden --write      # or: make golden
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from arena import catalogue
from arena.catalogue import policy as get_policy
from arena.games import get_game, to_jsonable

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


class GoldenGame(NamedTuple):
    """One recorded game: the game, the number of players and the seed of the shuffle and policies."""

    game: str
    players: int
    seed: int

    @property
    def path(self) -> Path:
        """The file this game is recorded in."""
        return GOLDEN_DIR / f"{self.game}-{self.players}p-seed{self.seed}.json"

    def policy_seed(self, seat: int) -> int:
        """Each seat's random policy has its own seed, derived from the game's."""
        return self.seed * 10 + seat


GAMES = tuple(
    GoldenGame(name, players, players) for name in catalogue.names() for players in get_game(name).player_counts
)
"""One game per game and player count, seeded with the player count."""


def record(golden: GoldenGame) -> dict[str, Any]:
    """Play the game and return its record."""
    rules = get_game(golden.game)
    policies = [get_policy(golden.game, "random", golden.policy_seed(s)) for s in range(golden.players)]
    state = rules.initial_state(golden.players, golden.seed)
    turns = []
    while seats := rules.to_move(state):
        movers = sorted(seats)
        observations = [rules.observe(state, seat) for seat in movers]
        actions = {
            seat: policies[seat].choose(observation, rules.legal_actions(state, seat))
            for seat, observation in zip(movers, observations, strict=True)
        }
        turns.append(
            {
                "observations": to_jsonable(observations),
                "actions": {str(seat): str(action) for seat, action in actions.items()},
            }
        )
        state = rules.apply(state, actions)
    outcome = rules.outcome(state)
    assert outcome is not None, "a game with no seat to move is over"
    return {
        "game": golden.game,
        "players": golden.players,
        "seed": golden.seed,
        "policies": [f"random(seed={golden.policy_seed(s)})" for s in range(golden.players)],
        "turns": turns,
        "final_observations": to_jsonable([rules.observe(state, s) for s in range(golden.players)]),
        "outcome": outcome.to_dict(),
    }


def render(data: dict[str, Any]) -> str:
    """The file text: one line per turn, so a diff shows which turn changed."""
    lines = ["{"]
    for key, value in data.items():
        if key == "turns":
            lines.append('  "turns": [')
            lines.extend(
                f"    {json.dumps(turn, sort_keys=True)}{',' if n < len(value) - 1 else ''}"
                for n, turn in enumerate(value)
            )
            lines.append("  ],")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True)},")
    lines[-1] = lines[-1].removesuffix(",")
    lines.append("}")
    return "\n".join(lines) + "\n"


def first_difference(expected: str, actual: str) -> str:
    """Where two renderings first differ, in words: the line, the turn and the JSON path."""
    old, new = expected.splitlines(), actual.splitlines()
    for number, (a, b) in enumerate(zip(old, new, strict=False), 1):
        if a != b:
            where = f"line {number}"
            turn_start = old.index('  "turns": [') + 2 if '  "turns": [' in old else None
            if turn_start is not None and number >= turn_start and a.startswith("    "):
                where += f" (turn {number - turn_start + 1})"
            try:
                path, want, got = _json_difference(json.loads(a.strip().rstrip(",")), json.loads(b.strip().rstrip(",")))
            except ValueError:
                return f"{where} differs:\n  file:      {a[:200]}\n  generated: {b[:200]}"
            return f"{where}, at {path or 'the top'}: the file has {want!r}, the engine gives {got!r}"
    return f"the file has {len(old)} lines, the generated record {len(new)}"


def _json_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any]:
    """The first path at which two JSON values differ, and the two values there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}", a.get(key, "<missing>"), b.get(key, "<missing>")
            if a[key] != b[key]:
                return _json_difference(a[key], b[key], f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list):
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return _json_difference(x, y, f"{path}[{index}]")
        if len(a) != len(b):
            return f"{path} (length)", len(a), len(b)
    return path, a, b


def main(argv: Sequence[str] | None = None) -> int:
    """Check the golden files, or rewrite them with ``--write``."""
    parser = argparse.ArgumentParser(prog="python -m tests.games.golden", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate the files instead of checking")
    args = parser.parse_args(argv)
    stale = 0
    for golden in GAMES:
        text = render(record(golden))
        if args.write:
            GOLDEN_DIR.mkdir(exist_ok=True)
            changed = not golden.path.exists() or golden.path.read_text(encoding="utf-8") != text
            golden.path.write_text(text, encoding="utf-8")
            print(f"{'wrote' if changed else 'unchanged'} {golden.path}")
        elif not golden.path.exists() or golden.path.read_text(encoding="utf-8") != text:
            stale += 1
            print(f"stale {golden.path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
