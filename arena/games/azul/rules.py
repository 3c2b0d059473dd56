"""The Azul rules engine: exactly the arena's rules contract (shared/rules/azul.md), 2 to 4 players.

The factory offer is sequential (one seat takes tiles at a time, clockwise from the starter). On the
standard wall, wall-tiling needs no decision and happens inside the ``apply`` of the round's last
take; on the grey wall every seat with a full line then chooses its columns in one simultaneous turn.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.errors import GameSetupError, IllegalActionError, InvalidActionError
from arena.games.azul.actions import CENTRE, FLOOR, MAX_FACTORIES, Action, Take, Tiling, parse_action
from arena.games.azul.scoring import (
    EMPTY_LINES,
    Board,
    BoardTiling,
    add_to_floor,
    end_bonus,
    grey_columns,
    place,
    tile_board,
)
from arena.games.azul.state import EndReason, Observation, Phase, RoundResult, State, WallSide
from arena.games.azul.tiles import (
    COLOURS,
    EMPTY_WALL,
    FACTORY_SIZE,
    MARKER,
    SIZE,
    TILES_PER_COLOUR,
    Tile,
    format_tiles,
    shown,
)
from arena.games.base import Outcome, Seat, Termination

OPTIONS: Final = frozenset({"wall", "max_rounds", "first"})
DEFAULT_MAX_ROUNDS: Final = 100
MAX_ROUNDS_LIMIT: Final = 1000
"""The largest ``max_rounds`` accepted: every round is bounded work, so the match is too."""
REFILL_SEPARATOR: Final = "/"
"""In a fixture ``deck``, separates the bag order from each refill's order."""
ALL_TILES: Final = tuple(tile for tile in COLOURS for _ in range(TILES_PER_COLOUR))

_NOBODY: Final[frozenset[Seat]] = frozenset()
_ONE: Final = tuple(frozenset({seat}) for seat in range(4))


def factory_count(num_players: int) -> int:
    """``2P + 1`` factories."""
    return 2 * num_players + 1


class GameAzul:
    """The rules of Azul, behind the game-agnostic ``GameRules`` interface."""

    name: Final = "azul"
    player_counts: Final = range(2, 5)

    # -- set-up ---------------------------------------------------------------------------------

    def initial_state(
        self,
        num_players: int,
        seed: int,
        options: Mapping[str, Any] | None = None,
        deck: Sequence[str] | None = None,
    ) -> State:
        """A new match, shuffled from ``seed``, or from the contract's test fixture.

        Options: ``wall`` (``"standard"``, the default, or ``"grey"``), ``max_rounds`` (the safety
        cap, default 100, at most 1000), ``first`` (the starting seat; public from the first turn,
        so an option; default: drawn from the seed). ``deck`` fixes the hidden orders: the 100
        tiles of the bag in draw order, then for each refill a ``"/"`` and the bag's new draw order
        (a permutation of the lid at that moment), e.g. ``["B", "Y", ..., "/", "R", "K", ...]``.
        A refill with no entry, or whose entry is not the lid, and an entry left unused when the
        game ends, raise ``GameSetupError``.
        """
        if num_players not in self.player_counts:
            raise GameSetupError(f"Azul is for 2 to 4 players, not {shown(num_players)}")
        opts = dict(options or {})
        unknown = sorted(str(key) for key in set(opts) - OPTIONS)
        if unknown:
            raise GameSetupError(f"unknown Azul option(s) {', '.join(map(shown, unknown))}; known: {sorted(OPTIONS)}")
        wall_text = opts.get("wall", WallSide.STANDARD.value)
        try:
            wall_side = WallSide(wall_text)
        except (ValueError, TypeError):
            raise GameSetupError(f"option wall must be 'standard' or 'grey', not {shown(wall_text)}") from None
        max_rounds = opts.get("max_rounds", DEFAULT_MAX_ROUNDS)
        if not isinstance(max_rounds, int) or isinstance(max_rounds, bool) or not 1 <= max_rounds <= MAX_ROUNDS_LIMIT:
            raise GameSetupError(
                f"option max_rounds must be an integer from 1 to {MAX_ROUNDS_LIMIT}, not {shown(max_rounds)}"
            )
        rng = random.Random(seed)
        if deck is None:
            bag = list(ALL_TILES)
            rng.shuffle(bag)
            refills: tuple[tuple[Tile, ...], ...] | None = None
        else:
            bag, refills = _parse_deck(deck)
        first = opts.get("first")
        if first is None:
            first = rng.randrange(num_players)
        elif not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < num_players:
            raise GameSetupError(f"option first must be a seat from 0 to {num_players - 1}, not {shown(first)}")
        board = Board(0, EMPTY_LINES, EMPTY_WALL, ())
        state = State(
            num_players=num_players,
            seed=seed,
            wall_side=wall_side,
            max_rounds=max_rounds,
            round=0,
            phase=Phase.OFFER,
            starter=first,
            to_act=first,
            factories=(),
            centre=(),
            marker_in_centre=True,
            marker_holder=None,
            boards=(board,) * num_players,
            bag=tuple(bag),
            lid=(),
            refills=refills,
            refill_count=0,
            history=(),
            bonuses=None,
            end=None,
            tiling_seats=_NOBODY,
        )
        return _start_round(state, first)

    # -- whose turn, and what they may do --------------------------------------------------------

    def to_move(self, state: State) -> frozenset[Seat]:
        """The seat taking tiles, or every seat with a full line in a grey-wall tiling."""
        if state.phase is Phase.OFFER:
            return _ONE[state.to_act]
        return state.tiling_seats

    def legal_actions(self, state: State, seat: Seat) -> tuple[Action, ...]:
        """Every distinct legal action of ``seat``, one spelling per outcome, in canonical order.

        Takes: factories in order then the centre, colours ``B Y R K W``, then lines 5 down to 1 and
        ``F``: the first action (the referee's fallback) puts tiles on the longest open line, where
        the fewest spill to the floor.
        Tilings: columns in ascending order, line by line (``n:F`` only where no column is legal).
        """
        if state.phase is Phase.OFFER:
            if seat != state.to_act:
                return ()
            return _legal_takes(state, state.boards[seat])
        if state.phase is Phase.TILING and 0 <= seat < state.num_players and state.boards[seat].full_lines():
            return _tilings(state.boards[seat])
        return ()

    def parse_action(self, text: str) -> Action:
        """Read an action in notation: ``3 R 4``, ``C K F``, or a grey-wall tiling ``2:4 5:1``."""
        return parse_action(text)

    def describe_action(self, state: State, seat: Seat) -> str:
        """What a legal action looks like now."""
        if state.phase is Phase.OVER:
            return "nothing to do: the match is over"
        if seat not in self.to_move(state):
            return f"seat {seat} is not to move"
        example = self.legal_actions(state, seat)[0]
        if state.phase is Phase.OFFER:
            return (
                "take every tile of one colour from a factory or the centre C and put them on a pattern "
                f"line 1-5 or the floor F, as 'source colour target', e.g. {example!s}"
            )
        lines = " ".join(str(index + 1) for index in state.boards[seat].full_lines())
        return (
            f"grey wall: choose a column for each full line ({lines}), top to bottom, as 'line:column' "
            f"('line:F' only when no column is legal), e.g. {example!s}"
        )

    def check_action(self, state: State, seat: Seat, action: object) -> Action:
        """Return ``action`` as a legal action of ``seat`` now, or raise saying exactly why not."""
        if state.phase is Phase.OVER:
            raise IllegalActionError(f"illegal action {shown(action)} for seat {seat}: the match is over")
        if not isinstance(action, (Take, Tiling)):
            raise InvalidActionError(
                f"invalid action {shown(action)}: expected a take like '3 R 4' or a tiling like '2:4 5:1'"
            )
        if seat not in self.to_move(state):
            raise IllegalActionError(f"illegal action {shown(action)}: seat {shown(seat)} is not to move")
        where = f"for seat {seat} in round {state.round}"
        if state.phase is Phase.OFFER:
            if not isinstance(action, Take):
                raise IllegalActionError(
                    f"illegal action {shown(action)} {where}: it is the factory offer; take tiles like '3 R 4'"
                )
            problem = _take_problem(state, state.boards[seat], action)
        else:
            if not isinstance(action, Tiling):
                raise IllegalActionError(
                    f"illegal action {shown(action)} {where}: it is the grey-wall tiling; "
                    "give a column per full line like '2:4 5:1'"
                )
            problem = _tiling_problem(state.boards[seat], action)
        if problem:
            raise IllegalActionError(f"illegal action {shown(action)} {where}: {problem}")
        return action

    # -- playing ----------------------------------------------------------------------------------

    def apply(self, state: State, actions: Mapping[Seat, Action]) -> State:
        """The state after the seats to move act: a take, or (grey wall) every tiling at once.

        Raises ``IllegalActionError`` naming the offending value (or once the match is over); ``state`` is never
        changed.
        """
        if state.phase is Phase.OFFER:
            seat = state.to_act
            action = actions.get(seat)
            if len(actions) != 1 or action is None:
                _raise_seats(state, _ONE[seat], actions)
            # The common case checked inline; anything else gets check_action's full reason.
            if type(action) is not Take or _take_problem(state, state.boards[seat], action):
                self.check_action(state, seat, action)
            assert isinstance(action, Take)
            return _take(state, seat, action)
        if state.phase is Phase.OVER:
            raise IllegalActionError("no action can be applied: the match is over")
        expected = self.to_move(state)
        if set(actions) != expected:
            _raise_seats(state, expected, actions)
        for seat in sorted(actions):
            self.check_action(state, seat, actions[seat])
        choices: dict[Seat, Tiling] = {}
        for seat, action in actions.items():
            assert isinstance(action, Tiling)
            choices[seat] = action
        return _wall_tiling(state, choices)

    # -- views and result -------------------------------------------------------------------------

    def observe(self, state: State, seat: Seat) -> Observation:
        """Everything public: Azul has no private information (the bag shows only counts).

        Raises ``IllegalActionError`` for a seat not in the match.
        """
        if not 0 <= seat < state.num_players:
            raise IllegalActionError(f"seat {shown(seat)} is not in this {state.num_players}-player match")
        return _view(state, seat, self.to_move(state))

    def public_view(self, state: State) -> Observation:
        """What a spectator may know: the same as every seat."""
        return _view(state, None, self.to_move(state))

    def round_result(self, view: Observation) -> tuple[int, RoundResult] | None:
        """The last wall-tiling of the match so far, and its round number (1-based)."""
        if not view.history:
            return None
        last = view.history[-1]
        return last.round, last

    def outcome(self, state: State) -> Outcome | None:
        """Most points wins; then more complete rows; still tied, a shared win."""
        if state.phase is not Phase.OVER:
            return None
        scores = tuple(board.score for board in state.boards)
        rows = tuple(board.complete_rows() for board in state.boards)
        return Outcome.from_keys(Termination.NORMAL, scores, list(zip(scores, rows, strict=True)))


# -- the factory offer ------------------------------------------------------------------------------


def _open_lines(board: Board) -> list[int]:
    """Per colour, the pattern lines open to it as a bit mask (bit ``n - 1`` for line ``n``).

    A line is open to a colour if it is empty or holds that colour, is not full, and its wall row
    does not hold the colour (a non-empty line's colour is never in its row). The floor is always
    open too.
    """
    masks = [0, 0, 0, 0, 0]
    wall = board.wall
    for index, line in enumerate(board.lines):
        size = len(line)
        if size > index:
            continue
        if size:
            masks[line[0]] |= 1 << index
            continue
        row = wall[index]
        for colour in _CODES:
            if colour not in row:
                masks[colour] |= 1 << index
    return masks


_CODES: Final = tuple(range(len(COLOURS)))
_TAKE_ROWS: Final = [
    [
        [
            tuple(
                Take.of(source, colour, target)
                for target in (*(n for n in range(SIZE, 0, -1) if mask >> (n - 1) & 1), FLOOR)
            )
            for mask in range(1 << SIZE)
        ]
        for colour in COLOURS
    ]
    for source in (*range(MAX_FACTORIES), CENTRE)
]
"""``_TAKE_ROWS[source][colour][open lines mask]``: the takes, longest line first, the floor last.

The centre is the last source, so ``CENTRE`` (-1) indexes it like a factory number."""


def _legal_takes(state: State, board: Board) -> tuple[Take, ...]:
    masks = _open_lines(board)
    rows = _TAKE_ROWS
    takes: list[Take] = []
    for source, tiles in enumerate(state.factories):
        if tiles:
            by_colour = rows[source]
            for colour in sorted(set(tiles)):
                takes += by_colour[colour][masks[colour]]
    if state.centre:
        by_colour = rows[CENTRE]
        for colour in sorted(set(state.centre)):
            takes += by_colour[colour][masks[colour]]
    return tuple(takes)


def _take_problem(state: State, board: Board, take: Take) -> str:
    if take.from_centre:
        tiles = state.centre
        where = "the centre"
    elif take.source >= len(state.factories):
        return f"there is no factory {take.source} (factories 0-{len(state.factories) - 1})"
    else:
        tiles = state.factories[take.source]
        where = f"factory {take.source}"
    if take.colour not in tiles:
        holds = format_tiles(tiles) if tiles else "nothing"
        return f"{where} holds no {take.colour.name} (it holds {holds})"
    if take.target == FLOOR:
        return ""
    index = take.target - 1
    line = board.lines[index]
    if take.colour in board.wall[index]:
        return f"wall row {take.target} already holds {take.colour.name}"
    if len(line) > index:
        return f"pattern line {take.target} is full"
    if line and line[0] is not take.colour:
        return f"pattern line {take.target} holds {line[0].name}"
    return ""


def _take(state: State, seat: Seat, take: Take) -> State:
    colour = take.colour
    factories = state.factories
    marker_in_centre = state.marker_in_centre
    marker_holder = state.marker_holder
    to_floor: list[Tile] = []
    if take.from_centre:
        count = state.centre.count(colour)
        centre = tuple(tile for tile in state.centre if tile is not colour)
        if marker_in_centre:
            marker_in_centre = False
            marker_holder = seat
            to_floor.append(MARKER)
    else:
        factory = factories[take.source]
        count = factory.count(colour)
        rest = [tile for tile in factory if tile is not colour]
        centre = tuple(sorted((*state.centre, *rest))) if rest else state.centre
        factories = (*factories[: take.source], (), *factories[take.source + 1 :])
    board = state.boards[seat]
    lines = board.lines
    if take.target == FLOOR:
        to_floor.extend([colour] * count)
    else:
        index = take.target - 1
        placed = min(count, index + 1 - len(lines[index]))
        lines = (*lines[:index], lines[index] + (colour,) * placed, *lines[index + 1 :])
        to_floor.extend([colour] * (count - placed))
    floor, overflow = add_to_floor(board.floor, to_floor)
    lid = state.lid
    # A full floor still lets its seat take S (held off the floor: no penalty); tiles go to the lid.
    spilled = [tile for tile in overflow if tile is not MARKER]
    if spilled:
        lid = tuple(sorted((*lid, *spilled)))
    boards = (*state.boards[:seat], Board(board.score, lines, board.wall, floor), *state.boards[seat + 1 :])
    # Built positionally (the hot path: one per take), in State's field order.
    new = State(
        state.num_players,
        state.seed,
        state.wall_side,
        state.max_rounds,
        state.round,
        state.phase,
        state.starter,
        (seat + 1) % state.num_players,
        factories,
        centre,
        marker_in_centre,
        marker_holder,
        boards,
        state.bag,
        lid,
        state.refills,
        state.refill_count,
        state.history,
        state.bonuses,
        state.end,
        state.tiling_seats,
    )
    if centre or any(factories):
        return new
    if new.wall_side is WallSide.GREY:
        choosing = frozenset(seat for seat, b in enumerate(boards) if b.full_lines())
        if choosing:
            return new._replace(phase=Phase.TILING, tiling_seats=choosing)
    return _wall_tiling(new, {})


# -- wall-tiling ------------------------------------------------------------------------------------


def _tilings(board: Board) -> tuple[Tiling, ...]:
    """Every legal grey-wall tiling of ``board``'s full lines, in canonical order.

    A full line's columns are those empty in its row whose column holds no tile of its colour; the
    only way an earlier line of the same tiling constrains a later one is by putting that colour in
    a column, so partial tilings carry a bit per (colour, column) they used.
    """
    partials: list[tuple[tuple[tuple[int, int | None], ...], int]] = [((), 0)]
    for index in board.full_lines():
        colour = board.lines[index][0]
        columns = grey_columns(board.wall, index, colour)
        extended: list[tuple[tuple[tuple[int, int | None], ...], int]] = []
        for placements, used in partials:
            free = [column for column in columns if not used >> (colour * SIZE + column) & 1]
            if not free:
                extended.append(((*placements, (index + 1, None)), used))
            for column in free:
                extended.append(((*placements, (index + 1, column + 1)), used | 1 << (colour * SIZE + column)))
        partials = extended
    return tuple(Tiling(placements) for placements, _ in partials)


def _tiling_problem(board: Board, tiling: Tiling) -> str:
    full = board.full_lines()
    wanted = " ".join(str(index + 1) for index in full)
    lines = [line for line, _ in tiling.placements]
    if lines != [index + 1 for index in full]:
        return f"give exactly one column for each full line, top to bottom: lines {wanted}"
    wall = board.wall
    for line, column in tiling.placements:
        index = line - 1
        colour = board.lines[index][0]
        legal = grey_columns(wall, index, colour)
        if column is None:
            if legal:
                columns = ", ".join(str(c + 1) for c in legal)
                return f"line {line} ({colour.name}) has a legal column ({columns}), so {line}:F is not allowed"
            continue
        if column - 1 not in legal:
            if wall[index][column - 1] is not None:
                why = f"wall row {line} column {column} is taken"
            else:
                why = f"wall column {column} already holds {colour.name}"
            return f"line {line}'s {colour.name} cannot go to column {column}: {why}"
        wall = place(wall, index, column - 1, colour)
    return ""


def _wall_tiling(state: State, choices: Mapping[Seat, Tiling]) -> State:
    """Tile every wall (with the grey-wall ``choices``), score floors, then end the game or start a round."""
    grey = state.wall_side is WallSide.GREY
    results: list[BoardTiling] = []
    to_lid: list[Tile] = list(state.lid)
    for seat, board in enumerate(state.boards):
        tiling = choices.get(seat)
        columns = None if tiling is None else [None if c is None else c - 1 for _, c in tiling.placements]
        result = tile_board(board, grey, columns)
        results.append(result)
        to_lid.extend(result.to_lid)
    boards = tuple(result.board for result in results)
    next_starter = state.starter if state.marker_holder is None else state.marker_holder
    record = RoundResult(
        round=state.round,
        starter=state.starter,
        tilings=tuple(choices.get(seat) for seat in range(state.num_players)) if grey else (),
        placements=tuple(result.placements for result in results),
        floor_penalties=tuple(result.floor_penalty for result in results),
        scores=tuple(board.score for board in boards),
        next_starter=next_starter,
    )
    state = state._replace(
        boards=boards,
        lid=tuple(sorted(to_lid)),
        history=(*state.history, record),
        centre=(),
        marker_in_centre=True,
        marker_holder=None,
        tiling_seats=_NOBODY,
    )
    row_done = any(board.complete_rows() for board in boards)
    if row_done or state.round >= state.max_rounds:
        if state.refills:
            raise GameSetupError(f"the fixture lists {len(state.refills)} refill order(s) that the game never used")
        bonuses = tuple(end_bonus(board.wall).bonus for board in boards)
        final = tuple(
            Board(board.score + bonus, board.lines, board.wall, board.floor)
            for board, bonus in zip(boards, bonuses, strict=True)
        )
        return state._replace(
            phase=Phase.OVER,
            boards=final,
            bonuses=bonuses,
            end=EndReason.ROW if row_done else EndReason.MAX_ROUNDS,
        )
    return _start_round(state, next_starter)


def _start_round(state: State, starter: Seat) -> State:
    """Refill the factories for the next round; a round with no tiles goes straight to wall-tiling."""
    bag = list(state.bag)
    lid = state.lid
    refills = state.refills
    refill_count = state.refill_count
    factories: list[tuple[Tile, ...]] = []
    for _ in range(factory_count(state.num_players)):
        factory: list[Tile] = []
        while len(factory) < FACTORY_SIZE:
            if not bag:
                if not lid:
                    break
                refill_count += 1
                bag, refills = _refill(state.seed, lid, refills, refill_count)
                lid = ()
            factory.append(bag.pop(0))
        factories.append(tuple(factory))
    state = state._replace(
        round=state.round + 1,
        phase=Phase.OFFER,
        starter=starter,
        to_act=starter,
        factories=tuple(factories),
        centre=(),
        marker_in_centre=True,
        marker_holder=None,
        bag=tuple(bag),
        lid=lid,
        refills=refills,
        refill_count=refill_count,
    )
    if any(factories):
        return state
    # Bag and lid are both empty: no offer this round (contract: a round with no tiles).
    return _wall_tiling(state, {})


def _refill(
    seed: int, lid: tuple[Tile, ...], refills: tuple[tuple[Tile, ...], ...] | None, number: int
) -> tuple[list[Tile], tuple[tuple[Tile, ...], ...] | None]:
    """The bag's new order from the lid: the fixture's next entry, or a shuffle named by seed and number."""
    if refills is None:
        order = list(lid)
        random.Random(f"azul/{seed}/refill{number}").shuffle(order)
        return order, None
    if not refills:
        raise GameSetupError(f"the fixture has no order for refill {number} (the lid holds {len(lid)} tiles)")
    entry = refills[0]
    if tuple(sorted(entry)) != lid:
        raise GameSetupError(
            f"the fixture's refill {number} order ({len(entry)} tiles) is not a permutation of the lid "
            f"({len(lid)} tiles: {format_tiles(lid)[:40]})"
        )
    return list(entry), refills[1:]


def _raise_seats(state: State, expected: frozenset[Seat], actions: Mapping[Seat, Any]) -> None:
    if state.phase is Phase.OVER:
        raise IllegalActionError("no action can be applied: the match is over")
    for seat in actions:
        if seat not in expected:
            raise IllegalActionError(f"illegal action {shown(actions[seat])} for seat {shown(seat)}: it is not to move")
    missing = ", ".join(str(seat) for seat in sorted(expected - set(actions)))
    raise IllegalActionError(f"no action for seat(s) {missing}: every seat to move acts in this turn")


# -- views ------------------------------------------------------------------------------------------


def _view(state: State, seat: Seat | None, to_move: frozenset[Seat]) -> Observation:
    # Built positionally (one per decision), in Observation's field order.
    return Observation(
        seat,
        state.num_players,
        state.wall_side,
        state.max_rounds,
        state.round,
        state.phase,
        state.starter,
        (state.to_act,) if state.phase is Phase.OFFER else tuple(sorted(to_move)),
        state.factories,
        state.centre,
        state.marker_in_centre,
        state.marker_holder,
        state.boards,
        _bag_counts(state.bag),
        state.lid,
        state.history,
        state.bonuses,
        state.end,
    )


def _bag_counts(bag: tuple[Tile, ...]) -> tuple[int, ...]:
    """Tiles per colour in ``bag``, remembered by identity: a bag changes only when a round starts."""
    found = _counted.get(id(bag))
    if found is not None and found[0] is bag:
        return found[1]
    counts = (bag.count(Tile.B), bag.count(Tile.Y), bag.count(Tile.R), bag.count(Tile.K), bag.count(Tile.W))
    if len(_counted) >= _COUNTED_SIZE:
        _counted.clear()
    _counted[id(bag)] = (bag, counts)
    return counts


_COUNTED_SIZE: Final = 4096
_counted: dict[int, tuple[tuple[Tile, ...], tuple[int, ...]]] = {}
"""Bags by id, each kept alive with its counts so that an id names that bag while it is here."""


# -- fixtures ---------------------------------------------------------------------------------------


def _parse_deck(deck: Sequence[str]) -> tuple[list[Tile], tuple[tuple[Tile, ...], ...]]:
    if isinstance(deck, str):
        raise GameSetupError("a deck must be a list of tiles (and '/' separators), not one string")
    groups: list[list[Tile]] = [[]]
    for position, text in enumerate(deck):
        if text == REFILL_SEPARATOR:
            groups.append([])
            continue
        try:
            groups[-1].append(Tile.parse_colour(text) if isinstance(text, str) else Tile.parse_colour(repr(text)))
        except InvalidActionError:
            raise GameSetupError(
                f"invalid deck entry {shown(text)} at position {position}: expected a tile B, Y, R, K, W or '/'"
            ) from None
    bag, *refills = groups
    if sorted(bag) != list(ALL_TILES):
        counts = ", ".join(f"{colour.name} x{bag.count(colour)}" for colour in COLOURS)
        raise GameSetupError(
            f"the bag order must hold the 100 tiles, 20 of each colour, not {len(bag)} tiles ({counts})"
        )
    return bag, tuple(tuple(entry) for entry in refills)
