"""Invariants of FOOL! over random games (hypothesis): card conservation, hand sizes, the bound on
the game's length, legal actions exactly what ``check_action`` accepts, rejected actions changing
nothing, and a seat's observation depending only on what that seat may know."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ActionError
from arena.games import to_jsonable
from arena.games.fool import CARDS, Card, GameFool, State

GAME = GameFool()
QUICK = settings(max_examples=60, deadline=None)
MAX_ROUNDS = 200
"""Far above any real game: each round costs some seat a point, and +10s are bounded."""

players_st = st.integers(min_value=4, max_value=8)
seeds_st = st.integers(min_value=0, max_value=2**32 - 1)
rngs_st = st.randoms(use_true_random=False)


def step(state: State, rng: random.Random) -> State:
    (seat,) = GAME.to_move(state)
    return GAME.apply(state, {seat: rng.choice(GAME.legal_actions(state, seat))})


def play_to(players: int, seed: int, rng: random.Random, steps: int) -> State:
    state = GAME.initial_state(players, seed)
    for _ in range(steps):
        if state.finished:
            break
        state = step(state, rng)
    return state


def check_invariants(state: State) -> None:
    setup = state.setup
    places = [*state.hands, [p.card for t in state.tricks for p in t.plays], [p.card for p in state.trick]]
    assert Counter(c for place in places for c in place) == Counter(setup.cards_in_play), "every card in one place"
    assert all(list(h) == sorted(h) for h in state.hands)
    for result in state.history:
        played = Counter(p.card for t in result.tricks for p in t.plays)
        assert played + Counter(c for h in result.left_in_hand for c in h) == Counter(setup.cards_in_play)
    assert state.totals == tuple(sum(r.scores[s] for r in state.history) for s in range(state.num_players))
    # A seat's hand is the deal less one card per trick it played.
    played_by = Counter(p.seat for t in state.tricks for p in t.plays) + Counter(p.seat for p in state.trick)
    assert [len(h) for h in state.hands] == [setup.hand_size - played_by[s] for s in range(state.num_players)]
    for trick in state.tricks:
        assert len(trick.plays) == state.num_players - len(trick.sat_out)
        assert trick.winner not in trick.fools and len(trick.fools) == setup.fools_per_trick
    if not state.finished:
        assert set(state.to_play).isdisjoint(state.sitting_out)
        assert state.to_play[0] not in {p.seat for p in state.trick}


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st)
def test_cards_are_conserved_and_the_game_ends_within_a_bound(players: int, seed: int, rng: random.Random) -> None:
    state = GAME.initial_state(players, seed)
    check_invariants(state)
    bound = MAX_ROUNDS * len(state.setup.cards_in_play)
    for _ in range(bound):
        if state.finished:
            break
        state = step(state, rng)
        check_invariants(state)
    assert state.finished, f"the game did not end within {bound} plays"
    assert len(state.history) <= MAX_ROUNDS
    assert min(state.totals) <= -80 or max(state.tens) >= 6
    last = state.history[-1]
    assert any(not hand for hand in last.left_in_hand), "a round ends when a hand empties"


def hidden_from(state: State, seat: int, rng: random.Random) -> State:
    """``state`` with what ``seat`` cannot see changed: other hands dealt anew, another seed."""
    others = [s for s in range(state.num_players) if s != seat]
    pool = [c for s in others for c in state.hands[s]]
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in others:
        size = len(hands[s])
        hands[s], pool = tuple(sorted(pool[:size])), pool[size:]
    setup = dataclasses.replace(state.setup, seed=rng.randrange(2**32), deals=())
    return state._replace(hands=tuple(hands), setup=setup)


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 150), seat_pick=st.integers(0, 7))
def test_a_seat_sees_nothing_of_other_hands(
    players: int, seed: int, rng: random.Random, steps: int, seat_pick: int
) -> None:
    state = play_to(players, seed, rng, steps)
    seat = seat_pick % players
    variant = hidden_from(state, seat, rng)
    assert GAME.observe(variant, seat) == GAME.observe(state, seat)
    assert to_jsonable(GAME.observe(variant, seat)) == to_jsonable(GAME.observe(state, seat))
    assert GAME.legal_actions(variant, seat) == GAME.legal_actions(state, seat)
    assert GAME.describe_action(variant, seat) == GAME.describe_action(state, seat)
    for card in CARDS:
        assert _rejection(variant, seat, card) == _rejection(state, seat, card), "errors tell nothing of others"
    assert GAME.public_view(hidden_from(variant, (seat + 1) % players, rng)) == GAME.public_view(state)


def _rejection(state: State, seat: int, card: Card) -> str | None:
    try:
        GAME.check_action(state, seat, card)
    except ActionError as error:
        return str(error)
    return None


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 100))
def test_the_observation_does_depend_on_the_own_hand(players: int, seed: int, rng: random.Random, steps: int) -> None:
    # The control for the test above: the comparison is sensitive to what a seat does see.
    state = play_to(players, seed, rng, steps)
    if state.finished:
        return
    own, other = state.hands[0], state.hands[1]
    if not own or not other or own[0] == other[0]:
        return
    swapped = (tuple(sorted((other[0], *own[1:]))), tuple(sorted((own[0], *other[1:]))), *state.hands[2:])
    changed = state._replace(hands=swapped)
    assert GAME.observe(changed, 0) != GAME.observe(state, 0)
    assert GAME.public_view(changed) == GAME.public_view(state)


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 150), card=st.sampled_from(CARDS))
def test_check_action_and_apply_accept_exactly_the_legal_actions_and_a_rejection_changes_nothing(
    players: int, seed: int, rng: random.Random, steps: int, card: Card
) -> None:
    state = play_to(players, seed, rng, steps)
    before = tuple(state)
    for seat in range(players):
        legal = GAME.legal_actions(state, seat)
        if card in legal:
            assert GAME.check_action(state, seat, card) is card
            assert GAME.apply(state, {seat: card}) != state
        else:
            with pytest.raises(ActionError, match=f"{card}"):
                GAME.check_action(state, seat, card)
            with pytest.raises(ActionError):
                GAME.apply(state, {seat: card})
        assert set(legal) == {c for c in CARDS if _rejection(state, seat, c) is None}
    assert tuple(state) == before, "the state is never changed"


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st)
def test_every_card_played_reaches_every_seat_in_its_own_observations(
    players: int, seed: int, rng: random.Random
) -> None:
    """The contract makes each card played, by whom and in which order, public: a seat is asked only on
    its turns, so each of its observations must hold every play since it was last asked (the last
    round's tricks too, or a seat that sits out a round's last trick never sees the tail of the one
    before), in order, and nothing that was not played."""
    state = GAME.initial_state(players, seed)
    asked = [0] * players  # how many plays of the match each seat had been shown when last asked
    while not state.finished:
        (seat,) = GAME.to_move(state)
        view = GAME.observe(state, seat)
        last = view.last_round.tricks if view.last_round is not None else ()
        seen = [p for t in (*last, *view.tricks) for p in t.plays] + list(view.trick)
        truth = [p for r in state.history for t in r.tricks for p in t.plays]
        truth += [p for t in state.tricks for p in t.plays] + list(state.trick)
        assert truth[len(truth) - len(seen) :] == seen, "plays shown as played, in order"
        assert len(seen) >= len(truth) - asked[seat], f"seat {seat} in round {state.round} misses cards played"
        asked[seat] = len(truth)
        state = step(state, rng)
