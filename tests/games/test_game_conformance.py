"""One suite for every registered game: seeded random playouts through the public interface only.

Checks that every seat to move has legal actions until the end, that ``check_action`` and ``apply``
accept exactly those and reject others, that the game ends within a bound, that a seed gives the
same record every time, and that replaying the recorded actions in notation gives the same outcome.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.errors import ActionError
from arena.games import GAMES, GameRules, Outcome, to_jsonable

MAX_STEPS = 10_000
"""No registered game may take more apply calls than this with default options."""
SEEDS = (0, 1, 2)
"""Every seed at every player count runs in ``make test``; ``make test-fast`` runs the first seed at
each game's fewest and most seats (a long game at eight seats checks every seat's observation at
every one of some 250 decisions, twice)."""


def _fast(rules: GameRules[Any, Any, Any], players: int, seed: int) -> bool:
    """Whether ``make test-fast`` plays this one too."""
    counts = rules.player_counts
    return seed == SEEDS[0] and players in (counts.start, counts.stop - 1)


CONFIGS = [
    pytest.param(
        name,
        players,
        seed,
        id=f"{name}-{players}p-seed{seed}",
        marks=[] if _fast(rules, players, seed) else [pytest.mark.slow],
    )
    for name, rules in sorted(GAMES.items())
    for players in rules.player_counts
    for seed in SEEDS
]

Record = dict[str, Any]


class NotAnAction:
    """A value no game accepts as an action."""

    def __str__(self) -> str:
        return "not-an-action"


def playout(rules: GameRules[Any, Any, Any], players: int, seed: int) -> Record:
    """A random game, checking the interface at every step; returns its JSON record."""
    rng = random.Random(seed)
    state = rules.initial_state(players, seed)
    steps: list[dict[str, Any]] = []
    seen: list[Any] = []  # actions met so far, to try where they are not legal
    for _ in range(MAX_STEPS):
        to_move = rules.to_move(state)
        if not to_move:
            break
        assert rules.outcome(state) is None, "no outcome while seats are to move"
        assert to_move <= set(range(players))
        views = {s: to_jsonable(rules.observe(state, s)) for s in range(players)}
        for seat in set(range(players)) - to_move:
            assert not rules.legal_actions(state, seat), f"seat {seat} is not to move but has actions"
        actions = {}
        for seat in sorted(to_move):
            legal = list(rules.legal_actions(state, seat))
            assert legal, f"seat {seat} is to move but has no legal action"
            assert len(set(legal)) == len(legal), "legal actions are distinct"
            for action in legal:
                assert rules.check_action(state, seat, action) == action
                assert rules.parse_action(str(action)) == action, "actions round-trip through notation"
            outsider = next((a for a in seen if a not in legal), None)
            for bad in (outsider, NotAnAction()):
                if bad is not None:
                    with pytest.raises(ActionError):
                        rules.check_action(state, seat, bad)
            seen.extend(legal[:3])
            actions[seat] = rng.choice(legal)
        # apply rejects an action that is not legal (checked below: without changing the state).
        seat = min(actions)
        outsider = next((a for a in seen if a not in rules.legal_actions(state, seat)), None)
        for bad in (outsider, NotAnAction()):
            if bad is not None:
                with pytest.raises(ActionError):
                    rules.apply(state, {**actions, seat: bad})
        new_state = rules.apply(state, actions)
        assert {s: to_jsonable(rules.observe(state, s)) for s in range(players)} == views, (
            "neither a rejected nor an accepted apply changes the state it is given"
        )
        steps.append(
            {
                "seats": sorted(to_move),
                "observations": views,
                "actions": {s: str(a) for s, a in sorted(actions.items())},
            }
        )
        state = new_state
    else:
        pytest.fail(f"the game did not end within {MAX_STEPS} steps")
    outcome = rules.outcome(state)
    assert isinstance(outcome, Outcome)
    assert len(outcome.scores) == len(outcome.placings) == players
    assert outcome.winners, "somebody wins"
    assert min(outcome.placings) == 1
    assert to_jsonable(rules.public_view(state)) is not None
    return {"steps": steps, "outcome": outcome.to_dict()}


def replay(rules: GameRules[Any, Any, Any], players: int, seed: int, record: Record) -> Outcome:
    """Replay a record's actions, read back from notation, from the same initial state."""
    state = rules.initial_state(players, seed)
    for step in record["steps"]:
        assert sorted(rules.to_move(state)) == step["seats"]
        actions = {int(s): rules.parse_action(text) for s, text in step["actions"].items()}
        state = rules.apply(state, actions)
    assert not rules.to_move(state)
    outcome = rules.outcome(state)
    assert outcome is not None
    return outcome


@pytest.mark.parametrize(("name", "players", "seed"), CONFIGS)
def test_random_playout(name: str, players: int, seed: int) -> None:
    rules = GAMES[name]
    record = playout(rules, players, seed)
    assert playout(rules, players, seed) == record, "the same seed gives the same record"
    assert replay(rules, players, seed, record).to_dict() == record["outcome"]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_registry_entry(name: str) -> None:
    rules = GAMES[name]
    assert rules.name == name
    assert len(rules.player_counts) >= 1
    with pytest.raises(ActionError):
        rules.parse_action("")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_different_seeds_differ(name: str) -> None:
    rules = GAMES[name]
    players = rules.player_counts[0]
    views = {str(to_jsonable(rules.observe(rules.initial_state(players, seed), 0))) for seed in range(5)}
    assert len(views) > 1
