"""Invariants of Azul over random games (hypothesis): every tile and the marker accounted for, the
game ends within its bound, the legal actions are exactly those accepted, one spelling per outcome,
rejected actions change nothing, and no seat sees the bag's order or pending grey-wall choices."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import itertools
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ActionError, InvalidActionError
from arena.games import to_jsonable
from arena.games.azul import COLOURS, MARKER, Action, GameAzul, Phase, State, Take, Tile, Tiling
from arena.games.azul.actions import CENTRE, MAX_FACTORIES
from arena.games.azul.rules import factory_count

GAME = GameAzul()
QUICK = settings(max_examples=60, deadline=None)
FULL = Counter(dict.fromkeys(COLOURS, 20))
ALL_TAKES = [Take.of(s, c, t) for s in (*range(MAX_FACTORIES), CENTRE) for c in COLOURS for t in range(6)]

players_st = st.integers(min_value=2, max_value=4)
seeds_st = st.integers(min_value=0, max_value=2**32 - 1)
rngs_st = st.randoms(use_true_random=False)
walls_st = st.sampled_from(["standard", "grey"])


def step(state: State, rng: random.Random) -> State:
    return GAME.apply(state, {seat: rng.choice(GAME.legal_actions(state, seat)) for seat in GAME.to_move(state)})


def all_tiles(state: State) -> Counter[Tile]:
    places: list[tuple[Tile | None, ...]] = [state.bag, state.lid, state.centre, *state.factories]
    for board in state.boards:
        places.extend(board.lines)
        places.extend(board.wall)
        places.append(tuple(tile for tile in board.floor if tile is not MARKER))
    return Counter(tile for place in places for tile in place if tile is not None)


def check_invariants(state: State) -> None:
    assert all_tiles(state) == FULL, "every one of the 100 tiles is in exactly one place"
    on_floors = [seat for seat, board in enumerate(state.boards) if MARKER in board.floor]
    if state.marker_in_centre:
        assert state.marker_holder is None and not on_floors
    else:
        assert state.marker_holder is not None and on_floors in ([], [state.marker_holder])
    for board in state.boards:
        assert board.score >= 0 and len(board.floor) <= 7
        for index, line in enumerate(board.lines):
            assert len(line) <= index + 1 and len(set(line)) <= 1
            assert not line or line[0] not in board.wall[index], "a line never holds a colour of its wall row"
    assert len(state.factories) == factory_count(state.num_players)
    assert all(len(factory) in (0, 4) for factory in state.factories) or not state.bag
    assert state.lid == tuple(sorted(state.lid)) and state.centre == tuple(sorted(state.centre))


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, wall=walls_st, cap=st.sampled_from([1, 3, 100]))
def test_tiles_are_conserved_and_the_game_ends_within_its_bound(
    players: int, seed: int, rng: random.Random, wall: str, cap: int
) -> None:
    state = GAME.initial_state(players, seed, {"wall": wall, "max_rounds": cap})
    check_invariants(state)
    steps = 0
    # Every take removes at least one tile from the table (at most 4 per factory), plus a tiling turn.
    bound = cap * (4 * factory_count(players) + 1)
    while GAME.to_move(state):
        state = step(state, rng)
        steps += 1
        check_invariants(state)
        assert steps <= bound
    assert state.phase is Phase.OVER and len(state.history) <= cap
    assert GAME.outcome(state) is not None


def play_to(players: int, seed: int, rng: random.Random, steps: int, wall: str = "standard") -> State:
    state = GAME.initial_state(players, seed, {"wall": wall})
    for _ in range(steps):
        if not GAME.to_move(state):
            break
        state = step(state, rng)
    return state


def candidate_tilings(state: State, seat: int) -> list[Tiling]:
    """Every tiling listing exactly the seat's full lines, with any column or F, and a few wrong line sets."""
    lines = [index + 1 for index in state.boards[seat].full_lines()]
    options: list[int | None] = [None, 1, 2, 3, 4, 5]
    exact = [Tiling(tuple(zip(lines, combo, strict=True))) for combo in itertools.product(options, repeat=len(lines))]
    others = [Tiling(((line, 1),)) for line in range(1, 6) if [line] != lines]
    return [*exact, *others]


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 120), wall=walls_st)
def test_the_legal_actions_are_exactly_those_check_action_accepts(
    players: int, seed: int, rng: random.Random, steps: int, wall: str
) -> None:
    state = play_to(players, seed, rng, steps, wall)
    for seat in range(players):
        legal = GAME.legal_actions(state, seat)
        assert len(set(legal)) == len(legal)
        candidates: list[Action] = [*ALL_TAKES]
        if state.phase is Phase.TILING:
            candidates += candidate_tilings(state, seat)
        accepted = []
        for action in candidates:
            with contextlib.suppress(ActionError):
                accepted.append(GAME.check_action(state, seat, action))
        assert set(accepted) == set(legal)
        assert bool(legal) == (seat in GAME.to_move(state))


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 120), wall=walls_st)
def test_each_legal_action_has_its_own_outcome(
    players: int, seed: int, rng: random.Random, steps: int, wall: str
) -> None:
    state = play_to(players, seed, rng, steps, wall)
    to_move = sorted(GAME.to_move(state))
    if not to_move:
        return
    seat = to_move[0]
    others = {s: GAME.legal_actions(state, s)[0] for s in to_move[1:]}
    outcomes = [GAME.apply(state, {**others, seat: action}) for action in GAME.legal_actions(state, seat)[:40]]
    views = {str(to_jsonable(GAME.public_view(after))) for after in outcomes}
    assert len(views) == len(outcomes), "two spellings of one outcome"


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 120), wall=walls_st)
def test_a_rejected_action_never_changes_the_state(
    players: int, seed: int, rng: random.Random, steps: int, wall: str
) -> None:
    state = play_to(players, seed, rng, steps, wall)
    before = copy.deepcopy(state)
    views = [to_jsonable(GAME.observe(state, s)) for s in range(players)]
    to_move = sorted(GAME.to_move(state))
    good = {s: GAME.legal_actions(state, s)[0] for s in to_move}
    for seat in range(players):
        legal = set(GAME.legal_actions(state, seat))
        bad: list[Action] = [a for a in rng.sample(ALL_TAKES, 30) if a not in legal]
        bad += [t for t in candidate_tilings(state, seat)[:30] if t not in legal]
        for action in bad:
            try:
                GAME.apply(state, {**good, seat: action})
            except ActionError:
                pass
            else:
                raise AssertionError(f"apply accepted {action} for seat {seat}")
    for text in ("", "C", "9 Q 9", "1:1 1:1", "x" * 500):
        with contextlib.suppress(ActionError):
            GAME.parse_action(text)
    assert state == before
    assert [to_jsonable(GAME.observe(state, s)) for s in range(players)] == views


def with_bag_reordered(state: State, rng: random.Random) -> State:
    """``state`` with everything nobody sees changed: the bag's order, the seed (later refills)."""
    bag = list(state.bag)
    rng.shuffle(bag)
    return state._replace(bag=tuple(bag), seed=rng.randrange(2**32))


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 120), wall=walls_st)
def test_no_seat_sees_the_bag_order(players: int, seed: int, rng: random.Random, steps: int, wall: str) -> None:
    state = play_to(players, seed, rng, steps, wall)
    variant = with_bag_reordered(state, rng)
    assert all_tiles(variant) == all_tiles(state)
    for seat in range(players):
        assert GAME.observe(variant, seat) == GAME.observe(state, seat)
        assert to_jsonable(GAME.observe(variant, seat)) == to_jsonable(GAME.observe(state, seat))
        assert GAME.describe_action(variant, seat) == GAME.describe_action(state, seat)
        assert GAME.legal_actions(variant, seat) == GAME.legal_actions(state, seat)
    assert GAME.public_view(variant) == GAME.public_view(state)


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 120))
def test_the_observation_does_show_the_bag_counts_and_the_table(
    players: int, seed: int, rng: random.Random, steps: int
) -> None:
    # The control for the test above: the comparison is sensitive to what a seat does see.
    state = play_to(players, seed, rng, steps)
    factory = next((n for n, f in enumerate(state.factories) if f), None)
    if factory is None or not state.bag or state.phase is not Phase.OFFER:
        return
    tiles = state.factories[factory]
    swap = next((i for i, tile in enumerate(state.bag) if tile is not tiles[0]), None)
    if swap is None:
        return
    factories = list(state.factories)
    factories[factory] = (state.bag[swap], *tiles[1:])
    bag = (*state.bag[:swap], tiles[0], *state.bag[swap + 1 :])
    changed = state._replace(factories=tuple(factories), bag=bag)
    assert all_tiles(changed) == all_tiles(state)
    assert GAME.observe(changed, 0) != GAME.observe(state, 0)
    assert GAME.public_view(changed) != GAME.public_view(state)


def tiling_state(rng: random.Random, players: int, seed: int) -> State | None:
    state = GAME.initial_state(players, seed, {"wall": "grey"})
    for _ in range(2000):
        if state.phase is Phase.TILING or not GAME.to_move(state):
            break
        state = step(state, rng)
    return state if state.phase is Phase.TILING else None


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st)
def test_grey_wall_choices_are_seen_only_once_applied(players: int, seed: int, rng: random.Random) -> None:
    state = tiling_state(rng, players, seed)
    if state is None:
        return
    seats = sorted(GAME.to_move(state))
    views = {s: GAME.observe(state, s) for s in range(players)}
    public = GAME.public_view(state)
    assert all(dataclasses.replace(view, seat=None) == public for view in views.values()), "no private information"
    assert len(views[0].history) == state.round - 1, "this round's tiling is not in the view"
    choice_a = {s: rng.choice(GAME.legal_actions(state, s)) for s in seats}
    choice_b = {s: rng.choice(GAME.legal_actions(state, s)) for s in seats}
    # Submitting only some seats' choices is refused and changes nothing: no partial reveal.
    if len(seats) > 1:
        try:
            GAME.apply(state, {seats[0]: choice_a[seats[0]]})
        except ActionError:
            pass
        else:
            raise AssertionError("a partial tiling turn was applied")
    assert {s: GAME.observe(state, s) for s in range(players)} == views
    after_a = GAME.apply(state, choice_a)
    after_b = GAME.apply(state, choice_b)
    for after, choices in ((after_a, choice_a), (after_b, choice_b)):
        result = GAME.public_view(after).history[state.round - 1]
        assert {s: t for s, t in enumerate(result.tilings) if t is not None} == choices, "shown exactly as applied"
    assert GAME.observe(state, seats[0]) == views[seats[0]]


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st)
def test_the_tiling_actions_are_exactly_those_check_action_accepts(players: int, seed: int, rng: random.Random) -> None:
    state = tiling_state(rng, players, seed)
    if state is None:
        return
    for seat in range(players):
        legal = GAME.legal_actions(state, seat)
        accepted = []
        for action in [*candidate_tilings(state, seat), *ALL_TAKES[:20]]:
            with contextlib.suppress(ActionError):
                accepted.append(GAME.check_action(state, seat, action))
        assert set(accepted) == set(legal) and len(set(legal)) == len(legal)
        assert bool(legal) == (seat in GAME.to_move(state))


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=30),
        st.tuples(
            st.text(alphabet="0123456789\u00b2\u0663Cc", min_size=1, max_size=3),
            st.sampled_from(["B", "r", "S", "Q"]),
            st.text(alphabet="015\u00b9Ff", min_size=1, max_size=2),
        ).map(" ".join),
        st.text(alphabet="0123456789CBYRKWFS: ", max_size=16),
        st.lists(st.sampled_from(["1:2", "3:F", "5:5", "2:1", "4:3"]), max_size=6).map(" ".join),
    )
)
def test_any_text_parses_to_a_round_tripping_action_or_raises_invalid_action(text: str) -> None:
    try:
        action = GAME.parse_action(text)
    except InvalidActionError as error:
        message = str(error)
    else:
        assert GAME.parse_action(str(action)) == action
        assert str(action).isascii()
        return
    assert len(message) < 300
