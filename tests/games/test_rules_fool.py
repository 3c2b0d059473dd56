"""FOOL! rules and scoring, case by case from the contract (shared/rules/fool.md)."""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

import pytest

from arena.errors import ActionError, GameSetupError, IllegalActionError, InvalidActionError
from arena.games import to_jsonable
from arena.games.fool import (
    CARDS,
    FULL_DECK,
    WILD,
    Card,
    Colour,
    GameFool,
    Play,
    State,
    deck_from_deals,
    default_card_set,
    format_cards,
    hand_cost,
    legal_cards,
    resolve,
    round_scores,
)
from arena.games.fool.scoring import is_game_over
from arena.games.fool.trick import lead_colour

GAME = GameFool()


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def plays(*pairs: tuple[int, str]) -> list[Play]:
    return [Play(seat, Card.parse(text)) for seat, text in pairs]


# -- cards --------------------------------------------------------------------------------------------


def test_the_box_has_88_cards_in_four_colours_and_six_wilds() -> None:
    assert len(FULL_DECK) == 88
    counts = Counter(c.colour for c in FULL_DECK)
    assert counts == {Colour.GREEN: 26, Colour.RED: 22, Colour.YELLOW: 20, Colour.BLUE: 14, Colour.WILD: 6}
    assert [str(c) for c in CARDS[:2]] == ["G2", "G3"]
    assert str(CARDS[-1]) == "W1" and CARDS[-1] is WILD and WILD.value == 1
    assert max(c.value for c in FULL_DECK if c.colour is Colour.GREEN) == 27
    assert max(c.value for c in FULL_DECK if c.colour is Colour.BLUE) == 15


@pytest.mark.parametrize("text", ["G2", "G27", "R23", "Y21", "B15", "W1"])
def test_cards_round_trip_through_notation(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == text
    assert GAME.parse_action(text) is card
    assert GAME.parse_action(f" {text.lower()} ") is card


@pytest.mark.parametrize("text", ["", "G1", "G28", "R24", "B16", "W2", "X5", "G5 G6", "G 5", "W"])
def test_a_token_that_is_no_card_is_an_invalid_action_naming_it(text: str) -> None:
    with pytest.raises(InvalidActionError, match=f"invalid card {text!r}"):
        GAME.parse_action(text)


def test_an_invalid_action_message_truncates_a_long_value() -> None:
    with pytest.raises(InvalidActionError) as error:
        GAME.parse_action("G" * 5000)
    assert len(str(error.value)) < 200
    assert "GGGG..." in str(error.value)


# -- cards in play ------------------------------------------------------------------------------------

TABLE = {  # the contract's table: highest green, red, yellow, blue value; wilds; hand size
    4: (15, 13, 12, 9, 3, 12),
    5: (19, 16, 15, 10, 4, 12),
    6: (22, 19, 17, 13, 5, 12),
    7: (26, 22, 20, 14, 6, 12),
    8: (27, 23, 21, 15, 6, 11),
}


@pytest.mark.parametrize("players", sorted(TABLE))
def test_the_default_card_set_is_the_contract_table(players: int) -> None:
    g, r, y, b, w, hand = TABLE[players]
    expected = sorted(
        [Card.parse(f"G{v}") for v in range(2, g + 1)]
        + [Card.parse(f"R{v}") for v in range(2, r + 1)]
        + [Card.parse(f"Y{v}") for v in range(2, y + 1)]
        + [Card.parse(f"B{v}") for v in range(2, b + 1)]
        + [WILD] * w
    )
    assert list(default_card_set(players)) == expected
    state = GAME.initial_state(players, 3)
    assert [len(h) for h in state.hands] == [hand] * players
    assert Counter(c for h in state.hands for c in h) == Counter(expected)
    assert GAME.public_view(state).cards_in_play == tuple(expected)
    assert state.setup.fools_per_trick == (2 if players >= 7 else 1)


def test_two_fools_from_8_gives_one_fool_at_7() -> None:
    assert GAME.initial_state(7, 1, {"two_fools_from": 8}).setup.fools_per_trick == 1
    assert GAME.initial_state(8, 1, {"two_fools_from": 8}).setup.fools_per_trick == 2


def test_an_explicit_card_set_sets_the_cards_and_hand_size() -> None:
    chosen = "G2 G3 G4 G5 R2 R3 R4 R5 Y2 Y3 Y4 Y5 B2 B3 W1 W1"
    state = GAME.initial_state(4, 7, {"card_set": {"4": chosen.split()}})
    assert format_cards(state.setup.cards_in_play) == chosen
    assert [len(h) for h in state.hands] == [4] * 4
    # The other player counts keep the default set.
    assert GAME.initial_state(5, 7, {"card_set": {4: chosen.split()}}).setup.cards_in_play == default_card_set(5)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"card_set": {"4": ["G2", "G3", "G4"]}}, "3 cards, not a multiple of 4"),
        ({"card_set": {"4": ["G2", "G2", "G3", "G4"]}}, "'G2'"),
        ({"card_set": {"4": ["W1"] * 8}}, "'W1 W1'"),
        ({"card_set": {"4": ["G2", "Q9", "G3", "G4"]}}, "'Q9'"),
        ({"card_set": {"3": ["G2", "G3", "G4"]}}, "'3'"),
        ({"card_set": {"4": []}}, "card_set[4]"),
        ({"card_set": ["G2"]}, "card_set must map"),
        ({"two_fools_from": 6}, "not 6"),
        ({"two_fools_from": True}, "not True"),
        ({"wild_penalty": 0}, "not 0"),
        ({"wild_penalty": "5"}, "not '5'"),
        ({"first_dealer": 4}, "not 4"),
        ({"deals": [[]]}, "'deals'"),
    ],
)
def test_bad_options_are_a_setup_error_naming_the_value(options: dict[str, object], named: str) -> None:
    with pytest.raises(GameSetupError) as error:
        GAME.initial_state(4, 1, options)
    assert named in str(error.value)


@pytest.mark.parametrize("players", [3, 9, 0])
def test_fool_is_for_4_to_8_players(players: int) -> None:
    with pytest.raises(GameSetupError, match=f"not {players}"):
        GAME.initial_state(players, 1)


# -- set-up, deal and fixed deals -------------------------------------------------------------------


def test_fixed_deals_give_seat_s_the_block_s_and_later_rounds_come_from_the_seed() -> None:
    deal = list(reversed([str(c) for c in default_card_set(4)]))
    state = GAME.initial_state(4, 11, {"first_dealer": 2}, deck_from_deals([deal]))
    for seat in range(4):
        assert state.hands[seat] == tuple(sorted(Card.parse(t) for t in deal[seat * 12 : seat * 12 + 12]))
    assert state.dealer == 2 and state.leader == 3 and GAME.to_move(state) == {3}
    seeded = GAME.initial_state(4, 11, {"first_dealer": 2})
    assert seeded.hands != state.hands
    assert GAME.initial_state(4, 11).hands == GAME.initial_state(4, 11).hands, "same seed, same deal"
    assert GAME.initial_state(4, 11).hands != GAME.initial_state(4, 12).hands


def test_a_deck_that_is_not_whole_deals_of_the_cards_in_play_is_rejected() -> None:
    deal = [str(c) for c in default_card_set(4)]
    with pytest.raises(GameSetupError, match="48 cards in play, not 47"):
        GAME.initial_state(4, 1, deck=deal[:-1])
    with pytest.raises(GameSetupError, match=r"deal 2 .* G15 x0 \(want 1\)"):
        GAME.initial_state(4, 1, deck=[*deal, *deal[:13], "W1", *deal[14:]])
    with pytest.raises(GameSetupError, match="'X1'"):
        GAME.initial_state(4, 1, deck=["X1", *deal[1:]])


def test_the_first_dealer_comes_from_the_seed_and_the_deal_passes_left() -> None:
    dealers = {GAME.initial_state(5, seed).dealer for seed in range(40)}
    assert dealers == set(range(5))
    state = play_until(GAME.initial_state(5, 9), lambda s: s.round == 2)
    assert state.dealer == (GAME.initial_state(5, 9).dealer + 1) % 5
    assert state.leader == (state.dealer + 1) % 5
    assert state.sitting_out == (), "a new deal starts afresh"
    assert len(state.to_play) == 5


def play_until(state: State, stop: object) -> State:
    assert callable(stop)
    for _ in range(10_000):
        if stop(state) or state.finished:
            return state
        (seat,) = GAME.to_move(state)
        state = GAME.apply(state, {seat: GAME.legal_actions(state, seat)[0]})
    raise AssertionError("did not stop")


# -- following ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("so_far", "hand", "legal"),
    [
        ("G10", "G5 W1 B7", "G5 W1"),  # case 7
        ("G10", "W1 B7", "B7 W1"),  # case 7
        ("", "G5 W1 B7", "G5 B7 W1"),
        ("W1", "G5 R3 B7", "G5 R3 B7"),
        ("W1 B3", "G5 B7 B2 W1", "B2 B7 W1"),
        ("R9", "W1 W1 G3", "G3 W1"),
    ],
)
def test_following(so_far: str, hand: str, legal: str) -> None:
    assert format_cards(legal_cards(tuple(sorted(cards(hand))), lead_colour(cards(so_far)))) == legal


# -- winner and Fools: the contract's worked cases ---------------------------------------------------


@pytest.mark.parametrize(
    ("trick", "fools_per_trick", "lead", "winner", "fools"),
    [
        (((0, "B8"), (1, "B5"), (2, "B9")), 1, Colour.BLUE, 2, (1,)),  # case 1
        (((2, "Y11"), (3, "R5"), (0, "Y2")), 1, Colour.YELLOW, 2, (3,)),  # case 2
        (((0, "G10"), (1, "W1"), (2, "B3"), (3, "R3")), 1, Colour.GREEN, 0, (3,)),  # case 3
        (((0, "W1"), (1, "R7"), (2, "R9"), (3, "Y2")), 1, Colour.RED, 2, (3,)),  # case 4
        (((0, "W1"), (1, "W1"), (2, "B5")), 1, Colour.BLUE, 2, (1,)),  # case 5
        (((1, "W1"), (2, "W1"), (3, "W1")), 1, None, 1, (3,)),  # case 6
        (((0, "R10"), (1, "R4"), (2, "Y3"), (3, "R12"), (4, "R7")), 2, Colour.RED, 3, (2, 1)),  # case 8
        (((0, "R10"), (1, "G6"), (2, "R2"), (3, "B6"), (4, "R7")), 2, Colour.RED, 0, (3, 1)),  # case 8
    ],
)
def test_the_worked_tricks(
    trick: tuple[tuple[int, str], ...], fools_per_trick: int, lead: Colour | None, winner: int, fools: tuple[int, ...]
) -> None:
    assert resolve(plays(*trick), fools_per_trick) == (lead, winner, fools)


# -- scoring and the end ---------------------------------------------------------------------------


def test_case_9_an_empty_hand_scores_10_unless_it_is_a_fool_and_cards_cost_their_values() -> None:
    left = [[], [], cards("G12 W1"), cards("R3")]
    assert round_scores(left, (1,), 5) == (10, 0, -17, -3)
    assert round_scores(left, (1,), 8) == (10, 0, -20, -3)
    assert hand_cost(cards("W1 W1 B15"), 5) == 25


def test_case_10_the_game_ends_at_minus_80_or_six_tens() -> None:
    assert is_game_over((-81, 0, 0, 0), (0, 0, 0, 0))
    assert is_game_over((-80, 0, 0, 0), (0, 0, 0, 0))
    assert not is_game_over((-79, 50, 0, 0), (0, 5, 0, 0))
    assert is_game_over((-79, 60, 0, 0), (0, 6, 0, 0))


def rigged(first_dealer: int = 0, **options: object) -> State:
    """A 4-player game whose first deal gives seat s the cards in play s, s+4, s+8, ..."""
    cards_in_play = [str(c) for c in default_card_set(4)]
    deal = [cards_in_play[seat + 4 * i] for seat in range(4) for i in range(12)]
    return GAME.initial_state(4, 5, {"first_dealer": first_dealer, **options}, deck_from_deals([deal]))


def test_the_fools_sit_out_the_next_trick_and_the_winner_leads_it() -> None:
    state = rigged()
    assert state.leader == 1 and state.to_play == (1, 2, 3, 0)
    while len(state.tricks) < 1:
        (seat,) = GAME.to_move(state)
        state = GAME.apply(state, {seat: GAME.legal_actions(state, seat)[-1]})
    trick = state.tricks[0]
    assert state.leader == trick.winner
    assert state.sitting_out == trick.fools
    assert trick.winner not in trick.fools
    assert set(state.to_play) == set(range(4)) - set(trick.fools)
    assert state.to_play[0] == trick.winner
    fool = trick.fools[0]
    with pytest.raises(IllegalActionError, match=f"seat {fool} .* sits this one out"):
        GAME.check_action(state, fool, state.hands[fool][0])


def test_a_round_ends_after_the_trick_in_which_a_hand_empties_and_the_hands_are_shown() -> None:
    state = rigged()
    state = play_until(state, lambda s: s.round == 2)
    result = state.history[0]
    last = result.tricks[-1]
    emptied = [p.seat for p in last.plays if not result.left_in_hand[p.seat]]
    assert emptied, "some seat played its last card in the last trick"
    for trick in result.tricks[:-1]:
        assert all(result.left_in_hand[p.seat] or p.seat in {q.seat for q in trick.plays} for p in trick.plays)
    assert result.scores == round_scores(result.left_in_hand, last.fools, 5)
    assert result.totals == state.totals and result.tens == state.tens
    played = Counter(p.card for t in result.tricks for p in t.plays)
    left = Counter(c for h in result.left_in_hand for c in h)
    assert played + left == Counter(default_card_set(4))
    assert to_jsonable(GAME.observe(state, 0))["rounds"][0]["left_in_hand"] == [
        [str(c) for c in h] for h in result.left_in_hand
    ]


def test_ties_are_shared_wins() -> None:
    state = play_until(GAME.initial_state(4, 2), lambda s: False)
    outcome = GAME.outcome(state)
    assert outcome is not None
    tied = GAME.outcome(state._replace(totals=(3, 3, -90, 1)))
    assert tied is not None and tied.winners == {0, 1} and tied.placings == (1, 1, 4, 3)
    assert outcome.scores == state.totals
    assert GAME.outcome(GAME.initial_state(4, 2)) is None


# -- errors: specific, naming the value, telling nothing about other hands ------------------------


def test_an_illegal_card_names_it_and_only_the_own_hand() -> None:
    state = rigged()
    seat = state.to_play[0]
    foreign = state.hands[(seat + 1) % 4][0]
    with pytest.raises(IllegalActionError) as error:
        GAME.check_action(state, seat, foreign)
    message = str(error.value)
    assert message.startswith(
        f"illegal action {foreign} for seat {seat} in round 1, trick 1: {foreign} is not in your hand"
    )
    assert format_cards(state.hands[seat]) in message
    others = (
        {str(c) for s in range(4) if s != seat for c in state.hands[s]}
        - {str(foreign)}
        - {str(c) for c in state.hands[seat]}
    )
    assert not any(f" {c} " in f" {message.replace('(', ' ').replace(')', ' ')} " for c in others)
    with pytest.raises(IllegalActionError):
        GAME.apply(state, {seat: foreign})


def test_not_following_names_the_own_cards_of_the_lead_colour() -> None:
    state = rigged()
    (seat,) = GAME.to_move(state)
    state = GAME.apply(state, {seat: Card.parse("G3")}) if Card.parse("G3") in state.hands[seat] else state
    (seat,) = GAME.to_move(state)
    hand = state.hands[seat]
    lead = state.lead
    assert lead is Colour.GREEN
    off = next(c for c in hand if c.colour not in (lead, Colour.WILD))
    own = [c for c in hand if c.colour is lead]
    with pytest.raises(
        IllegalActionError, match=f"illegal action {off} .* green was led and you hold green \\({format_cards(own)}\\)"
    ):
        GAME.check_action(state, seat, off)
    assert "green card or a wild" in GAME.describe_action(state, seat)


def test_a_seat_not_to_move_and_a_non_card_are_rejected() -> None:
    state = rigged()
    (seat,) = GAME.to_move(state)
    other = (seat + 1) % 4
    card = state.hands[other][0]
    with pytest.raises(IllegalActionError, match=f"{card} for seat {other} .* not its turn; seat {seat} is to play"):
        GAME.apply(state, {other: card})
    with pytest.raises(IllegalActionError, match=f"no action for seat {seat}"):
        GAME.apply(state, {})
    with pytest.raises(ActionError):
        GAME.apply(state, {seat: state.hands[seat][0], other: card})
    with pytest.raises(InvalidActionError, match="'G5 G6'"):
        GAME.check_action(state, seat, "G5 G6")
    assert GAME.legal_actions(state, other) == ()
    assert GAME.describe_action(state, other) == f"nothing to do: it is seat {seat}'s turn"
    assert GAME.describe_action(state, seat).startswith("play one card from your hand as a token, e.g. ")


def test_the_first_legal_action_is_the_lowest_card_in_notation_order() -> None:
    state = rigged()
    (seat,) = GAME.to_move(state)
    assert GAME.legal_actions(state, seat)[0] == state.hands[seat][0]
    assert list(GAME.legal_actions(state, seat)) == sorted(set(state.hands[seat]))


# -- layering ------------------------------------------------------------------------------------------


def test_the_engine_imports_only_the_standard_library_and_arena_errors() -> None:
    folder = Path(__file__).resolve().parents[2] / "arena" / "games" / "fool"
    allowed = {"arena.errors", "arena.games.base", "arena.games.casefile"}
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                top = name.split(".")[0]
                ok = top in sys.stdlib_module_names or name in allowed or name.startswith("arena.games.fool")
                assert ok, f"{path.name} imports {name}"
