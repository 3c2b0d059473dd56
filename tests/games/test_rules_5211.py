"""The 5211 engine through its public interface: set-up, errors, seats, dealing, the game to 50."""

from __future__ import annotations

import copy
import itertools
import random
import re
from collections.abc import Mapping
from typing import Any

import pytest

from arena.errors import ActionError, GameSetupError, IllegalActionError, InvalidActionError
from arena.games import Termination, get_game
from arena.games.g5211 import Card, Game5211, Play, State
from arena.games.g5211.cards import full_deck
from arena.games.g5211.rules import REMOVED, ROUNDS_PER_DECK

GAME = Game5211()
ORDERED_DECK = [str(card) for card in full_deck()]
"""The unshuffled deck: B1 x5, B2 x6, B3 x5, B4 x2, B5, B6, then green, orange, violet, yellow."""


def play(text: str) -> Play:
    return Play.parse(text)


def hand(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def ordered_state(players: int = 4) -> State:
    return GAME.initial_state(players, 0, deck=ORDERED_DECK)


def random_actions(state: State, rng: random.Random) -> dict[int, Play]:
    return {seat: rng.choice(GAME.legal_actions(state, seat)) for seat in sorted(GAME.to_move(state))}


def play_out(state: State, rng: random.Random) -> State:
    while GAME.to_move(state):
        state = GAME.apply(state, random_actions(state, rng))
    return state


# -- set-up ---------------------------------------------------------------------------------------


def test_registered_under_its_name() -> None:
    assert get_game("5211").name == "5211"
    assert GAME.player_counts == range(2, 6)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_seeded_setup(players: int) -> None:
    state = GAME.initial_state(players, 42)
    assert state == GAME.initial_state(players, 42)
    assert state != GAME.initial_state(players, 43)
    assert len(state.removed) == REMOVED[players]
    assert [len(h) for h in state.hands] == [5] * players
    assert all(list(h) == sorted(h) for h in state.hands)
    assert len(state.draw_pile) == 100 - REMOVED[players] - 5 * players
    assert (state.round, state.turn, state.deck_number, state.finished) == (1, 0, 1, False)
    assert state.points() == (0,) * players
    assert GAME.outcome(state) is None
    assert GAME.to_move(state) == frozenset(range(players))


def test_seeding_never_touches_the_global_rng() -> None:
    random.seed(1)
    expected = random.random()
    random.seed(1)
    GAME.initial_state(3, 99)
    assert random.random() == expected


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_explicit_deck_is_dealt_in_order(players: int) -> None:
    deck = GAME.initial_state(players, 1)  # any shuffle
    order = [str(c) for c in (*deck.removed, *(c for h in deck.hands for c in h), *deck.draw_pile)]
    rng = random.Random(players)
    rng.shuffle(order)
    state = GAME.initial_state(players, 0, deck=order)
    removed = REMOVED[players]
    assert [str(c) for c in state.removed] == order[:removed]
    for seat in range(players):
        dealt = order[removed + 5 * seat : removed + 5 * seat + 5]
        assert [str(c) for c in state.hands[seat]] == sorted(dealt, key=lambda t: int(Card.parse(t)))
    assert [str(c) for c in state.draw_pile] == order[removed + 5 * players :]


def test_draws_go_in_seat_order_one_whole_draw_at_a_time() -> None:
    state = ordered_state(4)
    pile = state.draw_pile
    after = GAME.apply(state, {seat: GAME.legal_actions(state, seat)[0] for seat in range(4)})
    for seat in range(4):
        drawn = pile[2 * seat : 2 * seat + 2]
        kept = list(state.hands[seat])
        for card in GAME.legal_actions(state, seat)[0].cards:
            kept.remove(card)
        assert after.hands[seat] == tuple(sorted(kept + list(drawn)))
    assert after.draw_pile == pile[8:]


@pytest.mark.parametrize(
    ("deck", "match"),
    [
        (ORDERED_DECK[:-1], "B5 x1 \\(want 1\\)|Y6 x0 \\(want 1\\)"),
        ([*ORDERED_DECK, "G2"], "G2 x7 \\(want 6\\)"),
        (["G5" if t == "G6" else t for t in ORDERED_DECK], "G5 x2 \\(want 1\\), G6 x0 \\(want 1\\)"),
        ([*ORDERED_DECK[:-1], "Q7"], "'Q7'"),
        ([], "exactly the 100 cards"),
    ],
)
def test_a_bad_deck_is_rejected(deck: list[str], match: str) -> None:
    with pytest.raises(GameSetupError, match=match):
        GAME.initial_state(2, 0, deck=deck)


@pytest.mark.parametrize("players", [0, 1, 6, -2])
def test_player_count_is_checked(players: int) -> None:
    with pytest.raises(GameSetupError, match=f"not {players}"):
        GAME.initial_state(players, 0)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"long_gmae": True}, "'long_gmae'"),
        ({"long_game": "yes"}, "long_game must be true or false, not 'yes'"),
        ({"long_game": 1}, "not 1"),
        ({"long_game": None}, "not None"),
    ],
)
def test_bad_options_are_rejected(options: Mapping[str, Any], match: str) -> None:
    with pytest.raises(GameSetupError, match=match):
        GAME.initial_state(3, 0, options)


def test_good_options() -> None:
    assert not GAME.initial_state(3, 0).long_game
    assert not GAME.initial_state(3, 0, {}).long_game
    assert not GAME.initial_state(3, 0, {"long_game": False}).long_game
    assert GAME.initial_state(3, 0, {"long_game": True}).long_game


def test_setup_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="option"):
        GAME.initial_state(3, 0, {"x": 1})


# -- actions and their errors -----------------------------------------------------------------------


def test_legal_actions_are_the_distinct_plays_of_the_hand() -> None:
    state = ordered_state(4)
    # Seat 0 holds B1 x5, seat 2 holds B2 B3 B3 B3 B3.
    assert state.hands[0] == hand("B1 B1 B1 B1 B1")
    assert state.hands[2] == hand("B2 B3 B3 B3 B3")
    assert GAME.legal_actions(state, 0) == (play("B1 B1"),)
    assert GAME.legal_actions(state, 2) == (play("B2 B3"), play("B3 B3"))
    assert GAME.legal_actions(state, 4) == ()
    assert GAME.legal_actions(state, -1) == ()
    nxt = GAME.apply(state, {0: play("B1 B1"), 1: play("B2 B2"), 2: play("B3 B3"), 3: play("B4 B4")})
    assert all(len(a) == 1 for seat in range(4) for a in GAME.legal_actions(nxt, seat))


def test_describe_action_gives_a_legal_example() -> None:
    state = ordered_state(4)
    text = GAME.describe_action(state, 2)
    assert "2 cards" in text
    assert text.endswith("B2 B3")


def test_parse_action_names_the_bad_text() -> None:
    with pytest.raises(InvalidActionError, match="'Z2'"):
        GAME.parse_action("G3 Z2")
    with pytest.raises(InvalidActionError, match="no cards"):
        GAME.parse_action("")
    assert GAME.parse_action("y1, g3") == play("G3 Y1")


@pytest.mark.parametrize("action", ["B1 B1", None, 7, ("B1", "B1"), Card.parse("B1")])
def test_a_non_play_is_invalid(action: object) -> None:
    state = ordered_state()
    with pytest.raises(InvalidActionError, match=re.escape(f"invalid action {action!r}")):
        GAME.check_action(state, 0, action)


@pytest.mark.parametrize(
    ("seat", "action", "error", "match"),
    [
        (0, "B1", IllegalActionError, r"illegal action B1 for seat 0 in round 1, turn 1: lay exactly 2 cards, not 1"),
        (0, "B1 B1 B1", IllegalActionError, r"B1 B1 B1 .*lay exactly 2 cards, not 3"),
        (0, "B1 G3", IllegalActionError, r"B1 G3 .*G3 is not in your hand \(B1 B1 B1 B1 B1\)"),
        (2, "B2 B2", IllegalActionError, r"B2 B2 for seat 2 .*your hand holds 1 B2, not 2"),
        (4, "B1 B1", IllegalActionError, r"illegal action B1 B1: seat 4 is not to move"),
        (-1, "B1 B1", IllegalActionError, r"seat -1 is not to move"),
    ],
)
def test_check_action_errors(seat: int, action: str, error: type[ActionError], match: str) -> None:
    state = ordered_state()
    with pytest.raises(error, match=match):
        GAME.check_action(state, seat, play(action))


def test_check_action_in_later_turns_names_round_and_turn() -> None:
    state = ordered_state()
    state = GAME.apply(state, {s: GAME.legal_actions(state, s)[0] for s in range(4)})
    with pytest.raises(IllegalActionError, match="in round 1, turn 2: lay exactly 1 card, not 2"):
        GAME.check_action(state, 0, play("B1 B1"))
    assert GAME.check_action(state, 0, play("B1")) is play("B1")


def test_check_action_returns_the_play() -> None:
    state = ordered_state()
    assert GAME.check_action(state, 2, play("B3 B2")) == play("B2 B3")


def finished_state() -> State:
    return play_out(GAME.initial_state(2, 5), random.Random(5))


def test_no_action_once_the_match_is_over() -> None:
    state = finished_state()
    assert state.finished
    assert GAME.to_move(state) == frozenset()
    assert GAME.legal_actions(state, 0) == ()
    with pytest.raises(IllegalActionError, match="illegal action B1 for seat 0: the match is over"):
        GAME.check_action(state, 0, play("B1"))
    with pytest.raises(IllegalActionError, match="the match is over"):
        GAME.apply(state, {0: play("B1"), 1: play("B2")})


def test_apply_with_no_actions_once_the_match_is_over() -> None:
    state = finished_state()
    with pytest.raises(IllegalActionError, match="the match is over"):
        GAME.apply(state, {})


def test_describe_action_on_a_finished_match_or_a_stranger() -> None:
    state = finished_state()
    assert "over" in GAME.describe_action(state, 0)
    fresh = GAME.initial_state(2, 1)
    assert "not in this match" in GAME.describe_action(fresh, 7)


GOOD = {0: "B1 B1", 1: "B2 B2", 2: "B3 B3", 3: "B4 B4"}


def with_change(changes: Mapping[Any, object], drop: tuple[int, ...] = ()) -> dict[Any, object]:
    actions: dict[Any, object] = {seat: play(text) for seat, text in GOOD.items() if seat not in drop}
    actions.update(changes)
    return actions


@pytest.mark.parametrize(
    ("actions", "error", "match"),
    [
        (with_change({}, drop=(3,)), IllegalActionError, "no action for seat 3"),
        (with_change({}, drop=(1, 2)), IllegalActionError, "no action for seat 1"),
        (with_change({7: play("B1 B1")}), IllegalActionError, "B1 B1 for seat 7: it is not to move"),
        (with_change({7: play("B1 B1")}, drop=(0,)), IllegalActionError, "seat 7: it is not to move"),
        (with_change({"1": play("B2 B2")}, drop=(1,)), IllegalActionError, "seat 1"),
        (with_change({2: "B3 B3"}), InvalidActionError, "invalid action 'B3 B3'"),
        (with_change({3: None}), InvalidActionError, "invalid action None"),
        (with_change({1: play("B2")}), IllegalActionError, "B2 for seat 1 .*lay exactly 2 cards, not 1"),
        (with_change({1: play("B2 B2 B2")}), IllegalActionError, "B2 B2 B2 for seat 1 .*not 3"),
        (with_change({3: play("B5 Y6")}), IllegalActionError, "B5 Y6 for seat 3 .*Y6 is not in your hand"),
        (with_change({2: play("B2 B2")}), IllegalActionError, "B2 B2 for seat 2 .*holds 1 B2, not 2"),
    ],
)
def test_apply_rejects_and_leaves_the_state_unchanged(
    actions: dict[Any, Any], error: type[ActionError], match: str
) -> None:
    state = ordered_state()
    snapshot = copy.deepcopy(state)
    with pytest.raises(error, match=match):
        GAME.apply(state, actions)
    assert state == snapshot
    # The state still plays exactly as a fresh one does.
    good = {seat: play(text) for seat, text in GOOD.items()}
    assert GAME.apply(state, good) == GAME.apply(ordered_state(), good)


def test_rejected_actions_never_change_any_state_of_a_game() -> None:
    rng = random.Random(3)
    state = GAME.initial_state(3, 3)
    while GAME.to_move(state):
        snapshot = copy.deepcopy(state)
        seat = rng.randrange(3)
        hand_cards = set(state.hands[seat])
        missing = next(c for c in map(Card.parse, ORDERED_DECK) if c not in hand_cards)
        wrong = Play.of([missing] * len(GAME.legal_actions(state, seat)[0]))
        bad = random_actions(state, rng) | {seat: wrong}
        with pytest.raises(IllegalActionError, match=f"{wrong} for seat {seat}"):
            GAME.apply(state, bad)
        assert state == snapshot
        state = GAME.apply(state, random_actions(state, rng))


def test_observe_checks_the_seat() -> None:
    state = ordered_state(3)
    with pytest.raises(IllegalActionError, match="seat 3 is not in this 3-player match"):
        GAME.observe(state, 3)
    with pytest.raises(IllegalActionError, match="seat -1"):
        GAME.observe(state, -1)


# -- a whole game ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_one_deck_game(players: int) -> None:
    rng = random.Random(players)
    state = GAME.initial_state(players, players)
    turns = 0
    while GAME.to_move(state):
        state = GAME.apply(state, random_actions(state, rng))
        turns += 1
    assert turns == 3 * ROUNDS_PER_DECK[players]
    assert len(state.history) == ROUNDS_PER_DECK[players]
    assert state.hands == ((),) * players
    assert state.draw_pile == ()
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.termination is Termination.NORMAL
    assert outcome.scores == state.points()
    assert state.points() == tuple(sum(r.points[s] for r in state.history) for s in range(players))
    best = max(zip(state.points(), state.score_pile_cards(), strict=True))
    winners = {s for s in range(players) if (state.points()[s], state.score_pile_cards()[s]) == best}
    assert outcome.winners == winners


def ended(state: State, points: tuple[int, ...], cards: tuple[int, ...], banked: tuple[int, ...] = ()) -> State:
    """``state`` finished, with these running totals (``banked``: points from earlier decks)."""
    players = state.num_players
    banked = banked or (0,) * players
    piles = tuple(tuple(Card.parse("B1") for _ in range(p - b)) for p, b in zip(points, banked, strict=True))
    banked_cards = tuple(c - len(p) for c, p in zip(cards, piles, strict=True))
    return state._replace(
        finished=True, score_piles=piles, banked_points=banked, banked_cards=banked_cards, totals=tuple(points)
    )


@pytest.mark.parametrize(
    ("points", "cards", "banked", "placings"),
    [
        ((10, 9, 8), (1, 1, 1), (), (1, 2, 3)),
        ((10, 10, 8), (4, 5, 1), (), (2, 1, 3)),
        ((10, 10, 8), (5, 5, 1), (), (1, 1, 3)),
        ((10, 10, 10), (5, 5, 5), (), (1, 1, 1)),
        # The longer game breaks ties on totals over every deck, not the current deck's pile.
        ((60, 60, 8), (5, 4, 1), (55, 52, 0), (1, 2, 3)),
        ((60, 60, 8), (30, 31, 1), (50, 58, 0), (2, 1, 3)),
    ],
)
def test_tie_breaks(
    points: tuple[int, ...], cards: tuple[int, ...], banked: tuple[int, ...], placings: tuple[int, ...]
) -> None:
    state = ended(GAME.initial_state(3, 0), points, cards, banked)
    assert state.points() == points
    assert state.score_pile_cards() == cards
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == points
    assert outcome.placings == placings


def long_game(players: int, seed: int) -> list[State]:
    """Every state of a random longer game, the initial one first."""
    rng = random.Random(seed)
    states = [GAME.initial_state(players, seed, {"long_game": True})]
    while not states[-1].finished:
        states.append(GAME.apply(states[-1], random_actions(states[-1], rng)))
    return states


def round_ends(states: list[State]) -> list[State]:
    return [s for prev, s in itertools.pairwise(states) if len(s.history) > len(prev.history)]


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (5, 4), (2, 10), (4, 11)])
def test_long_game_plays_to_50(players: int, seed: int) -> None:
    states = long_game(players, seed)
    ends = round_ends(states)
    final = states[-1]
    rounds = ROUNDS_PER_DECK[players]
    assert max(final.points()) >= 50
    assert len(ends) >= rounds, "the first deck is always played out"
    for number, state in enumerate(ends[:-1], 1):
        # No earlier round end could have ended the game: either below 50, or inside the first deck.
        assert max(state.points()) < 50 or number < rounds, number
    for number, state in enumerate(ends, 1):
        deck = 1 + (number - 1) // rounds
        if state is not final:
            assert state.deck_number == deck + (number % rounds == 0)
        assert state.round == number + (state is not final)
    outcome = GAME.outcome(final)
    assert outcome is not None
    assert outcome.scores == final.points()
    # Totals over every deck: the banked figures plus the current deck's piles.
    assert final.points() == tuple(sum(r.points[s] for r in final.history) for s in range(players))
    assert final.score_pile_cards() == tuple(sum(len(r.scored[s]) for r in final.history) for s in range(players))
    best = max(zip(final.points(), final.score_pile_cards(), strict=True))
    assert outcome.winners == {s for s in range(players) if (final.points()[s], final.score_pile_cards()[s]) == best}


def test_long_game_continues_after_50_within_the_first_deck() -> None:
    # Seed 10 (2 players): seat 1 reaches 50 after round 9; rounds 10 and 11 are still played.
    states = long_game(2, 10)
    ends = round_ends(states)
    reached = next(n for n, s in enumerate(ends, 1) if max(s.points()) >= 50)
    assert reached < ROUNDS_PER_DECK[2], "this seed must reach 50 inside the first deck"
    assert len(ends) == ROUNDS_PER_DECK[2]
    assert states[-1].finished
    assert states[-1].deck_number == 1


def test_long_game_ends_at_the_first_round_over_50_in_a_later_deck() -> None:
    states = long_game(4, 1)
    final = states[-1]
    assert final.deck_number > 1
    ends = round_ends(states)
    assert max(ends[-2].points()) < 50 <= max(final.points())
    # Ending inside a deck abandons the hands (5 cards each); only a deck's last round empties them.
    mid_deck = len(ends) % ROUNDS_PER_DECK[4] != 0
    assert mid_deck, "this seed must end inside a later deck"
    assert [len(h) for h in final.hands] == [5] * 4
    assert GAME.to_move(final) == frozenset()


def test_later_decks_are_fresh_shuffles_of_all_100_cards() -> None:
    states = long_game(3, 2)
    firsts = [s for prev, s in itertools.pairwise(states) if s.deck_number > prev.deck_number]
    assert firsts
    for state in firsts:
        assert len(state.removed) == REMOVED[3]
        assert [len(h) for h in state.hands] == [5, 5, 5]
        assert state.score_piles == ((), (), ())
        assert state.discard == ()
        assert state.laid == ((), (), ())
        cards = [*state.removed, *state.draw_pile, *(c for h in state.hands for c in h)]
        assert sorted(cards) == sorted(full_deck())
    # The same seed gives the same later decks.
    assert long_game(3, 2) == states
