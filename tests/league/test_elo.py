"""Elo for display (the web site's rating charts): hand-computed pairwise updates for 2- and 4-player matches."""

from __future__ import annotations

import pytest

from arena.games.base import Outcome, Termination
from arena.league.elo import EloLadder, elo_changes, expected_score
from arena.league.result import StoredResult


def result(bots: tuple[str, ...], placings: tuple[int, ...], **kw: object) -> StoredResult:
    return StoredResult("m", bots, (0,) * len(bots), placings, **kw)  # type: ignore[arg-type]


def test_expected_score() -> None:
    assert expected_score(1500, 1500) == 0.5
    # 1 / (1 + 10 ** (200 / 400)) = 1 / (1 + √10)
    assert expected_score(1400, 1600) == pytest.approx(0.2402530733520421, abs=1e-12)
    assert expected_score(1700, 1300) == pytest.approx(1 / 1.1, abs=1e-12)


def test_two_players_win_and_draw() -> None:
    even = {"a": 1500.0, "b": 1500.0}
    assert elo_changes(even, result(("a", "b"), (1, 2))) == pytest.approx({"a": 16.0, "b": -16.0}, abs=1e-9)
    assert elo_changes(even, result(("a", "b"), (1, 1))) == pytest.approx({"a": 0.0, "b": 0.0}, abs=1e-9)
    # The underdog (1400) beats the favourite (1600): 32 · (1 - 0.2402530733520421).
    changes = elo_changes({"lo": 1400.0, "hi": 1600.0}, result(("hi", "lo"), (2, 1)))
    assert changes == pytest.approx({"lo": 24.311901652734653, "hi": -24.311901652734653}, abs=1e-9)
    # A draw between them: 32 · (0.5 - 0.2402530733520421) to the underdog.
    changes = elo_changes({"lo": 1400.0, "hi": 1600.0}, result(("lo", "hi"), (1, 1)))
    assert changes == pytest.approx({"lo": 8.311901652734653, "hi": -8.311901652734653}, abs=1e-9)


def test_four_players_with_a_shared_placing() -> None:
    # b wins alone, a and c share second, d is last; K/(k-1) = 32/3.
    ratings = {"a": 1500.0, "b": 1500.0, "c": 1700.0, "d": 1300.0}
    changes = elo_changes(ratings, result(("a", "b", "c", "d"), (2, 1, 2, 4)))
    # a: -0.5 (b) + (0.5 - 0.24025307) (c) + (1 - 0.75974693) (d) = 0
    # b: 0.5 + 0.75974693 + 0.24025307 = 1.5                         -> +16
    # c: (0.5 - 0.75974693) - 0.75974693 + (1 - 0.90909091) = -0.92858476 -> -9.90490413
    # d: -0.24025307 - 0.24025307 - 0.09090909 = -0.57141524          -> -6.09509587
    expected = {"a": 0.0, "b": 16.0, "c": -9.904904132126132, "d": -6.095095867873868}
    assert changes == pytest.approx(expected, abs=1e-9)
    assert sum(changes.values()) == pytest.approx(0.0, abs=1e-12)


def test_a_forfeit_is_a_loss_to_everyone_and_an_abort_changes_nothing() -> None:
    outcome = Outcome.from_keys(Termination.TIMEOUT, (30, 10, 20), [(30,), (10,), (20,)], forfeited=frozenset({0}))
    forfeit = StoredResult.from_outcome("m1", ("a", "b", "c"), outcome)
    assert forfeit.placings == (3, 2, 1)
    changes = elo_changes({}, forfeit)
    assert changes == pytest.approx({"a": -16.0, "b": 0.0, "c": 16.0}, abs=1e-9)
    aborted = result(("a", "b"), (1, 2), termination=Termination.ABORTED)
    assert elo_changes({}, aborted) == {"a": 0.0, "b": 0.0}


def test_ladder_replays_results_once_each() -> None:
    first = StoredResult("m1", ("a", "b"), (5, 3), (1, 2))
    again = StoredResult("m1", ("a", "b"), (3, 5), (2, 1))  # a re-run of m1: ignored
    second = StoredResult("m2", ("b", "a"), (5, 3), (1, 2))
    ladder = EloLadder.from_results([first, again, second])
    # 1516 / 1484 after m1; then b (1484) beats a (1516).
    after = 32 * (1 - expected_score(1484, 1516))
    assert ladder.rating("a") == pytest.approx(1516 - after, abs=1e-9)
    assert ladder.rating("b") == pytest.approx(1484 + after, abs=1e-9)
    assert ladder.matches == {"a": 2, "b": 2}
    assert EloLadder.from_dict(ladder.to_dict()).ratings == ladder.ratings
