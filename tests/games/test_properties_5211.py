"""Invariants of 5211 over random games (hypothesis): card conservation, hand sizes, round counts,
and that a seat's observation depends only on what that seat may know."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ActionError
from arena.games import to_jsonable
from arena.games.g5211 import CARDS, Card, Game5211, Play, State
from arena.games.g5211.cards import full_deck
from arena.games.g5211.rules import CARDS_PER_TURN, REMOVED, ROUNDS_PER_DECK

GAME = Game5211()
FULL = Counter(full_deck())
QUICK = settings(max_examples=100, deadline=None)

players_st = st.integers(min_value=2, max_value=5)
seeds_st = st.integers(min_value=0, max_value=2**32 - 1)
rngs_st = st.randoms(use_true_random=False)


def step(state: State, rng: random.Random) -> State:
    return GAME.apply(state, {seat: rng.choice(GAME.legal_actions(state, seat)) for seat in GAME.to_move(state)})


def all_cards(state: State) -> Counter[Card]:
    """Every card of the current deck, wherever it is."""
    places = [*state.hands, state.draw_pile, *state.laid, *state.score_piles, state.discard, state.removed]
    return Counter(card for place in places for card in place)


def check_invariants(state: State) -> None:
    assert all_cards(state) == FULL, "every one of the 100 cards is in exactly one place"
    players = state.num_players
    # The kept running totals are the banked points plus the current score piles, and the scores
    # of every round so far.
    piles = tuple(sum(card.value for card in pile) for pile in state.score_piles)
    assert state.points() == tuple(b + p for b, p in zip(state.banked_points, piles, strict=True))
    assert state.points() == tuple(sum(result.points[seat] for result in state.history) for seat in range(players))
    assert len(state.removed) == REMOVED[players]
    if state.finished and not state.long_game:
        assert state.hands == ((),) * players, "the last hand card is discarded"
        return
    if state.finished:
        # The longer game may end inside a deck (hands abandoned) or at a deck's end (hands discarded).
        assert len({len(h) for h in state.hands}) == 1
        return
    laid_so_far = (0, 2, 3)[state.turn]
    assert [len(cards) for cards in state.laid] == [laid_so_far] * players
    # Hands are refilled to 5 while the pile lasts; the pile runs out exactly at a round's last draw.
    expected = 5 - laid_so_far if not state.draw_pile else 5
    assert [len(h) for h in state.hands] == [expected] * players
    assert all(list(h) == sorted(h) for h in state.hands)
    assert len(state.draw_pile) % (4 * players) == 0 or state.turn != 0


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, long_game=st.booleans())
def test_cards_are_conserved_and_hands_sized(players: int, seed: int, rng: random.Random, long_game: bool) -> None:
    state = GAME.initial_state(players, seed, {"long_game": long_game})
    check_invariants(state)
    turns = 0
    while GAME.to_move(state):
        state = step(state, rng)
        turns += 1
        check_invariants(state)
    assert turns == 3 * len(state.history)
    if not long_game:
        assert len(state.history) == ROUNDS_PER_DECK[players]
        assert turns == 3 * {2: 11, 3: 7, 4: 6, 5: 4}[players]
    else:
        assert len(state.history) >= ROUNDS_PER_DECK[players]
        assert max(state.points()) >= 50


def play_to(players: int, seed: int, rng: random.Random, steps: int) -> State:
    state = GAME.initial_state(players, seed)
    for _ in range(steps):
        if not GAME.to_move(state):
            break
        state = step(state, rng)
    return state


def hidden_from(state: State, seat: int, rng: random.Random) -> State:
    """``state`` with everything ``seat`` cannot see reshuffled: other hands, the pile, removed cards."""
    others = [s for s in range(state.num_players) if s != seat]
    pool = [*state.draw_pile, *state.removed, *(c for s in others for c in state.hands[s])]
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in others:
        size = len(hands[s])
        hands[s], pool = tuple(sorted(pool[:size])), pool[size:]
    pile, removed = tuple(pool[: len(state.draw_pile)]), tuple(pool[len(state.draw_pile) :])
    # The seed only decides later decks, which nobody can see either.
    return state._replace(hands=tuple(hands), draw_pile=pile, removed=removed, seed=rng.randrange(2**32))


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 40), seat_pick=st.integers(0, 4))
def test_a_seat_sees_nothing_it_may_not_know(
    players: int, seed: int, rng: random.Random, steps: int, seat_pick: int
) -> None:
    state = play_to(players, seed, rng, steps)
    seat = seat_pick % players
    variant = hidden_from(state, seat, rng)
    assert all_cards(variant) == all_cards(state)
    assert GAME.observe(variant, seat) == GAME.observe(state, seat)
    assert to_jsonable(GAME.observe(variant, seat)) == to_jsonable(GAME.observe(state, seat))
    # A spectator does not see the seat's own hand either.
    assert GAME.public_view(hidden_from(variant, (seat + 1) % players, rng)) == GAME.public_view(state)


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 30))
def test_the_observation_does_depend_on_the_own_hand(players: int, seed: int, rng: random.Random, steps: int) -> None:
    # The control for the test above: the comparison is sensitive to what a seat does see.
    state = play_to(players, seed, rng, steps)
    if state.finished or not state.draw_pile:
        return
    own = state.hands[0]
    swap = next((i for i, card in enumerate(state.draw_pile) if card not in own), None)
    if swap is None:
        return
    new_hand = tuple(sorted((*own[1:], state.draw_pile[swap])))
    pile = (*state.draw_pile[:swap], own[0], *state.draw_pile[swap + 1 :])
    changed = state._replace(hands=(new_hand, *state.hands[1:]), draw_pile=pile)
    assert GAME.observe(changed, 0) != GAME.observe(state, 0)
    assert GAME.public_view(changed) == GAME.public_view(state)


PUBLIC_FIELDS = {
    "seat",
    "num_players",
    "long_game",
    "deck_number",
    "round",
    "rounds_per_deck",
    "turn",
    "cards_to_lay",
    "hand",
    "hand_sizes",
    "laid",
    "history",
    "points",
    "score_pile_cards",
    "draw_pile_size",
    "removed_count",
    "finished",
}


@QUICK
@given(players=players_st, seed=seeds_st, rng=rngs_st, steps=st.integers(0, 40))
def test_observe_holds_only_the_own_hand_and_public_facts(
    players: int, seed: int, rng: random.Random, steps: int
) -> None:
    state = play_to(players, seed, rng, steps)
    for seat in range(players):
        view = GAME.observe(state, seat)
        data = to_jsonable(view)
        assert set(data) == PUBLIC_FIELDS, "a new observation field needs a decision on who may see it"
        assert view.seat == seat
        assert view.hand == state.hands[seat]
        assert view.hand_sizes == tuple(len(h) for h in state.hands)
        assert view.laid == state.laid
        assert view.draw_pile_size == len(state.draw_pile)
        assert view.removed_count == len(state.removed)
        for result in data["history"]:
            assert set(result) == {"laid", "scored", "kind", "colour"}
        if not state.finished:
            assert view.cards_to_lay == CARDS_PER_TURN[state.turn]
    spectator = GAME.public_view(state)
    assert spectator.seat is None
    assert spectator.hand == ()


@QUICK
@given(
    players=players_st,
    seed=seeds_st,
    rng=rngs_st,
    steps=st.integers(0, 30),
    cards=st.lists(st.sampled_from(CARDS), min_size=1, max_size=3),
)
def test_check_action_and_apply_accept_exactly_the_legal_actions(
    players: int, seed: int, rng: random.Random, steps: int, cards: list[Card]
) -> None:
    state = play_to(players, seed, rng, steps)
    if state.finished:
        return
    action = Play.of(cards)
    seat = rng.randrange(players)
    others = {s: rng.choice(GAME.legal_actions(state, s)) for s in range(players)}
    if action in GAME.legal_actions(state, seat):
        assert GAME.check_action(state, seat, action) == action
        GAME.apply(state, others | {seat: action})
    else:
        with pytest.raises(ActionError, match=f"{action} for seat {seat}"):
            GAME.check_action(state, seat, action)
        with pytest.raises(ActionError, match=f"{action} for seat {seat}"):
            GAME.apply(state, others | {seat: action})
