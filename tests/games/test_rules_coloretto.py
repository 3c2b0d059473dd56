"""Coloretto rules and scoring, case by case: set-up, the legal actions of the contract's worked
cases, the last round, the 2-player rows, the match of four games, notation and the two error kinds."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arena.errors import GameSetupError, IllegalActionError, InvalidActionError
from arena.games import to_jsonable
from arena.games.coloretto import ACTIONS, CARDS, Action, Card, Collection, GameColoretto, Scoring, State
from arena.games.coloretto.rules import CAPACITIES, COLOURS_IN_PLAY, PILE_CARDS
from arena.games.coloretto.scoring import score_collection

GAME = GameColoretto()
A, B, C, D, E, F, G, J, PLUS2, LR = CARDS


def parse(text: str) -> Action:
    return GAME.parse_action(text)


def legal(state: State) -> list[str]:
    return [str(action) for action in GAME.legal_actions(state, state.seat)]


def play(state: State, *texts: str) -> State:
    for text in texts:
        state = GAME.apply(state, {state.seat: parse(text)})
    return state


def fixed_deck(players: int, head: list[Card] | None = None) -> list[str]:
    """A valid pile for ``players``, with ``head`` on top and LR 15 from the bottom."""
    rest = Counter(PILE_CARDS[players])
    rest[LR] -= 1
    head = head or []
    rest.subtract(head)
    others = sorted(rest.elements())
    cards = [*head, *others]
    cards.insert(len(cards) - 15, LR)
    return [str(card) for card in cards]


# -- set-up -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "pile"), [(2, 55), (3, 65), (4, 73), (5, 72)])
def test_the_pile_holds_the_cards_left_after_set_up_with_15_under_lr(players: int, pile: int) -> None:
    state = GAME.initial_state(players, 7)
    assert len(state.pile) == pile
    assert state.pile.index(LR) == pile - 16
    assert len(state.rows) == len(CAPACITIES[players]) == (3 if players == 2 else players)
    on_table = Counter(state.pile) + sum((Counter(dict(c)) for c in state.collections), Counter())
    in_play = COLOURS_IN_PLAY[players]
    assert on_table == Counter({**dict.fromkeys(in_play, 9), J: 3, PLUS2: 10, LR: 1})


def test_each_seat_starts_with_its_own_colour() -> None:
    assert [dict(c) for c in GAME.initial_state(4, 1).collections] == [{A: 1}, {B: 1}, {C: 1}, {D: 1}]
    assert G not in GAME.initial_state(3, 1).pile, "with 3 players colour G is out"
    two = GAME.initial_state(2, 1)
    assert [dict(c) for c in two.collections] == [{A: 1, B: 1}, {C: 1, D: 1}]
    assert F not in two.pile and G not in two.pile
    assert CAPACITIES[2] == (1, 2, 3)


def test_the_seed_decides_the_pile_and_the_starting_seat() -> None:
    assert GAME.initial_state(4, 5) == GAME.initial_state(4, 5)
    assert len({GAME.initial_state(4, seed).pile for seed in range(5)}) == 5
    assert {GAME.initial_state(4, seed).seat for seed in range(40)} == {0, 1, 2, 3}
    assert GAME.initial_state(4, 5, {"first": 2}).seat == 2
    assert GAME.initial_state(4, 5, {"first": 2}).pile == GAME.initial_state(4, 5).pile


@pytest.mark.parametrize(
    ("players", "options", "deck", "message"),
    [
        (6, None, None, "2 to 5 players, not 6"),
        (1, None, None, "not 1"),
        (4, {"scoring": "gray"}, None, "'brown' or 'grey', not 'gray'"),
        (4, {"games": 3}, None, "games must be 1 or 4, not 3"),
        (4, {"games": True}, None, "not True"),
        (4, {"first": 4}, None, "first must be a seat from 0 to 3, not 4"),
        (4, {"colour": "x"}, None, "unknown Coloretto option(s) ['colour']"),
        (4, None, ["A"] * 73, "not the 4-player pile"),
        (4, None, ["Q", *fixed_deck(4)[1:]], "'Q' is not a Coloretto card"),
        (4, None, fixed_deck(4)[:-1], "must list 73 cards per game"),
        (4, {"games": 4}, fixed_deck(4), "(292 for 4 games), not 73 tokens"),
    ],
)
def test_a_bad_set_up_names_the_value(
    players: int, options: dict[str, object] | None, deck: list[str] | None, message: str
) -> None:
    with pytest.raises(GameSetupError) as error:
        GAME.initial_state(players, 0, options, deck)
    assert message in str(error.value)


def test_lr_must_lie_15_from_the_bottom_of_a_fixed_deck() -> None:
    deck = fixed_deck(4)
    index = deck.index("LR")
    deck[index], deck[index - 1] = deck[index - 1], deck[index]
    with pytest.raises(GameSetupError, match="exactly 15 cards under it, not 16"):
        GAME.initial_state(4, 0, {"first": 0}, deck)


# -- turns: the contract's worked cases --------------------------------------------------------------


def test_case_5_legal_actions_with_taken_full_and_empty_rows() -> None:
    state = GAME.initial_state(4, 0, {"first": 0})
    state = state._replace(rows=((A, B, C), (), (), (D, E)), taken_by=(None, 1, None, None), seat=0)
    assert legal(state) == ["draw", "take 0", "take 3"]
    state = play(state, "draw")
    assert legal(state) == ["place 2", "place 3"]
    full = state._replace(rows=((A, B, C), (), (A, B, C), (D, E, F)), drawn=None)
    assert legal(full) == ["take 0", "take 2", "take 3"]


def test_at_the_start_of_a_round_only_draw_is_legal_and_the_drawer_places() -> None:
    state = GAME.initial_state(4, 0, {"first": 1}, fixed_deck(4, [E, J]))
    assert legal(state) == ["draw"]
    state = play(state, "draw")
    assert state.drawn == E and state.seat == 1
    assert legal(state) == ["place 0", "place 1", "place 2", "place 3"]
    state = play(state, "place 2")
    assert state.rows == ((), (), (E,), ()) and state.seat == 2 and state.drawn is None
    assert legal(state) == ["draw", "take 2"]


def test_case_6_lr_goes_aside_the_next_card_is_placed_and_the_game_ends_with_the_round() -> None:
    state = GAME.initial_state(3, 0, {"first": 0})
    state = state._replace(pile=(LR, B, *state.pile[-15:]))
    state = play(state, "draw")
    assert state.last_round and state.drawn == B and len(state.pile) == 15
    assert GAME.public_view(state).cards_before_last_round == 0
    state = play(state, "place 0", "take 0", "draw", "place 1", "take 1", "draw", "place 2")
    assert not state.finished
    state = play(state, "take 2")
    assert state.finished and GAME.to_move(state) == frozenset()
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == tuple(r.score for r in state.results[0].scores)


def test_case_7_the_seat_taking_the_last_row_starts_the_next_round() -> None:
    state = GAME.initial_state(3, 0, {"first": 0}, fixed_deck(3))
    state = play(state, "draw", "place 0", "take 0", "draw", "place 1", "take 1")
    assert state.seat == 2, "the last seat still in"
    state = play(state, "draw", "place 2", "draw", "place 2", "take 2")
    assert state.round == 2 and state.starter == 2 and state.seat == 2
    assert state.rows == ((), (), ()) and state.taken_by == (None, None, None)
    record = state.history[-1]
    assert [(t.seat, t.row) for t in record.takes] == [(1, 0), (0, 1), (2, 2)]


def test_a_seat_that_took_a_row_is_skipped() -> None:
    state = GAME.initial_state(4, 0, {"first": 0}, fixed_deck(4))
    state = play(state, "draw", "place 0", "draw", "place 1", "take 1")  # seat 2 takes
    assert state.seat == 3
    state = play(state, "draw", "place 2", "draw")
    assert state.seat == 0
    state = play(state, "place 3")
    assert state.seat == 1, "seat 2 is skipped"
    state = play(state, "draw", "place 0")
    assert state.seat == 3


def test_case_8_two_players_rows_of_1_2_3_and_the_left_over_row_leaves_the_game() -> None:
    state = GAME.initial_state(2, 0, {"first": 0})
    state = state._replace(rows=((), (C, D), (E,)), seat=0)
    state = play(state, "take 2")
    assert state.seat == 1
    assert legal(state) == ["draw", "take 1"]
    drawn = play(state, "draw")
    assert legal(drawn) == ["place 0"]
    full = play(drawn, "place 0")
    assert full.seat == 1 and legal(full) == ["take 0", "take 1"]
    over = play(full, "take 1")
    assert over.round == 2 and over.starter == 1
    assert over.history[-1].removed == (drawn.drawn,) and over.removed == (drawn.drawn,)


def test_a_match_of_four_games_rotates_the_starter_and_sums_the_scores() -> None:
    decks = [token for k in range(4) for token in fixed_deck(3, [C] * k)]
    state = GAME.initial_state(3, 0, {"games": 4, "first": 2}, decks)
    rng = random.Random(0)
    starters = set()
    while GAME.to_move(state):
        if state.round == 1:
            starters.add((state.game, state.starter))
        state = GAME.apply(state, {state.seat: rng.choice(GAME.legal_actions(state, state.seat))})
    assert sorted(starters) == [(1, 2), (2, 0), (3, 1), (4, 2)]
    assert [r.first for r in state.results] == [2, 0, 1, 2]
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == tuple(sum(r.points[s] for r in state.results) for s in range(3))


def test_a_tie_is_a_shared_win() -> None:
    state = GAME.initial_state(3, 0, {"first": 0})
    state = state._replace(finished=True, totals=(30, 30, 12))
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.winners == frozenset({0, 1}) and outcome.placings == (1, 1, 3)


# -- scoring ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "scoring", "score"),
    [
        ({J: 1, PLUS2: 1, A: 6, B: 4, C: 3, D: 2}, Scoring.BROWN, 41),
        ({A: 7}, Scoring.BROWN, 21),
        ({A: 3, B: 3, C: 2, D: 1, E: 1}, Scoring.BROWN, 13),
        ({A: 5, B: 3, J: 1}, Scoring.BROWN, 27),
        ({A: 5, B: 3, J: 1}, Scoring.GREY, 15),
    ],
)
def test_the_contract_scoring_cases(cards: dict[Card, int], scoring: Scoring, score: int) -> None:
    collection = Collection.of(card for card, n in cards.items() for _ in range(n))
    assert score_collection(collection, COLOURS_IN_PLAY[4], scoring).score == score


def test_the_joker_choices_are_recorded() -> None:
    result = score_collection(
        Collection.of([J, PLUS2, *[A] * 6, *[B] * 4, *[C] * 3, D, D]), COLOURS_IN_PLAY[4], Scoring.BROWN
    )
    assert result.jokers == (B,)
    assert result.positive == (A, B, C) and result.negative == (D,) and result.plus_twos == 1
    grey = score_collection(Collection.of([*[A] * 5, *[B] * 3, J]), COLOURS_IN_PLAY[4], Scoring.GREY)
    assert grey.jokers[0] not in (A, B)


# -- notation and errors ----------------------------------------------------------------------------


def test_every_action_round_trips_through_its_notation() -> None:
    assert [str(a) for a in ACTIONS] == ["draw", *[f"place {r}" for r in range(5)], *[f"take {r}" for r in range(5)]]
    for action in ACTIONS:
        assert parse(str(action)) is action
        assert to_jsonable(action) == str(action)
    assert parse("  Take   3 ") is parse("take 3")


@pytest.mark.parametrize("text", ["", "draw 1", "take", "take 5", "place -1", "grab 2", "take x", "x" * 500])
def test_an_unparseable_action_raises_invalid_action_naming_the_value(text: str) -> None:
    with pytest.raises(InvalidActionError) as error:
        parse(text)
    message = str(error.value)
    assert repr(text[:10])[:-1] in message
    assert len(message) < 200, "the offending value is truncated"


def test_an_illegal_action_raises_illegal_action_saying_why_and_changes_nothing() -> None:
    state = GAME.initial_state(4, 0, {"first": 0}, fixed_deck(4))
    before = state
    cases = {
        "take 0": "row 0 is empty",
        "place 1": "no drawn card to place",
    }
    for text, why in cases.items():
        with pytest.raises(IllegalActionError, match=f"illegal action {text} for seat 0 .*{why}"):
            GAME.apply(state, {0: parse(text)})
    with pytest.raises(IllegalActionError, match="it is seat 0's turn"):
        GAME.apply(state, {1: parse("draw")})
    with pytest.raises(IllegalActionError, match="no action for seat 0"):
        GAME.apply(state, {})
    drawn = play(state, "draw")
    with pytest.raises(IllegalActionError, match="place the card you drew"):
        GAME.check_action(drawn, 0, parse("take 0"))
    three = GAME.initial_state(3, 0, {"first": 0})
    with pytest.raises(IllegalActionError, match="there is no row 3"):
        GAME.check_action(play(three, "draw"), 0, parse("place 3"))
    with pytest.raises(InvalidActionError, match="'draw'"):
        GAME.check_action(state, 0, "draw")
    assert state == before


def test_the_observation_is_the_public_view_and_json_ready() -> None:
    state = play(GAME.initial_state(4, 3, {"first": 0}), "draw", "place 1", "take 1")
    view = GAME.observe(state, 2)
    assert view.seat == 2
    assert view == GAME.public_view(state).__class__(**{**to_dict(GAME.public_view(state)), "seat": 2})
    data = to_jsonable(view)
    taken = state.takes[0]
    assert (taken.seat, taken.row) == (1, 1)
    assert data["collections"][1] == Collection.of([B, *taken.cards]).to_tokens()
    assert data["takes"] == [{"seat": 1, "row": 1, "cards": [str(taken.cards[0])]}]
    assert data["scoring"] == "brown" and data["pile_size"] == 72 and data["to_move"] == 2
    assert "pile" not in data and "later_piles" not in data
    with pytest.raises(IllegalActionError):
        GAME.observe(state, 4)


def to_dict(view: object) -> dict[str, Any]:
    return {name: getattr(view, name) for name in view.__dataclass_fields__}  # type: ignore[attr-defined]


def test_describe_action_lists_the_legal_actions() -> None:
    state = GAME.initial_state(4, 0, {"first": 0}, fixed_deck(4))
    assert "draw" in GAME.describe_action(state, 0)
    assert "seat 0 is to move" in GAME.describe_action(state, 1)
    assert "place 0, place 1, place 2, place 3" in GAME.describe_action(play(state, "draw"), 0)
