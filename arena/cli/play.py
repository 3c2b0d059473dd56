"""``arena play``: a match in this process between your own ``Bot`` (the Python SDK's class) and
built-in bots, printed turn by turn as ``arena demo`` prints one. No server, no Redis: each of your
bot's turns is the ``ActionRequest`` the referee would send it, and its answer is checked as the
referee checks it (an illegal or failing answer is reported, and the first legal action played).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from arena import catalogue
from arena.errors import PlayerError
from arena.wire.turns import action_request


class SdkSeat:
    """A seat played by an SDK ``Bot`` through the requests it would get on the wire."""

    def __init__(self, bot: Any, label: str) -> None:
        self.bot = bot
        self.label = label
        self.faults: list[str] = []

    def choose(self, game: str, state: Any, seat: int, sequence: int) -> tuple[str, str | None]:
        """The bot's action text, and what was wrong with it if it was not playable (then the
        first legal action is played, as the referee does)."""
        from arena_bot import Turn

        request = action_request(game, state, seat, match_id="local", sequence=sequence)
        try:
            answer = self.bot.act(Turn.from_proto(request))
            if inspect.isawaitable(answer):
                import asyncio

                answer = asyncio.run(_awaited(answer))
        except Exception as error:  # the author's code: report it, as the SDK logs it
            return request.legal_actions[0], f"act raised {type(error).__name__}: {error}"
        text = str(answer)
        if text not in request.legal_actions:
            return request.legal_actions[0], f"{text[:80]!r} is not a legal action"
        return text, None


async def _awaited(value: Any) -> Any:
    return await value


def load_player(spec: str, game: str, seed: int) -> Any:
    """A built-in policy by name, or an SDK ``Bot`` from ``path/to/bot.py`` (its one Bot subclass,
    or ``path/to/bot.py:Class``) or ``module:Class``."""
    if spec in catalogue.entry(game).policies:
        return catalogue.policy(game, spec, seed)
    from arena_bot import Bot

    where, _, class_name = spec.partition(":") if not spec.endswith(".py") else (spec, "", "")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise PlayerError(f"no bot file {where[:120]!r}")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or module_spec.loader is None:
            raise PlayerError(f"cannot load {where[:120]!r} as Python")
        module = importlib.util.module_from_spec(module_spec)
        sys.path.insert(0, str(path.resolve().parent))
        try:
            module_spec.loader.exec_module(module)
        finally:
            sys.path.pop(0)
    elif class_name:
        module = importlib.import_module(where)
    else:
        known = ", ".join(catalogue.entry(game).policies)
        raise PlayerError(f"unknown player {spec[:80]!r}: a built-in bot ({known}), path/to/bot.py, or module:Class")
    if class_name:
        cls = getattr(module, class_name, None)
        classes = [cls] if isinstance(cls, type) and issubclass(cls, Bot) else []
    else:
        classes = [
            c
            for c in vars(module).values()
            if isinstance(c, type) and issubclass(c, Bot) and c.__module__ == module.__name__
        ]
    if len(classes) != 1:
        raise PlayerError(f"{spec[:120]!r} defines {len(classes)} Bot subclasses: name one as {where}:Class")
    return SdkSeat(classes[0](), spec)


def play_local(
    out: TextIO, game: str, players: Sequence[str], seed: int = 1, options: Mapping[str, Any] | None = None
) -> Any:
    """Play one match of ``game`` (with its rules ``options``) between ``players`` in this process,
    print it, and return its outcome."""
    entry = catalogue.entry(game)
    rules, printer = entry.rules, entry.printer
    if len(players) not in rules.player_counts:
        counts = rules.player_counts
        raise PlayerError(f"{game} is for {counts.start} to {counts.stop - 1} players, not {len(players)}")
    seats = [load_player(spec, game, seed * 10 + index) for index, spec in enumerate(players)]
    state = rules.initial_state(len(seats), seed, dict(options or {}))  # refused options: before any output
    print(", ".join(f"seat {seat}: {name}" for seat, name in enumerate(players)) + f"; seed {seed}", file=out)
    for line in printer.describe_start(state):
        print(line, file=out)
    sequence = 0
    while to_move := rules.to_move(state):
        actions = {}
        for seat in sorted(to_move):
            sequence += 1
            player = seats[seat]
            if isinstance(player, SdkSeat):
                text, fault = player.choose(game, state, seat, sequence)
                if fault is not None:
                    player.faults.append(fault)
                    print(f"  seat {seat} ({player.label}): {fault}; the referee plays {text}", file=out)
                actions[seat] = rules.parse_action(text)
            else:
                actions[seat] = player.choose(rules.observe(state, seat), rules.legal_actions(state, seat))
        after = rules.apply(state, actions)
        for line in printer.describe_turn(state, actions, after):
            print(line, file=out)
        state = after
    for line in printer.describe_end(state):
        print(line, file=out)
    return rules.outcome(state)
