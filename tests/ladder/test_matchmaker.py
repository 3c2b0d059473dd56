"""The matchmaker's choices (pure): who plays first, against whom, in which seats."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from arena.ladder.matchmaker import Candidate, pick_tables, rotations
from arena.ladder.standings import standings
from arena.ladder.versions import BotVersion
from arena.league.aggregate import PairingAggregate
from arena.league.result import StoredResult
from arena.league.table import PROVISIONAL_MATCHES, LeagueTable
from arena.service.auth import NAME_PATTERN


def field(ratings: dict[str, float], free: int = 1, games: int = 100) -> list[Candidate]:
    return [Candidate(bot, rating, 30.0, games, free) for bot, rating in ratings.items()]


def test_every_free_slot_is_filled_and_no_bot_is_overbooked() -> None:
    candidates = [Candidate(f"b{i}", 1500.0, 50.0, 40, free=i % 3 + 1) for i in range(9)]
    tables = pick_tables(candidates, 3, {}, random.Random(1))
    used = Counter(bot for table in tables for bot in table)
    assert all(used[c.bot] <= c.free for c in candidates)
    assert all(len(set(table)) == 3 for table in tables)
    assert sum(c.free for c in candidates) - sum(used.values()) < 3  # fewer than a table's worth left


def test_a_new_bot_plays_first_and_with_all_its_slots() -> None:
    candidates = [*field({f"old{i}": 1400.0 + 50 * i for i in range(6)}, free=2), Candidate("new", 1500, 400, 0, 4)]
    tables = pick_tables(candidates, 2, {}, random.Random(2), provisional_games=PROVISIONAL_MATCHES)
    assert all("new" in table for table in tables[:4])
    assert sum("new" in table for table in tables) == 4


def test_similar_ratings_meet_most_and_every_pair_meets() -> None:
    ratings = {f"b{i}": 1000.0 + 100 * i for i in range(10)}
    met: Counter[frozenset[str]] = Counter()
    rng = random.Random(3)
    for _ in range(400):
        for table in pick_tables(field(ratings), 2, {}, rng):
            met[frozenset(table)] += 1
    assert all(met[frozenset(pair)] > 0 for pair in itertools.combinations(ratings, 2))
    near = sum(met[frozenset((f"b{i}", f"b{i + 1}"))] for i in range(9)) / 9
    far = sum(met[frozenset((f"b{i}", f"b{i + 6}"))] for i in range(4)) / 4
    assert near > 4 * far


def test_seats_rotate() -> None:
    rng = random.Random(4)
    seats: dict[str, list[int]] = {}
    for _ in range(300):
        for table in pick_tables(field({"x": 1500, "y": 1500, "z": 1500, "w": 1500}), 4, seats, rng):
            for seat, bot in enumerate(table):
                seats.setdefault(bot, [0] * 4)[seat] += 1
    for counts in seats.values():
        assert max(counts) - min(counts) <= 1, seats


def test_a_duplicate_deal_takes_a_slot_per_rotation() -> None:
    candidates = field({"p": 1500, "q": 1500, "r": 1500}, free=3)
    tables = pick_tables(candidates, 3, {}, random.Random(5), duplicate=True)
    assert len(tables) == 1
    turned = rotations(("p", "q", "r"))
    assert turned[0] == ("p", "q", "r")
    assert all(sorted(rotation[seat] for rotation in turned) == ["p", "q", "r"] for seat in range(3))


def test_versions_are_valid_names_with_a_lineage() -> None:
    for name in ("a@v1", "a@v2", "my-bot.x@2026-12-01", "a"):
        assert NAME_PATTERN.fullmatch(name), name
    for name in ("a@", "@v1", "a@v1@v2", "a@-v1"):
        assert not NAME_PATTERN.fullmatch(name), name
    assert BotVersion.of("a@v2") == BotVersion("a", "v2")
    assert BotVersion.of("a").version == "" and BotVersion.of("a@v2").name == "a@v2"


def test_standings_mark_provisional_bots_and_share_tied_ranks() -> None:
    results = [StoredResult(f"m{i}", ("a", "b"), (1, 0), (1, 2)) for i in range(PROVISIONAL_MATCHES)]
    results += [StoredResult("t1", ("c", "d"), (1, 0), (1, 2)), StoredResult("t2", ("d", "c"), (1, 0), (1, 2))]
    table = LeagueTable.from_aggregate(PairingAggregate.from_results(results))
    lines = {line.bot: line for line in standings(table, frozenset({"b"}))}
    assert not lines["a"].provisional and lines["c"].provisional and lines["c"].games == 2
    assert lines["b"].retired and not lines["a"].retired
    assert lines["c"].rank == lines["d"].rank
    assert lines["a"].lineage == BotVersion("a", "")


@pytest.mark.parametrize("players", [2, 3, 5])
def test_too_few_bots_make_no_table(players: int) -> None:
    assert pick_tables(field({f"b{i}": 1500 for i in range(players - 1)}, free=5), players, {}, random.Random(6)) == []
