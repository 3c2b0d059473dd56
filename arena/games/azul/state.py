"""The Azul match state and the view of it that seats and spectators get.

Azul has no private information: every seat's observation equals the public view. What nobody
sees is the bag's order (and the seed and fixture refill orders that decide later bag orders);
the view shows the bag only as counts per colour. A grey-wall tiling's column choices are never
in a state before they are applied: the referee collects them and applies them together, and
the round's :class:`RoundResult` then shows them.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import NamedTuple

from arena.games.azul.actions import Tiling
from arena.games.azul.scoring import Board, Placement
from arena.games.azul.tiles import Tile


class WallSide(enum.Enum):
    """Which side of the boards every seat uses (option ``wall``)."""

    STANDARD = "standard"
    GREY = "grey"


class Phase(enum.Enum):
    """What the match is waiting for."""

    OFFER = "offer"
    """One seat takes tiles (sequential)."""
    TILING = "tiling"
    """Grey wall: every seat with a full line chooses columns (simultaneous)."""
    OVER = "over"


class EndReason(enum.Enum):
    """Why the game ended."""

    ROW = "row"
    """A seat completed a horizontal wall row."""
    MAX_ROUNDS = "max_rounds"
    """The safety cap on rounds was reached."""


@dataclasses.dataclass(frozen=True, slots=True)
class RoundResult:
    """One round's wall-tiling, as applied: public once it happened."""

    round: int
    starter: int
    tilings: tuple[Tiling | None, ...]
    """Grey wall: each seat's applied tiling action (``None`` for a seat without a full line)."""
    placements: tuple[tuple[Placement, ...], ...]
    floor_penalties: tuple[int, ...]
    scores: tuple[int, ...]
    """Each seat's score after the floor."""
    next_starter: int


class State(NamedTuple):
    """One point of one Azul match: the whole truth, bag order included. Immutable.

    A named tuple (like 5211's) because ``apply`` builds one per action.
    """

    num_players: int
    seed: int
    wall_side: WallSide
    max_rounds: int
    round: int
    """The round being played, from 1."""
    phase: Phase
    starter: int
    """The seat that started this round."""
    to_act: int
    """The seat to take tiles now (offer phase)."""
    factories: tuple[tuple[Tile, ...], ...]
    """Each factory's tiles in draw order; ``()`` once taken from."""
    centre: tuple[Tile, ...]
    """The centre's tiles, sorted (without the marker)."""
    marker_in_centre: bool
    marker_holder: int | None
    """The seat that took ``S`` this round (on its floor, or held if the floor was full)."""
    boards: tuple[Board, ...]
    bag: tuple[Tile, ...]
    """Hidden: drawn from the front."""
    lid: tuple[Tile, ...]
    """Sorted."""
    refills: tuple[tuple[Tile, ...], ...] | None
    """Hidden: the fixture's bag orders for the refills still to come (``None``: shuffle from the seed)."""
    refill_count: int
    """Refills so far (names the next seeded shuffle)."""
    history: tuple[RoundResult, ...]
    bonuses: tuple[int, ...] | None
    """End-of-game bonuses, once over."""
    end: EndReason | None
    tiling_seats: frozenset[int]
    """Grey wall, tiling phase: the seats with a full line, who choose now; empty otherwise."""


@dataclasses.dataclass(slots=True)
class Observation:
    """What any seat (or, with ``seat`` None, a spectator) may know: everything but the bag's order.

    Read-only by convention: a plain (not frozen) dataclass because ``observe`` builds one per
    decision and a frozen one costs several times as much to build. Its fields are immutable values
    and a fresh one is built for every call, so changing one changes nothing else.
    """

    seat: int | None
    num_players: int
    wall_side: WallSide
    max_rounds: int
    round: int
    phase: Phase
    starter: int
    to_move: tuple[int, ...]
    """The seats to act now (several during a grey-wall tiling)."""
    factories: tuple[tuple[Tile, ...], ...]
    centre: tuple[Tile, ...]
    marker_in_centre: bool
    marker_holder: int | None
    boards: tuple[Board, ...]
    bag_counts: tuple[int, ...]
    """Tiles left in the bag per colour, ``B Y R K W``."""
    lid: tuple[Tile, ...]
    history: tuple[RoundResult, ...]
    bonuses: tuple[int, ...] | None
    end: EndReason | None
