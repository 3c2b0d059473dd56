"""The combinatorial designs: circle method, cyclic designs and equitable seating."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.league.design import (
    all_blocks,
    circle_rounds,
    cyclic_base_count,
    cyclic_blocks,
    equitable_seating,
    pair_meetings,
    pair_spread,
)


@pytest.mark.parametrize("n", range(2, 12))
def test_circle_rounds_meet_every_pair_once_in_disjoint_rounds(n: int) -> None:
    rounds = circle_rounds(n)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    pairs = [frozenset(p) for r in rounds for p in r]
    assert Counter(pairs) == Counter(frozenset(p) for p in itertools.combinations(range(n), 2))
    for r in rounds:
        bots = [b for p in r for b in p]
        assert len(bots) == len(set(bots)) == n - n % 2


def test_all_blocks_is_every_subset() -> None:
    assert all_blocks(5, 3) == list(itertools.combinations(range(5), 3))
    assert pair_spread(5, all_blocks(5, 3)) == 0


# A sweep of the cases the schedule meets with the default budget of 200 tables, and some with
# small budgets (λ near 1, the hardest): the cyclic design keeps every pair within one.
SWEEP = [
    (12, 3, 200),
    (16, 3, 200),
    (25, 3, 200),
    (10, 4, 200),
    (13, 4, 200),
    (20, 4, 200),
    (10, 5, 200),
    (14, 5, 200),
    (21, 5, 200),
    (13, 3, 1),
    (19, 4, 1),
    (21, 5, 1),
    (30, 4, 60),
]


@pytest.mark.parametrize(("n", "k", "budget"), SWEEP)
def test_cyclic_design_is_balanced(n: int, k: int, budget: int) -> None:
    blocks = cyclic_blocks(n, k, budget, seed=3)
    assert all(len(set(b)) == k for b in blocks)
    assert len(blocks) % n == 0 and len(blocks) >= cyclic_base_count(n, k, budget) * n
    plays = Counter(b for block in blocks for b in block)
    assert set(plays.values()) == {len(blocks) * k // n}, "every bot plays equally often"
    assert pair_spread(n, blocks) <= 1
    assert min(pair_meetings(n, blocks).values()) >= 1, "every pair meets"


@settings(max_examples=30, deadline=None)
@given(n=st.integers(4, 14), k=st.integers(2, 5), budget=st.integers(1, 80), seed=st.integers(0, 2**32))
def test_cyclic_design_property(n: int, k: int, budget: int, seed: int) -> None:
    k = min(k, n - 1)
    blocks = cyclic_blocks(n, k, budget, seed)
    assert pair_spread(n, blocks) <= 1
    assert len(set(Counter(b for block in blocks for b in block).values())) == 1
    assert blocks == cyclic_blocks(n, k, budget, seed), "deterministic"


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 9),
    k=st.integers(2, 5),
    tables=st.integers(1, 40),
    data=st.data(),
)
def test_equitable_seating_balances_every_bot(n: int, k: int, tables: int, data: st.DataObject) -> None:
    k = min(k, n)
    subsets = list(itertools.combinations(range(n), k))
    chosen = [data.draw(st.sampled_from(subsets)) for _ in range(tables)]
    seated = equitable_seating(chosen, k)
    assert [sorted(s) for s in seated] == [sorted(c) for c in chosen]
    for bot in range(n):
        seats = Counter(s.index(bot) for s in seated if bot in s)
        counts = [seats[i] for i in range(k)]
        assert max(counts) - min(counts) <= 1


def test_equitable_seating_rejects_a_short_table() -> None:
    with pytest.raises(ValueError, match="3 distinct bots"):
        equitable_seating([(0, 1)], 3)


def test_design_sizes() -> None:
    # 200 // 12 = 16 base tables of 12 shifts; 30 bots in fours need at least 3 to meet everyone.
    assert cyclic_base_count(12, 3, 200) == 16
    assert cyclic_base_count(30, 4, 1) == math.ceil(29 / 12)
