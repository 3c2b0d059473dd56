"""Expand a league spec into a deterministic list of match specs (pure: no I/O).

Which design is used when (``n`` bots, ``k`` players a match, ``g = games_per_pairing``):

==========================  =====================================================================
round-robin, k = 2          every pair, ordered by the circle method (rounds of disjoint pairs)
round-robin, k > 2          every k-subset if there are at most ``max_tables`` of them; otherwise a
                            cyclic design (:func:`arena.league.design.cyclic_blocks`): every bot
                            plays equally often, every pair meets equally often or within one
gauntlet                    the candidate with every (k-1)-subset of the field, or with the tables
                            of a cyclic design on the field when there are more than ``max_tables``
==========================  =====================================================================

A *table* (a set of bots) plays ``g`` deals. Without duplicate deals each deal is one match, and
seats are rotated: the first ``k·⌊g/k⌋`` matches of a table cycle through the k rotations of its
order (so within a pairing each bot has each seat equally often), and the remaining matches of
all tables are seated by an equitable edge colouring
(:func:`arena.league.design.equitable_seating`), so over the league every bot sits in every seat
equally often, within one. With duplicate deals each deal is played k times, once per rotation
of the seats, with the same seed: every bot plays every hand, and the k matches share a
``deal_id`` so results can be grouped. ``games_per_pairing`` counts deals, so a duplicate league
has k times as many matches.

Order: deal round by deal round (``for deal in range(g): for table in tables``), so a league cut
short is still balanced; a duplicate deal's k matches are consecutive.

Identifiers and seeds: match ``i`` of league ``L`` is ``"L.00042"``-style (``f"{L}.{i:05d}"``) and
deal ``j`` is ``f"{L}.d{j:05d}"``, so re-queuing a league gives the same ids (idempotent). The
league seed fixes the schedule only: it shuffles the bots before the design is built, so two seeds
give two different (equally balanced) schedules, and one seed always the same. It predicts no card:
a match spec names its deal by number, and the cards are dealt at play time from a seed the league
never publishes (:func:`deal_seed`, an HMAC of the deal number keyed by the league's secret, for
the rotations of a duplicate deal; a fresh random seed for every other match and every re-run).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import hmac
import math
from collections.abc import Mapping, Sequence
from typing import Any

from arena.errors import LeagueSpecError, echo
from arena.games.lookup import get_game
from arena.league.design import (
    EXTRA_BASE_BLOCKS,
    all_blocks,
    circle_rounds,
    cyclic_base_count,
    cyclic_blocks,
    equitable_seating,
)

DEFAULT_MAX_TABLES = 200
"""Use every k-subset as a table while there are at most this many; otherwise a cyclic design."""
SEED_BITS = 53


class LeagueFormat(enum.Enum):
    """Everyone against everyone, or one candidate against a field."""

    ROUND_ROBIN = "round_robin"
    GAUNTLET = "gauntlet"


class Design(enum.Enum):
    """Which table design a league uses (see the module docstring)."""

    CIRCLE = "circle"
    ALL_SUBSETS = "all_subsets"
    CYCLIC = "cyclic"


@dataclasses.dataclass(frozen=True, slots=True)
class LeagueSpec:
    """What a league is: who plays, how many a match, how often, and from which seed.

    For a gauntlet, ``candidate`` is one of ``bots`` and the others are the field.
    """

    league_id: str
    game: str
    players_per_match: int
    bots: tuple[str, ...]
    games_per_pairing: int = 1
    seed: int = 0
    format: LeagueFormat = LeagueFormat.ROUND_ROBIN
    candidate: str | None = None
    duplicate: bool = False
    max_tables: int = DEFAULT_MAX_TABLES
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bots", tuple(self.bots))
        object.__setattr__(self, "options", dict(self.options))
        k, n = self.players_per_match, len(self.bots)
        if not self.league_id or any(ch.isspace() for ch in self.league_id):
            raise LeagueSpecError(f"league id must be non-empty without spaces, not {echo(self.league_id)}")
        counts = get_game(self.game).player_counts  # raises UnknownGameError
        if k not in counts:
            raise LeagueSpecError(f"{self.game} is for {counts.start} to {counts.stop - 1} players, not {k} a match")
        if len(set(self.bots)) != n or not all(self.bots):
            raise LeagueSpecError(f"bot names must be distinct and non-empty: {list(self.bots)}")
        if n < k:
            raise LeagueSpecError(f"{n} bots cannot fill a {k}-player match")
        if self.games_per_pairing < 1:
            raise LeagueSpecError(f"games per pairing must be at least 1, not {self.games_per_pairing}")
        if self.max_tables < 1:
            raise LeagueSpecError(f"max tables must be at least 1, not {self.max_tables}")
        if self.format is LeagueFormat.GAUNTLET:
            if self.candidate not in self.bots:
                raise LeagueSpecError(f"gauntlet candidate {echo(str(self.candidate))} is not one of the bots")
        elif self.candidate is not None:
            raise LeagueSpecError("a candidate is only for a gauntlet")

    @property
    def design(self) -> Design:
        """The table design this spec expands to."""
        k, n = self.players_per_match, len(self.bots)
        if self.format is LeagueFormat.GAUNTLET:
            k, n = k - 1, n - 1
            if k == 1:
                return Design.ALL_SUBSETS
        elif k == 2:
            return Design.CIRCLE
        return Design.ALL_SUBSETS if math.comb(n, k) <= self.max_tables else Design.CYCLIC

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "league_id": self.league_id,
            "game": self.game,
            "players_per_match": self.players_per_match,
            "bots": list(self.bots),
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "format": self.format.value,
            "candidate": self.candidate,
            "duplicate": self.duplicate,
            "max_tables": self.max_tables,
            "options": dict(self.options),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LeagueSpec:
        """Read :meth:`to_dict`'s form back (optional keys take their defaults)."""
        return cls(
            league_id=str(data["league_id"]),
            game=str(data["game"]),
            players_per_match=int(data["players_per_match"]),
            bots=tuple(str(b) for b in data["bots"]),
            games_per_pairing=int(data.get("games_per_pairing", 1)),
            seed=int(data.get("seed", 0)),
            format=LeagueFormat(data.get("format", LeagueFormat.ROUND_ROBIN.value)),
            candidate=data.get("candidate"),
            duplicate=bool(data.get("duplicate", False)),
            max_tables=int(data.get("max_tables", DEFAULT_MAX_TABLES)),
            options=dict(data.get("options") or {}),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class MatchSpec:
    """One match to referee: its stable id, the bots in seat order, and which deal it plays.

    ``deal`` numbers the league's deals (``deal_id`` is its stable id); ``rotation`` is which seat
    rotation of its deal this match is (0 without duplicate deals). No seed: see :func:`deal_seed`.
    """

    match_id: str
    league_id: str
    index: int
    game: str
    bots: tuple[str, ...]
    deal: int
    deal_id: str
    rotation: int = 0
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "match_id": self.match_id,
            "league_id": self.league_id,
            "index": self.index,
            "game": self.game,
            "bots": list(self.bots),
            "deal": self.deal,
            "deal_id": self.deal_id,
            "rotation": self.rotation,
            "options": dict(self.options),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchSpec:
        """Read :meth:`to_dict`'s form back."""
        return cls(
            match_id=str(data["match_id"]),
            league_id=str(data["league_id"]),
            index=int(data["index"]),
            game=str(data["game"]),
            bots=tuple(str(b) for b in data["bots"]),
            deal=int(data["deal"]),
            deal_id=str(data["deal_id"]),
            rotation=int(data.get("rotation", 0)),
            options=dict(data.get("options") or {}),
        )


def match_id(league_id: str, index: int) -> str:
    """The stable id of match ``index`` of a league."""
    return f"{league_id}.{index:05d}"


def deal_id(league_id: str, deal: int) -> str:
    """The stable id of deal ``deal`` of a league."""
    return f"{league_id}.d{deal:05d}"


SECRET_BYTES = 32
"""The size of a league's deal secret (``secrets.token_bytes(SECRET_BYTES)``, kept server-side)."""


def deal_seed(secret: bytes, deal: int) -> int:
    """The seed of deal ``deal`` of the league whose secret is ``secret``, in ``range(2**53)``.

    An HMAC-SHA256 keyed by the secret: without the secret, knowing the league seed, the schedule and
    every other deal's seed predicts nothing about this one.
    """
    digest = hmac.new(secret, f"arena-league/deal/{deal}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def league_tables(spec: LeagueSpec) -> list[tuple[str, ...]]:
    """The league's tables (bot sets, in a base seat order) before deals and seat rotations."""
    k = spec.players_per_match
    bots = _shuffled(spec.bots, spec.seed)
    if spec.format is LeagueFormat.GAUNTLET:
        field = [b for b in bots if b != spec.candidate]
        assert spec.candidate is not None
        return [(spec.candidate, *(field[i] for i in block)) for block in _blocks(spec, len(field), k - 1)]
    if spec.design is Design.CIRCLE:
        return [(bots[a], bots[b]) for pairs in circle_rounds(len(bots)) for a, b in pairs]
    return [tuple(bots[i] for i in block) for block in _blocks(spec, len(bots), k)]


def match_count(spec: LeagueSpec) -> int:
    """How many matches :func:`schedule_league` gives for ``spec``, by arithmetic alone (no
    scheduling): exact, except for a cyclic design, where it is an upper bound (the design may
    use up to ``EXTRA_BASE_BLOCKS`` more base tables than it starts from)."""
    k, n = spec.players_per_match, len(spec.bots)
    if spec.format is LeagueFormat.GAUNTLET:
        tables = _block_count(spec, n - 1, k - 1)
    elif spec.design is Design.CIRCLE:
        tables = n * (n - 1) // 2
    else:
        tables = _block_count(spec, n, k)
    return tables * spec.games_per_pairing * (k if spec.duplicate else 1)


def _block_count(spec: LeagueSpec, n: int, k: int) -> int:
    if k == 1 or math.comb(n, k) <= spec.max_tables:
        return math.comb(n, k)
    return n * (cyclic_base_count(n, k, spec.max_tables) + EXTRA_BASE_BLOCKS)


def schedule_league(spec: LeagueSpec) -> list[MatchSpec]:
    """Every match of the league, in queue order (see the module docstring)."""
    k, games = spec.players_per_match, spec.games_per_pairing
    tables = league_tables(spec)
    # Seat orders: whole rotation cycles first, then an equitable seating of what is left.
    full = 0 if spec.duplicate else games // k * k
    leftover = [table for _ in range(full, games) for table in tables] if not spec.duplicate else []
    leftover_seated = iter(_seat_by_name(leftover, k))
    matches: list[MatchSpec] = []
    deal = 0
    for game in range(games):
        for table in tables:
            if spec.duplicate:
                orders = [(_rotate(table, r), r) for r in range(k)]
            elif game < full:
                orders = [(_rotate(table, game % k), 0)]
            else:
                orders = [(next(leftover_seated), 0)]
            for order, rotation in orders:
                matches.append(
                    MatchSpec(
                        match_id=match_id(spec.league_id, len(matches)),
                        league_id=spec.league_id,
                        index=len(matches),
                        game=spec.game,
                        bots=order,
                        deal=deal,
                        deal_id=deal_id(spec.league_id, deal),
                        rotation=rotation,
                        options=dict(spec.options),
                    )
                )
            deal += 1
    return matches


def _blocks(spec: LeagueSpec, n: int, k: int) -> list[tuple[int, ...]]:
    if k == 1 or math.comb(n, k) <= spec.max_tables:
        return all_blocks(n, k)
    return cyclic_blocks(n, k, spec.max_tables, seed=spec.seed)


def _shuffled(bots: Sequence[str], seed: int) -> list[str]:
    """The bots in an order fixed by the seed (a hash per position, stable across versions)."""

    def key(i: int) -> bytes:
        return hashlib.blake2b(f"arena-league/{seed}/order/{i}".encode(), digest_size=8).digest()

    return [bots[i] for i in sorted(range(len(bots)), key=key)]


def _rotate(table: Sequence[str], r: int) -> tuple[str, ...]:
    """Seat order shifted by ``r``: the bot in seat ``s`` moves to seat ``s + r``."""
    k = len(table)
    return tuple(table[(s - r) % k] for s in range(k))


def _seat_by_name(tables: Sequence[Sequence[str]], k: int) -> list[tuple[str, ...]]:
    names = sorted({b for t in tables for b in t})
    index = {b: i for i, b in enumerate(names)}
    seated = equitable_seating([[index[b] for b in t] for t in tables], k)
    return [tuple(names[i] for i in order) for order in seated]
