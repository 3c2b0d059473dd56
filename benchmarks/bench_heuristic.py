"""How much better the built-in heuristic plays than random: win rates over many matches, in-process.

One heuristic seat against random seats, seats rotated, seeds fixed; by default 2 and 4 players of
the default game. A win is a first place (shared wins count); the average scores are the heuristic's
and a random seat's final scores. Run:
``python benchmarks/bench_heuristic.py [--game G] [--option KEY=VALUE ...] [--players 3 4 5] [--matches N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from arena import catalogue
from arena.catalogue import policy as get_policy
from arena.games import get_game
from arena.wire.common import options_from_proto


def win_rate(
    name: str, players: int, matches: int, options: dict[str, Any] | None = None
) -> tuple[float, float, float, float]:
    """(heuristic win rate, a seat's fair share, the heuristic's mean score, a random seat's mean score)."""
    game = get_game(name)
    wins = 0
    hero_total = random_total = 0.0
    for n in range(matches):
        hero = n % players
        policies = [get_policy(name, "heuristic" if s == hero else "random", n * 10 + s) for s in range(players)]
        state = game.initial_state(players, n, options)
        while seats := game.to_move(state):
            state = game.apply(
                state, {s: policies[s].choose(game.observe(state, s), game.legal_actions(state, s)) for s in seats}
            )
        outcome = game.outcome(state)
        assert outcome is not None
        wins += hero in outcome.winners
        others = [outcome.scores[s] for s in range(players) if s != hero]
        hero_total += outcome.scores[hero]
        random_total += sum(others) / len(others)
    return wins / matches, 1 / players, hero_total / matches, random_total / matches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=catalogue.DEFAULT_GAME, choices=catalogue.names())
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option (value: JSON or text)"
    )
    args = parser.parse_args()
    options = options_from_proto(dict(option.partition("=")[::2] for option in args.option))
    shown = "".join(f" {key}={value}" for key, value in options.items())
    print(f"{args.game}{shown}: the built-in heuristic in one seat, random bots in the others")
    print(
        f"{'players':>7}  {'matches':>7}  {'heuristic wins':>14}  {'fair share':>10}  {'heuristic avg':>13}  "
        f"{'random avg':>10}  {'score margin':>12}  {'s':>5}"
    )
    for players in args.players:
        start = time.perf_counter()
        rate, fair, hero, other = win_rate(args.game, players, args.matches, options)
        print(
            f"{players:>7}  {args.matches:>7}  {rate:>14.1%}  {fair:>10.0%}  {hero:>+13.1f}  {other:>+10.1f}  "
            f"{hero - other:>+12.1f}  {time.perf_counter() - start:>5.1f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
