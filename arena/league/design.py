"""Combinatorial designs for leagues: who meets whom, and who sits where.

Pure combinatorics on bot indices ``0..n-1``; :mod:`arena.league.schedule` maps them to bots,
seeds and match ids. Three table designs and one seating method:

- :func:`circle_rounds`: the circle method for 2-player round-robins (rounds of disjoint pairs,
  every pair once).
- :func:`all_blocks`: every k-subset once (a complete design: perfectly balanced).
- :func:`cyclic_blocks`: a *cyclic* design when there are too many k-subsets. The bots are the
  integers mod n; ``m`` base tables are chosen and each is shifted by ``0..n-1``, giving ``m·n``
  tables in which every bot plays exactly ``m·k`` times. Two bots meet as often as their
  difference ``±d`` occurs inside the base tables, so balancing the pairs is balancing ``n/2``
  difference counts, a small search: greedy base tables, then steepest-descent replacement of
  one element of one base table, with deterministic random kicks out of local minima. The
  search stops as soon as every pair meets equally often or within one (:func:`pair_spread`
  at most 1); if ``m`` base tables do not get there it tries ``m + 1`` up to ``m + 3`` and keeps
  the best. In a sweep over n ≤ 60 bots, k = 2..5 and several table budgets it reached a spread
  of at most 1 every time (tests/league re-checks a sample).
- :func:`equitable_seating`: seat orders for a list of tables so that every bot sits in every
  seat equally often, within one. It is an equitable edge colouring (de Werra): bots and
  tables form a bipartite graph, each bot's appearances are cut into consecutive chunks of k,
  and a proper k-edge-colouring (colour = seat) gives each table every seat once and each chunk
  every seat at most once, so each bot's count in each seat is ``⌊a/k⌋`` or ``⌈a/k⌉``.

Everything here is deterministic: the only randomness is a SplitMix64 stream from a given seed,
which unlike :mod:`random` has a fixed definition across Python versions.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence

Block = tuple[int, ...]
"""A table: bot indices (sorted in a design, in seat order once seated)."""

EXTRA_BASE_BLOCKS = 3
"""How many more base tables :func:`cyclic_blocks` may use when the budget does not balance."""
SEARCH_STEPS = 300
"""Improvement steps (or kicks) per attempt of the cyclic search."""

_MASK64 = (1 << 64) - 1


class SplitMix64:
    """A tiny deterministic generator (SplitMix64), stable across Python versions."""

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK64

    def next(self) -> int:
        """The next 64-bit value."""
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK64
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """An integer in ``range(bound)`` (the modulo bias is irrelevant here)."""
        return self.next() % bound


def circle_rounds(n: int) -> list[list[tuple[int, int]]]:
    """A round-robin by the circle method: each round is disjoint pairs, each pair meets once.

    ``n`` even gives ``n - 1`` rounds of ``n / 2`` pairs; ``n`` odd adds a phantom bot and gives
    ``n`` rounds in which one bot rests. Bot 0 (or the phantom) stays put while the others turn
    one place per round; the fixed bot's pair is flipped every other round (Berger tables).

    Raises ``ValueError`` for fewer than 2 bots.
    """
    if n < 2:
        raise ValueError(f"a round-robin needs at least 2 bots, not {n}")
    m = n + n % 2
    ring = list(range(m))
    rounds: list[list[tuple[int, int]]] = []
    for number in range(m - 1):
        pairs: list[tuple[int, int]] = []
        for i in range(m // 2):
            a, b = ring[i], ring[m - 1 - i]
            if a >= n or b >= n:
                continue  # the phantom's opponent rests this round
            pairs.append((b, a) if i == 0 and number % 2 else (a, b))
        rounds.append(pairs)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def all_blocks(n: int, k: int) -> list[Block]:
    """Every k-subset of ``range(n)``, in lexicographic order."""
    return list(itertools.combinations(range(n), k))


def cyclic_base_count(n: int, k: int, max_tables: int) -> int:
    """The number of base tables :func:`cyclic_blocks` starts from (each gives ``n`` tables).

    ``max_tables // n``, but at least 1 and at least enough that every pair can meet once
    (``m·n·C(k,2) >= C(n,2)``, that is ``m >= (n-1) / (k(k-1))``).
    """
    return max(1, max_tables // n, math.ceil((n - 1) / (k * (k - 1))))


def cyclic_blocks(n: int, k: int, max_tables: int, seed: int = 0) -> list[Block]:
    """A cyclic design of about ``max_tables`` k-subsets (see the module docstring).

    Every bot plays equally often; every pair meets equally often or within one (checked in
    tests over a sweep; :func:`pair_spread` measures any result). Tables come shift by shift,
    so each bot's appearances are spread evenly through the list.

    Raises ``ValueError`` unless ``1 <= k <= n``.
    """
    if not 1 <= k <= n:
        raise ValueError(f"tables of {k} need 1 <= k <= bots ({n})")
    if k == 1:
        return [(b,) for b in range(n)]
    start = cyclic_base_count(n, k, max_tables)
    best: tuple[int, list[list[int]]] | None = None
    for count in range(start, start + EXTRA_BASE_BLOCKS + 1):
        base, spread = _DifferenceSearch(n, k, count, SplitMix64(seed * 1_000_003 + count)).run()
        if best is None or spread < best[0]:
            best = (spread, base)
        if spread <= 1:
            break
    assert best is not None
    return [tuple(sorted((b + shift) % n for b in block)) for shift in range(n) for block in best[1]]


class _DifferenceSearch:
    """Search for ``count`` base tables in Z_n whose difference counts are as even as it finds.

    Difference class ``d`` (1 ≤ d ≤ n/2) holds the pairs ``{x, x+d}``: ``n`` of them, or ``n/2``
    for ``d = n/2``, where each base pair counts twice (both orientations give the same pair).
    ``meet[d]`` is how often each pair of class d meets; the objective is the sum over all pairs
    of meetings squared, ``Σ weight[d]·meet[d]²``, least when the counts are within one.
    """

    def __init__(self, n: int, k: int, count: int, rng: SplitMix64) -> None:
        self.n, self.k, self.count, self.rng = n, k, count, rng
        half = n // 2
        self.weight = [0] + [n] * half
        self.unit = [0] + [1] * half
        if n % 2 == 0:
            self.weight[half], self.unit[half] = n // 2, 2
        self.cls = [[min((b - a) % n, (a - b) % n) for b in range(n)] for a in range(n)]
        self.meet = [0] * (half + 1)
        self.blocks: list[list[int]] = []

    def spread(self) -> int:
        return max(self.meet[1:]) - min(self.meet[1:])

    def run(self) -> tuple[list[list[int]], int]:
        """Greedy start, then steepest descent with kicks; the best tables found and their spread."""
        for _ in range(self.count):
            self._add_greedy_block()
        best = (self.spread(), [b[:] for b in self.blocks])
        for _ in range(SEARCH_STEPS):
            if best[0] <= 1:
                break
            move = self._best_move()
            if move is None:
                # A local minimum that is not balanced: kick two random elements and go on.
                for _ in range(2):
                    i, j = self.rng.below(self.count), self.rng.below(self.k)
                    free = [v for v in range(self.n) if v not in self.blocks[i]]
                    self._replace(i, j, free[self.rng.below(len(free))])
                continue
            self._replace(*move)
            if self.spread() < best[0]:
                best = (self.spread(), [b[:] for b in self.blocks])
        return best[1], best[0]

    def _add_greedy_block(self) -> None:
        block: list[int] = []
        cls, meet, unit, weight = self.cls, self.meet, self.unit, self.weight
        for _ in range(self.k):
            offset = self.rng.below(self.n)
            v = min(
                (v for v in range(self.n) if v not in block),
                key=lambda v: (
                    sum(weight[cls[v][y]] * (2 * meet[cls[v][y]] + unit[cls[v][y]]) for y in block),
                    (v - offset) % self.n,
                ),
            )
            block.append(v)
            self._count(block, v, 1)
        self.blocks.append(block)

    def _best_move(self) -> tuple[int, int, int] | None:
        """The replacement (block, position, value) that lowers the objective most, if any."""
        best: tuple[int, int, int, int] | None = None
        for i, block in enumerate(self.blocks):
            for j, x in enumerate(block):
                for v in range(self.n):
                    if v in block:
                        continue
                    cost = self._replace_cost(block, x, v)
                    if cost < 0 and (best is None or cost < best[0]):
                        best = (cost, i, j, v)
        return None if best is None else best[1:]

    def _replace_cost(self, block: Sequence[int], x: int, v: int) -> int:
        cls, unit, meet = self.cls, self.unit, self.meet
        change: dict[int, int] = defaultdict(int)
        for y in block:
            if y != x:
                change[cls[x][y]] -= unit[cls[x][y]]
                change[cls[v][y]] += unit[cls[v][y]]
        return sum(self.weight[d] * ((meet[d] + u) ** 2 - meet[d] ** 2) for d, u in change.items() if u)

    def _replace(self, i: int, j: int, v: int) -> None:
        block = self.blocks[i]
        self._count(block, block[j], -1)
        block[j] = v
        self._count(block, v, 1)

    def _count(self, block: Sequence[int], v: int, sign: int) -> None:
        """Add (or remove) the pairs between ``v`` and the rest of ``block``."""
        for y in block:
            if y != v:
                d = self.cls[v][y]
                self.meet[d] += sign * self.unit[d]


def pair_meetings(n: int, blocks: Sequence[Sequence[int]]) -> dict[tuple[int, int], int]:
    """How often each pair ``(p, q)``, ``p < q``, sits at the same table."""
    counts = dict.fromkeys(itertools.combinations(range(n), 2), 0)
    for block in blocks:
        for p, q in itertools.combinations(sorted(block), 2):
            counts[(p, q)] += 1
    return counts


def pair_spread(n: int, blocks: Sequence[Sequence[int]]) -> int:
    """Most meetings of any pair minus fewest: 0 is a balanced design, 1 the best otherwise."""
    counts = pair_meetings(n, blocks).values()
    return max(counts) - min(counts) if counts else 0


def equitable_seating(tables: Sequence[Sequence[int]], seats: int) -> list[Block]:
    """Each table's bots in a seat order such that every bot has every seat equally often ±1.

    Each table must hold ``seats`` distinct bots. See the module docstring for the method;
    a bot's appearances are chunked in list order, so the balance also holds over every
    stretch of ``seats`` consecutive appearances.

    Raises ``ValueError`` naming a table that does not hold ``seats`` distinct bots.
    """
    # Nodes: table g is node g; a bot's chunk gets a node after the tables.
    at: list[dict[int, int]] = [{} for _ in tables]  # node -> {colour: neighbour}
    owner: dict[int, int] = {}  # chunk node -> bot
    chunk_node: dict[tuple[int, int], int] = {}
    seen: dict[int, int] = defaultdict(int)
    for g, table in enumerate(tables):
        if len(table) != seats or len(set(table)) != seats:
            raise ValueError(f"table {g} must hold {seats} distinct bots, not {list(table)}")
        for bot in table:
            key = (bot, seen[bot] // seats)
            seen[bot] += 1
            if key not in chunk_node:
                chunk_node[key] = len(at)
                owner[len(at)] = bot
                at.append({})
            _colour_edge(at, chunk_node[key], g, seats)
    return [tuple(owner[at[g][colour]] for colour in range(seats)) for g in range(len(tables))]


def _colour_edge(at: list[dict[int, int]], u: int, v: int, colours: int) -> None:
    """Colour edge u–v properly, swapping an alternating path if needed (König's theorem)."""
    alpha = next(c for c in range(colours) if c not in at[u])
    beta = next(c for c in range(colours) if c not in at[v])
    if alpha in at[v]:
        # Walk from v along alpha, beta, alpha, ... edges; in a bipartite graph it cannot reach u.
        path = [v]
        colour = alpha
        while colour in at[path[-1]]:
            path.append(at[path[-1]][colour])
            colour = beta if colour == alpha else alpha
        for i in range(len(path) - 1):
            old = alpha if i % 2 == 0 else beta
            del at[path[i]][old]
            del at[path[i + 1]][old]
        for i in range(len(path) - 1):
            new = beta if i % 2 == 0 else alpha
            at[path[i]][new] = path[i + 1]
            at[path[i + 1]][new] = path[i]
    at[u][alpha] = v
    at[v][alpha] = u
