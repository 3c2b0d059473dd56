"""Expanding a league spec into matches: balance, duplicate deals, gauntlets, ids, determinism."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter, defaultdict

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from arena.errors import LeagueSpecError, UnknownGameError
from arena.league.schedule import (
    SECRET_BYTES,
    Design,
    LeagueFormat,
    LeagueSpec,
    MatchSpec,
    deal_seed,
    league_tables,
    schedule_league,
)

NAMES = [f"bot{i}" for i in range(12)]


@st.composite
def specs(draw: st.DrawFn, gauntlet: bool = False) -> LeagueSpec:
    k = draw(st.integers(2, 5))
    n = draw(st.integers(k + 1 if gauntlet else k, 12))
    bots = tuple(NAMES[:n])
    return LeagueSpec(
        league_id=draw(st.sampled_from(["L1", "league-x", "Lab12cd34"])),
        game="5211",
        players_per_match=k,
        bots=bots,
        games_per_pairing=draw(st.integers(1, 4)),
        seed=draw(st.integers(0, 2**40)),
        format=LeagueFormat.GAUNTLET if gauntlet else LeagueFormat.ROUND_ROBIN,
        candidate=draw(st.sampled_from(bots)) if gauntlet else None,
        duplicate=draw(st.booleans()),
        max_tables=draw(st.sampled_from([1, 2, 4, 8, 16, 200])),
    )


@st.composite
def cyclic_specs(draw: st.DrawFn) -> LeagueSpec:
    """Round-robins with more k-subsets than tables allowed, so the cyclic design is used."""
    k = draw(st.integers(3, 5))
    n = draw(st.integers(k + 2, 14))
    return LeagueSpec(
        league_id="cyc",
        game="5211",
        players_per_match=k,
        bots=tuple(NAMES[:n]) + tuple(f"extra{i}" for i in range(n - len(NAMES))),
        games_per_pairing=draw(st.integers(1, 3)),
        seed=draw(st.integers(0, 2**40)),
        duplicate=draw(st.booleans()),
        max_tables=draw(st.integers(1, math.comb(n, k) - 1)),
    )


def _seat_spread(matches: list[MatchSpec], k: int) -> int:
    seats: dict[str, Counter[int]] = defaultdict(Counter)
    for m in matches:
        for seat, bot in enumerate(m.bots):
            seats[bot][seat] += 1
    return max(max(c[s] for s in range(k)) - min(c[s] for s in range(k)) for c in seats.values())


def _check_common(spec: LeagueSpec, matches: list[MatchSpec]) -> None:
    k = spec.players_per_match
    assert [m.index for m in matches] == list(range(len(matches)))
    assert len({m.match_id for m in matches}) == len(matches)
    assert all(m.match_id == f"{spec.league_id}.{m.index:05d}" for m in matches)
    assert all(len(set(m.bots)) == k and set(m.bots) <= set(spec.bots) for m in matches)
    assert all(m.game == spec.game and m.league_id == spec.league_id for m in matches)
    tables = league_tables(spec)
    per_deal = k if spec.duplicate else 1
    assert len(matches) == len(tables) * spec.games_per_pairing * per_deal
    # Every bot sits in every seat equally often, within one.
    assert _seat_spread(matches, k) <= 1
    # Deals: one number per deal id, k rotations of it with duplicates, one match otherwise.
    deals: dict[str, list[MatchSpec]] = defaultdict(list)
    for m in matches:
        deals[m.deal_id].append(m)
    assert len({ms[0].deal for ms in deals.values()}) == len(deals)
    for group in deals.values():
        assert len({m.deal for m in group}) == 1
        assert len(group) == per_deal
        if spec.duplicate:
            assert len({frozenset(m.bots) for m in group}) == 1
            assert sorted(m.rotation for m in group) == list(range(k))
            for bot in group[0].bots:
                assert sorted(m.bots.index(bot) for m in group) == list(range(k)), "every hand once"
    # Determinism, and the JSON round trip.
    assert schedule_league(spec) == matches
    assert [MatchSpec.from_dict(json.loads(json.dumps(m.to_dict()))) for m in matches] == matches
    assert LeagueSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


@settings(max_examples=60, deadline=None)
@given(spec=specs())
def test_round_robin_properties(spec: LeagueSpec) -> None:
    event(f"design {spec.design.value}, duplicate {spec.duplicate}")
    _check_round_robin(spec)


@pytest.mark.slow  # in make test, not make test-fast
@settings(max_examples=25, deadline=None)
@given(spec=cyclic_specs())
def test_cyclic_round_robin_properties(spec: LeagueSpec) -> None:
    assert spec.design is Design.CYCLIC
    _check_round_robin(spec)


def _check_round_robin(spec: LeagueSpec) -> None:
    matches = schedule_league(spec)
    _check_common(spec, matches)
    k, n = spec.players_per_match, len(spec.bots)
    tables = Counter(frozenset(t) for t in league_tables(spec))
    pairs = Counter(frozenset(p) for t in tables.elements() for p in itertools.combinations(t, 2))
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(spec.bots, 2)}, "all pairs meet"
    if spec.design is Design.CYCLIC:
        assert max(pairs.values()) - min(pairs.values()) <= 1
        assert len(Counter(b for t in tables.elements() for b in t).values()) == n
        assert len(set(Counter(b for t in tables.elements() for b in t).values())) == 1
    else:
        # Every k-subset (every pair for k = 2) exactly once.
        assert set(tables.values()) == {1}
        assert len(tables) == math.comb(n, k)
        assert spec.design is (Design.CIRCLE if k == 2 else Design.ALL_SUBSETS)
    if k == 2:
        # Within each pairing the seats alternate: equal, or within one for an odd count.
        first: Counter[tuple[str, str]] = Counter()
        for m in matches:
            first[(m.bots[0], m.bots[1])] += 1
        for a, b in itertools.combinations(spec.bots, 2):
            assert abs(first[(a, b)] - first[(b, a)]) <= 1


@settings(max_examples=40, deadline=None)
@given(spec=specs(gauntlet=True))
def test_gauntlet_properties(spec: LeagueSpec) -> None:
    event(f"design {spec.design.value}, duplicate {spec.duplicate}")
    matches = schedule_league(spec)
    _check_common(spec, matches)
    assert all(spec.candidate in m.bots for m in matches)
    field = [b for b in spec.bots if b != spec.candidate]
    appearances = Counter(b for t in league_tables(spec) for b in t if b != spec.candidate)
    assert set(appearances) == set(field) and len(set(appearances.values())) == 1
    if spec.players_per_match > 2:
        pairs = Counter(
            frozenset(p)
            for t in league_tables(spec)
            for p in itertools.combinations([b for b in t if b != spec.candidate], 2)
        )
        assert max(pairs.values()) - min(pairs.values()) <= 1


@settings(max_examples=20, deadline=None)
@given(spec=specs(), other_seed=st.integers(0, 2**40))
def test_ids_depend_on_league_and_index_only(spec: LeagueSpec, other_seed: int) -> None:
    reseeded = LeagueSpec.from_dict(spec.to_dict() | {"seed": other_seed})
    a, b = schedule_league(spec), schedule_league(reseeded)
    assert [m.match_id for m in a] == [m.match_id for m in b]
    assert [(m.deal, m.deal_id) for m in a] == [(m.deal, m.deal_id) for m in b]


def test_duplicate_two_player_plays_each_deal_both_ways() -> None:
    spec = LeagueSpec("L", "5211", 2, ("a", "b", "c"), games_per_pairing=2, seed=9, duplicate=True)
    matches = schedule_league(spec)
    assert len(matches) == 3 * 2 * 2
    for first, second in itertools.pairwise(matches[::2]):
        assert first.deal_id != second.deal_id
    for m, n in zip(matches[::2], matches[1::2], strict=True):
        assert m.deal == n.deal and m.deal_id == n.deal_id and m.bots == n.bots[::-1]


def test_deal_seeds_are_json_safe_stable_and_keyed_by_the_secret() -> None:
    key, other = b"k" * SECRET_BYTES, b"o" * SECRET_BYTES
    assert deal_seed(key, 0) == deal_seed(key, 0) != deal_seed(key, 1)
    assert deal_seed(key, 0) != deal_seed(other, 0)
    assert all(0 <= deal_seed(bytes([s]) * SECRET_BYTES, d) < 2**53 for s in range(20) for d in range(20))


def test_default_design_choice() -> None:
    twelve = tuple(NAMES)
    assert LeagueSpec("L", "5211", 2, twelve).design is Design.CIRCLE
    assert LeagueSpec("L", "5211", 3, twelve[:11]).design is Design.ALL_SUBSETS  # 165 tables
    assert LeagueSpec("L", "5211", 3, twelve).design is Design.CYCLIC  # 220 > 200


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"players_per_match": 6}, "2 to 5 players"),
        ({"bots": ("a",)}, "cannot fill"),
        ({"bots": ("a", "a", "b")}, "distinct"),
        ({"games_per_pairing": 0}, "at least 1"),
        ({"max_tables": 0}, "at least 1"),
        ({"league_id": "a b"}, "without spaces"),
        ({"format": LeagueFormat.GAUNTLET, "candidate": "zz"}, "not one of the bots"),
        ({"candidate": "a"}, "only for a gauntlet"),
    ],
)
def test_invalid_specs(changes: dict[str, object], message: str) -> None:
    fields: dict[str, object] = {
        "league_id": "L",
        "game": "5211",
        "players_per_match": 2,
        "bots": ("a", "b", "c"),
    } | changes
    with pytest.raises(LeagueSpecError, match=message):
        LeagueSpec(**fields)  # type: ignore[arg-type]


def test_unknown_game() -> None:
    with pytest.raises(UnknownGameError):
        LeagueSpec("L", "chess", 2, ("a", "b"))
