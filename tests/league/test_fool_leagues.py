"""Leagues of 4- to 8-player FOOL! matches: balanced tables, seat rotation and duplicate deals, and ratings
from 8-player results (real FOOL! outcomes between the heuristic and random policies)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.catalogue import policy
from arena.games.fool import RULES
from arena.league.result import StoredResult
from arena.league.schedule import Design, LeagueSpec, schedule_league
from arena.league.table import LeagueTable
from tests.league.test_schedule import NAMES, _check_common


@st.composite
def fool_specs(draw: st.DrawFn) -> LeagueSpec:
    k = draw(st.integers(4, 8))
    n = draw(st.integers(k, 12))
    return LeagueSpec(
        league_id="fool",
        game="fool",
        players_per_match=k,
        bots=tuple(NAMES[:n]),
        games_per_pairing=draw(st.integers(1, 3)),
        seed=draw(st.integers(0, 2**40)),
        duplicate=draw(st.booleans()),
        max_tables=draw(st.sampled_from([1, 3, 12, 200])),
    )


@settings(max_examples=40, deadline=None)
@given(spec=fool_specs())
def test_fool_leagues_are_balanced_rotated_and_deal_duplicates_to_every_seat(spec: LeagueSpec) -> None:
    _check_common(spec, schedule_league(spec))


def test_an_eight_player_duplicate_deal_is_played_in_all_eight_rotations() -> None:
    spec = LeagueSpec("L8", "fool", 8, tuple(NAMES[:9]), games_per_pairing=1, seed=3, duplicate=True, max_tables=3)
    assert spec.design is Design.CYCLIC  # 9 tables of 8 would be all of them; 3 are allowed
    matches = schedule_league(spec)
    _check_common(spec, matches)
    for start in range(0, len(matches), 8):
        group = matches[start : start + 8]
        assert len({m.deal_id for m in group}) == 1
        assert sorted(m.rotation for m in group) == list(range(8))


def test_a_league_spec_refuses_a_player_count_fool_is_not_for() -> None:
    with pytest.raises(ValueError, match="fool is for 4 to 8 players, not 3 a match"):
        LeagueSpec("bad", "fool", 3, tuple(NAMES[:4]))


def play(seats: list[str], seed: int) -> StoredResult:
    """One in-process FOOL! match between the seats' built-in policies (named by the bot's prefix)."""
    bots = [policy("fool", name.split("-")[0], seed * 10 + seat) for seat, name in enumerate(seats)]
    state = RULES.initial_state(len(seats), seed)
    while movers := RULES.to_move(state):
        (seat,) = movers
        state = RULES.apply(
            state, {seat: bots[seat].choose(RULES.observe(state, seat), RULES.legal_actions(state, seat))}
        )
    outcome = RULES.outcome(state)
    assert outcome is not None
    return StoredResult.from_outcome(f"m{seed}", seats, outcome)


def test_ratings_from_eight_player_results_rank_the_heuristic_above_random() -> None:
    bots = [f"heuristic-{i}" for i in range(4)] + [f"random-{i}" for i in range(4)]
    spec = LeagueSpec("R8", "fool", 8, tuple(bots), games_per_pairing=24, seed=5)
    results = [play(list(m.bots), 100 + m.index) for m in schedule_league(spec)]
    assert len(results) == 24
    assert all(len(r.bots) == 8 for r in results)
    table = LeagueTable.from_results(results, bots)
    assert table.matches == 24
    ranked = [row.bot for row in table.rows]
    assert set(ranked[:4]) == set(bots[:4]), [(row.bot, round(row.rating)) for row in table.rows]
    assert all(row.matches == 24 for row in table.rows)
    assert all(math.isfinite(row.rating_low) and row.rating_low <= row.rating <= row.rating_high for row in table.rows)
    assert all(row.rated for row in table.rows)
    assert min(row.rating for row in table.rows[:4]) > max(row.rating for row in table.rows[4:])
