"""A readable text transcript of an Azul match, for ``arena demo --game azul`` and for people.

Pure functions from public views to lines of text (no I/O): ``format_view`` draws the factories,
the centre, every board's pattern lines beside its wall, its floor and score; ``format_tiling``
the wall-tiling of a round; ``format_result`` the final standings. ``describe_start``,
``describe_turn`` and ``describe_end`` are the catalogue's printer (``arena demo --game azul``).
Only public information is ever printed: each function reads the public views of the states it is
given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.azul.actions import FLOOR, Action, Take
from arena.games.azul.rules import GameAzul
from arena.games.azul.scoring import Board, Placement
from arena.games.azul.state import Observation, Phase, RoundResult, State, WallSide
from arena.games.azul.tiles import COLOURS, FLOOR_PENALTY, SIZE, format_tiles, standard_colour
from arena.games.base import Outcome, Seat

_GAME = GameAzul()


def seat_names(count: int, labels: Sequence[str] | None = None) -> list[str]:
    """``seat 0 (label)`` for each seat."""
    return [f"seat {seat}" + (f" ({labels[seat]})" if labels else "") for seat in range(count)]


def format_view(view: Observation, names: Sequence[str]) -> list[str]:
    """The table and every board, as at the start of a round or at any point of it."""
    factories = "  ".join(f"{n}:{format_tiles(f) or '-'}" for n, f in enumerate(view.factories))
    centre = ("S " if view.marker_in_centre else "") + (format_tiles(view.centre) or "")
    bag = " ".join(f"{c.name}{n}" for c, n in zip(COLOURS, view.bag_counts, strict=True))
    lines = [
        f"  factories  {factories}",
        f"  centre     {centre.strip() or '-'}",
        f"  bag        {bag}   lid {len(view.lid)}",
    ]
    for seat, board in enumerate(view.boards):
        lines.extend(format_board(board, names[seat], view.wall_side))
    return lines


def format_board(board: Board, name: str, wall_side: WallSide) -> list[str]:
    """One board: pattern lines (right-aligned, ``.`` empty) beside the wall, then the floor."""
    out = [f"  {name}: score {board.score}"]
    for index in range(SIZE):
        line = board.lines[index]
        slots = ["."] * (index + 1 - len(line)) + [tile.name for tile in line]
        row = " ".join(_wall_space(board, index, column, wall_side) for column in range(SIZE))
        out.append(f"    {' '.join(slots):>9} | {row}")
    floor = " ".join(tile.name for tile in board.floor) or "-"
    out.append(f"    floor {floor}" + (f"  (-{FLOOR_PENALTY[len(board.floor)]})" if board.floor else ""))
    return out


def _wall_space(board: Board, row: int, column: int, wall_side: WallSide) -> str:
    tile = board.wall[row][column]
    if tile is not None:
        return tile.name
    # An empty standard-wall space shows its printed colour in lower case.
    return standard_colour(row, column).name.lower() if wall_side is WallSide.STANDARD else "."


def format_placement(placement: Placement) -> str:
    """``line 2 -> column 4 +5``, or ``line 1 -> floor``."""
    if placement.column is None:
        return f"line {placement.line} -> floor"
    return f"line {placement.line} -> column {placement.column} +{placement.points}"


def format_take(view: Observation, seat: int, take: Take) -> str:
    """What a take does, from the view before it: ``3 R 4: 2 R to line 4, 1 to the floor, W to the centre``."""
    source = view.centre if take.from_centre else view.factories[take.source]
    count = source.count(take.colour)
    colour = take.colour.name
    parts = []
    if take.target == FLOOR:
        parts.append(f"{count} {colour} to the floor")
    else:
        line = view.boards[seat].lines[take.target - 1]
        placed = min(count, take.target - len(line))
        parts.append(f"{placed} {colour} to line {take.target}")
        if count > placed:
            parts.append(f"{count - placed} to the floor")
    if take.from_centre and view.marker_in_centre:
        parts.append("S (starts the next round)")
    rest = [tile for tile in source if tile != take.colour]
    if rest and not take.from_centre:
        parts.append(f"{format_tiles(rest)} to the centre")
    return f"{take}: {', '.join(parts)}"


def format_tiling(result: RoundResult, names: Sequence[str], last: bool = False) -> list[str]:
    """A round's wall-tiling: each seat's placements, floor penalty and new score (and who starts next)."""
    width = max(len(name) for name in names)
    out = [f"  wall-tiling of round {result.round}"]
    for seat, name in enumerate(names):
        placed = ", ".join(format_placement(p) for p in result.placements[seat]) or "nothing placed"
        floor = f", floor -{result.floor_penalties[seat]}" if result.floor_penalties[seat] else ""
        out.append(f"    {name:<{width}}  {placed}{floor}; score {result.scores[seat]}")
    if not last:
        out.append(f"    {names[result.next_starter]} starts the next round")
    return out


def format_result(view: Observation, outcome: Outcome, names: Sequence[str]) -> list[str]:
    """Why the game ended, the bonuses, and the final standings."""
    width = max(len(name) for name in names)
    why = "a horizontal row is complete" if view.end is not None and view.end.value == "row" else "round cap"
    out = [f"Result after {len(view.history)} rounds ({why})"]
    bonuses = view.bonuses or (0,) * len(names)
    for seat in sorted(range(len(names)), key=lambda s: (outcome.placings[s], s)):
        out.append(
            f"  {outcome.placings[seat]}. {names[seat]:<{width}}  {outcome.scores[seat]:>3} points "
            f"(bonus +{bonuses[seat]}, {view.boards[seat].complete_rows()} complete rows)"
        )
    out.append(f"Winner(s): {', '.join(names[s] for s in sorted(outcome.winners))}")
    return out


LEGEND = (
    "  tiles: B blue, Y yellow, R red, K black, W white; S the starting-player marker",
    "  walls: a space not yet tiled shows its colour in lower case (standard wall) or '.' (grey wall)",
)
"""The key to the letters, printed once at the start of a transcript."""


def describe_start(state: State, names: Sequence[str] | None = None) -> list[str]:
    """The header of a match (players, wall, the key to the letters), then its first round's table."""
    view = _GAME.public_view(state)
    names = names or seat_names(view.num_players)
    lines = [f"Azul, {view.num_players} players, {view.wall_side.value} wall", *LEGEND]
    if view.phase is Phase.OFFER:
        lines += _round_header(view, names)
    return lines


def describe_turn(
    before: State, actions: Mapping[Seat, Action], after: State, names: Sequence[str] | None = None
) -> list[str]:
    """What one decision did: the take (or every seat's tiling), any wall-tiling, and the next round's table."""
    old, new = _GAME.public_view(before), _GAME.public_view(after)
    names = names or seat_names(old.num_players)
    width = max(len(name) for name in names)
    lines = []
    for seat in sorted(actions):
        action = actions[seat]
        what = f"takes {format_take(old, seat, action)}" if isinstance(action, Take) else f"tiles {action}"
        lines.append(f"  {names[seat]:<{width}}  {what}")
    for result in new.history[len(old.history) :]:
        lines += format_tiling(result, names, last=new.end is not None and result is new.history[-1])
    if new.phase is Phase.OFFER and new.round != old.round:
        lines += _round_header(new, names)
    return lines


def describe_end(state: State, names: Sequence[str] | None = None) -> list[str]:
    """The final boards, why the game ended, the bonuses and the standings."""
    view = _GAME.public_view(state)
    outcome = _GAME.outcome(state)
    if outcome is None:
        return ["", "The match is not over."]
    names = names or seat_names(view.num_players)
    lines = ["", "Final boards"]
    for seat, board in enumerate(view.boards):
        lines += format_board(board, names[seat], view.wall_side)
    return lines + format_result(view, outcome, names)


def _round_header(view: Observation, names: Sequence[str]) -> list[str]:
    return ["", f"Round {view.round}: {names[view.starter]} starts", *format_view(view, names)]
