"""The league table: its sums agree with the results, and it does not depend on their order."""

from __future__ import annotations

import json
import math
import random

import pytest

from arena.games.base import Outcome, Termination
from arena.league.result import StoredResult
from arena.league.table import LeagueTable

BOTS = ("alpha", "bravo", "charlie", "delta", "echo")


def _random_results(seed: int, count: int) -> list[StoredResult]:
    rng = random.Random(seed)
    results = []
    for i in range(count):
        k = rng.randint(2, 4)
        bots = tuple(rng.sample(BOTS, k))
        scores = [rng.randint(0, 4) for _ in range(k)]  # small range: ties happen
        forfeited = frozenset({rng.randrange(k)}) if rng.random() < 0.1 else frozenset()
        termination = Termination.TIMEOUT if forfeited else Termination.NORMAL
        if rng.random() < 0.05:
            termination = Termination.ABORTED
        outcome = Outcome.from_keys(termination, scores, [(s,) for s in scores], forfeited)
        timeouts = [rng.choice([0, 0, 0, 1, 2]) for _ in range(k)]
        results.append(StoredResult.from_outcome(f"m{i}", bots, outcome, timeouts, deal_id=f"d{i // 2}"))
    return results


def test_sums_agree_with_the_results() -> None:
    results = _random_results(1, 300)
    rerun = StoredResult("m0", results[0].bots, results[0].scores, results[0].placings)  # counted once
    table = LeagueTable.from_results([*results, rerun])
    rated = [r for r in results if r.is_rated]
    assert table.matches == len(rated)
    assert table.aborted == len(results) - len(rated)
    rows = table.rows
    assert sum(r.matches for r in rows) == sum(len(r.bots) for r in rated)
    assert sum(r.wins for r in rows) == sum(r.placings.count(1) for r in rated)
    assert sum(r.points for r in rows) == pytest.approx(sum(math.comb(len(r.bots), 2) for r in rated))
    assert sum(r.timeouts for r in rows) == sum(sum(r.timeouts) for r in rated)
    assert sum(r.forfeits for r in rows) == sum(len(r.forfeited) for r in rated)
    for row in rows:
        mine = [(r, r.bots.index(row.bot)) for r in rated if row.bot in r.bots]
        assert row.matches == len(mine)
        assert row.wins == sum(r.placings[s] == 1 for r, s in mine)
        assert row.average_score == pytest.approx(sum(r.scores[s] for r, s in mine) / len(mine))
        assert row.average_placing == pytest.approx(sum(r.placings[s] for r, s in mine) / len(mine))
        assert row.rating_low < row.rating < row.rating_high
    assert [r.rank for r in rows] == list(range(1, len(BOTS) + 1))
    assert [r.rating for r in rows] == sorted((r.rating for r in rows), reverse=True)
    assert json.loads(json.dumps(table.to_dict()))["rows"][0]["bot"] == rows[0].bot


def test_order_independent_and_rebuildable_from_stored_dicts() -> None:
    results = _random_results(2, 200)
    shuffled = results[:]
    random.Random(3).shuffle(shuffled)
    stored = [json.loads(json.dumps(r.to_dict())) for r in shuffled]
    a, b = LeagueTable.from_results(results), LeagueTable.from_results(StoredResult.from_dict(r) for r in stored)
    for row in a.rows:
        other = b.row(row.bot)
        assert other.rating == pytest.approx(row.rating, abs=1e-9)
        assert other.rating_high == pytest.approx(row.rating_high, abs=1e-9)
        assert (other.points, other.matches, other.wins) == (row.points, row.matches, row.wins)


def test_points_are_pairwise() -> None:
    # A sole winner of four gets 3; two sharing second get 1½ each; the last gets 0.
    table = LeagueTable.from_results([StoredResult("m", ("w", "x", "y", "z"), (9, 5, 5, 1), (1, 2, 2, 4))])
    assert {r.bot: r.points for r in table.rows} == {"w": 3.0, "x": 1.5, "y": 1.5, "z": 0.0}
    assert table.row("w").rank == 1
    with pytest.raises(KeyError):
        table.row("nobody")


def test_a_bot_that_has_not_played_yet() -> None:
    table = LeagueTable.from_results([StoredResult("m", ("a", "b"), (2, 1), (1, 2))], bots=("newcomer",))
    row = table.row("newcomer")
    assert (row.matches, row.points, row.average_score) == (0, 0.0, 0.0)
