"""The Azul rules contract (shared/rules/azul.md), case by case, through the public interface."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from arena.errors import GameSetupError, IllegalActionError, InvalidActionError
from arena.games import to_jsonable
from arena.games.azul import COLOURS, Board, EndReason, GameAzul, Phase, State, Take, Tile, Tiling, WallSide
from arena.games.azul.rules import ALL_TILES
from arena.games.azul.scoring import EMPTY_LINES, placement_points
from arena.games.azul.tiles import SIZE, standard_colour
from arena.games.base import Termination
from tests.games.test_game_conformance import playout, replay

GAME = GameAzul()
B, Y, R, K, W, S = Tile.B, Tile.Y, Tile.R, Tile.K, Tile.W, Tile.S


def tiles(text: str) -> tuple[Tile, ...]:
    return tuple(Tile.from_letter(letter) for letter in text)


def wall(*rows: str) -> tuple[tuple[Tile | None, ...], ...]:
    return tuple(tuple(None if ch == "." else Tile.from_letter(ch) for ch in row) for row in rows)


def bag_starting(prefix: str) -> list[str]:
    """A 100-tile bag order that begins with ``prefix``."""
    rest = list(ALL_TILES)
    for tile in tiles(prefix):
        rest.remove(tile)
    return [*prefix, *(tile.name for tile in rest)]


def fresh(players: int = 2, prefix: str = "", **options: Any) -> State:
    return GAME.initial_state(players, 0, {"first": 0, **options}, deck=bag_starting(prefix))


def board(
    lines: tuple[str, ...] = ("",) * 5, rows: tuple[str, ...] = (".....",) * 5, floor: str = "", score: int = 0
) -> Board:
    return Board(score, tuple(tiles(line) for line in lines), wall(*rows), tiles(floor))


def take(state: State, text: str) -> State:
    return GAME.apply(state, {state.to_act: GAME.parse_action(text)})


def test_the_standard_wall_is_the_contracts_pattern() -> None:
    printed = ["BYRKW", "WBYRK", "KWBYR", "RKWBY", "YRKWB"]
    assert ["".join(standard_colour(r, c).name for c in range(SIZE)) for r in range(SIZE)] == printed


def test_setup_fills_2p_plus_1_factories_from_the_front_of_the_bag() -> None:
    # Contract case 6: the bag begins B B Y R K K K W.
    for players, count in ((2, 5), (3, 7), (4, 9)):
        state = fresh(players, "BBYRKKKW")
        assert len(state.factories) == count
        assert state.factories[:2] == (tiles("BBYR"), tiles("KKKW"))
        assert len(state.bag) == 100 - 4 * count
        assert state.marker_in_centre and state.centre == ()
        assert GAME.to_move(state) == {0}


def test_a_take_from_a_factory_moves_the_rest_to_the_centre() -> None:
    state = take(fresh(2, "BBYRKKKW"), "0 R 3")
    assert state.boards[0].lines[2] == (R,)
    assert state.centre == tiles("BBY")
    assert state.factories[0] == ()
    assert state.to_act == 1


def test_the_first_take_from_the_centre_takes_the_marker_and_its_holder_starts_next() -> None:
    # Contract case 7: centre S K K Y, action C K 1.
    state = fresh(2)._replace(factories=((),) * 5, centre=tiles("KKY"))
    state = take(state, "C K 1")
    assert state.boards[0].lines[0] == (K,)
    assert state.boards[0].floor == (S, K)
    assert not state.marker_in_centre and state.marker_holder == 0
    state = take(state, "C Y F")  # the last tile: the round ends and is tiled
    result = state.history[-1]
    assert result.floor_penalties == (2, 1)
    assert result.next_starter == 0 and state.starter == 0 and state.round == 2
    assert state.marker_in_centre and state.boards[0].floor == ()


def test_the_centre_holding_only_the_marker_is_not_a_source() -> None:
    state = fresh(2)._replace(factories=(tiles("RRRR"), (), (), (), ()))
    assert {action.source for action in GAME.legal_actions(state, 0) if isinstance(action, Take)} == {0}
    with pytest.raises(IllegalActionError, match="the centre holds no R"):
        GAME.check_action(state, 0, Take.parse("C R F"))


def test_nobody_taking_from_the_centre_leaves_the_marker_and_the_same_starter() -> None:
    state = fresh(2)._replace(factories=(tiles("RRRR"), (), (), (), ()), starter=1, to_act=1)
    state = take(state, "0 R 4")
    assert state.history[-1].next_starter == 1
    assert state.starter == 1 and state.to_act == 1 and state.marker_in_centre


def test_illegal_targets_are_refused_with_the_reason_and_are_not_listed() -> None:
    # Contract case 8.
    mine = board(lines=("", "Y", "", "", ""), rows=(".....", ".....", "....R", ".....", "....."))
    state = fresh(2)._replace(factories=(tiles("RRBB"), (), (), (), ()), boards=(mine, board()))
    legal = {str(a) for a in GAME.legal_actions(state, 0)}
    for text, reason in (("0 R 3", "wall row 3 already holds R"), ("0 R 2", "pattern line 2 holds Y")):
        assert text not in legal
        with pytest.raises(IllegalActionError, match=reason) as error:
            GAME.check_action(state, 0, GAME.parse_action(text))
        assert repr(text) in str(error.value)
    full = board(lines=("R", "", "", "", ""))
    state = state._replace(boards=(full, full))
    assert "0 R 1" not in {str(a) for a in GAME.legal_actions(state, 0)}
    with pytest.raises(IllegalActionError, match="pattern line 1 is full"):
        GAME.check_action(state, 0, Take.parse("0 R 1"))
    assert "0 R F" in {str(a) for a in GAME.legal_actions(state, 0)}


def test_excess_tiles_go_to_the_floor_and_past_seven_spaces_to_the_lid() -> None:
    state = fresh(2)._replace(
        factories=(tiles("RRRR"), (), (), (), ()), centre=tiles("B"), boards=(board(floor="KKKKK"), board())
    )
    state = take(state, "0 R 1")  # 1 on the line, 3 excess: 2 on the floor, 1 to the lid
    assert state.boards[0].lines[0] == (R,)
    assert state.boards[0].floor == tiles("KKKKKRR")
    assert state.lid == (R,)


def test_a_seat_with_a_full_floor_still_takes_the_marker_and_starts_next() -> None:
    state = fresh(2)._replace(factories=((),) * 5, centre=tiles("BB"), boards=(board(floor="KKKKKKK"), board()))
    state = take(state, "C B F")
    result = state.history[-1]
    assert result.floor_penalties == (14, 0), "the held marker adds no penalty"
    assert result.next_starter == 0
    assert state.lid.count(B) == 2 and state.lid.count(K) == 7


def test_placement_scores_of_the_worked_cases() -> None:
    assert placement_points(wall("R....", *(["....."] * 4)), 0, 0) == 1
    assert placement_points(wall("BYR..", *(["....."] * 4)), 0, 2) == 3
    assert placement_points(wall("BYR..", "WBY..", ".....", ".....", "....."), 1, 2) == 5
    assert placement_points(wall("..R..", "..Y..", "KWBY.", ".....", "....."), 2, 2) == 7


def test_a_score_never_goes_below_zero() -> None:
    state = fresh(2)._replace(factories=((),) * 5, centre=tiles("R"), boards=(board(score=3, floor="KKK"), board()))
    state = take(state, "C R 1")  # +1 for R, floor S K K K: -6 → 0 rather than -2
    assert state.history[-1].scores[0] == 0


def test_the_game_ends_after_the_tiling_that_completes_a_row_with_the_bonuses() -> None:
    # Contract case 9: one complete row, one complete column, all five W: +19.
    mine = board(lines=("W", "", "", "", ""), rows=("BYRK.", "W...K", ".W..R", "..W.Y", "...WB"), score=10)
    state = fresh(2)._replace(factories=((),) * 5, centre=tiles("R"), boards=(mine, board()), to_act=1)
    state = take(state, "C R F")
    assert state.phase is Phase.OVER and state.end is EndReason.ROW
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert state.bonuses == (19, 0)
    assert outcome.scores == (10 + 10 + 19, 0)
    assert outcome.winners == {0} and outcome.termination is Termination.NORMAL
    assert GAME.to_move(state) == frozenset() and GAME.legal_actions(state, 0) == ()
    for actions in ({}, {0: Take.parse("C R F")}):
        with pytest.raises(IllegalActionError, match="the match is over"):
            GAME.apply(state, actions)


def over(scores: tuple[int, ...], rows: tuple[int, ...]) -> State:
    """A finished game with these scores and numbers of complete rows."""
    printed = ["".join(standard_colour(r, c).name for c in range(SIZE)) for r in range(SIZE)]
    boards = tuple(
        Board(score, EMPTY_LINES, wall(*(printed[r] if r < n else "....." for r in range(SIZE))), ())
        for score, n in zip(scores, rows, strict=True)
    )
    return fresh(len(scores))._replace(phase=Phase.OVER, boards=boards, end=EndReason.ROW)


def test_a_tie_on_points_goes_to_more_complete_rows_then_is_shared() -> None:
    # Contract case 10.
    outcome = GAME.outcome(over((30, 30, 12), (1, 2, 3)))
    assert outcome is not None
    assert outcome.placings == (2, 1, 3), "rows are compared among the seats tied on points only"
    shared = GAME.outcome(over((30, 30), (2, 2)))
    assert shared is not None and shared.winners == {0, 1}


def test_the_max_rounds_cap_ends_the_game_with_the_bonuses() -> None:
    state = fresh(2, max_rounds=1)
    while state.phase is Phase.OFFER:
        state = take(state, str(GAME.legal_actions(state, state.to_act)[-1]))
    assert state.phase is Phase.OVER and state.end is EndReason.MAX_ROUNDS and len(state.history) == 1
    assert GAME.outcome(state) is not None


def test_a_round_with_no_tiles_goes_straight_to_wall_tiling() -> None:
    # Bag and lid are empty when the next rounds start: no offers, the same seat starts again.
    state = fresh(2, max_rounds=4)._replace(factories=(tiles("R"), (), (), (), ()), bag=(), lid=(), starter=1, to_act=1)
    state = take(state, "0 R 1")
    assert state.phase is Phase.OVER and state.end is EndReason.MAX_ROUNDS
    assert [result.round for result in state.history] == [1, 2, 3, 4]
    assert all(result.next_starter == 1 for result in state.history)
    assert state.factories == ((),) * 5


def grey_tiling_state() -> State:
    mine = board(lines=("B", "BB", "", "", "KKKKK"), rows=(".....", "K....", ".....", ".....", "....."))
    theirs = board(lines=("R", "", "", "", ""), rows=(".BYKW", ".....", "R....", ".....", "....."))
    state = fresh(3, wall="grey")._replace(factories=((),) * 7, centre=tiles("Y"), boards=(mine, theirs, board()))
    return take(state, "C Y F")


def test_the_grey_wall_tiling_is_a_simultaneous_turn_of_the_seats_with_full_lines() -> None:
    state = grey_tiling_state()
    assert state.phase is Phase.TILING
    assert GAME.to_move(state) == {0, 1}
    legal0 = [str(a) for a in GAME.legal_actions(state, 0)]
    # Line 1's B: 5 columns; line 2's B: columns 2-5 but not line 1's; line 5's K: not column 1 (K).
    assert legal0[0] == "1:1 2:2 5:2"
    assert len(legal0) == len(set(legal0)) == (1 * 4 + 4 * 3) * 4
    assert "1:2 2:2 5:2" not in legal0, "column 2 already holds the B placed by line 1"
    assert [str(a) for a in GAME.legal_actions(state, 1)] == ["1:F"], "contract case 11"
    assert GAME.legal_actions(state, 2) == ()
    with pytest.raises(IllegalActionError, match="1:F is not allowed"):
        GAME.check_action(state, 0, Tiling.parse("1:F 2:3 5:2"))
    with pytest.raises(IllegalActionError, match="lines 1 2 5"):
        GAME.check_action(state, 0, Tiling.parse("1:1 5:2"))
    with pytest.raises(IllegalActionError, match="not to move"):
        GAME.check_action(state, 2, Tiling.parse("1:1"))
    with pytest.raises(IllegalActionError, match="no action for seat"):
        GAME.apply(state, {0: Tiling.parse("1:1 2:2 5:2")})
    after = GAME.apply(state, {0: Tiling.parse("1:3 2:2 5:2"), 1: Tiling.parse("1:F")})
    result = after.history[-1]
    assert [str(t) if t else None for t in result.tilings] == ["1:3 2:2 5:2", "1:F", None]
    assert result.floor_penalties[1] == 1
    assert after.boards[0].wall[0][2] is B and after.boards[0].wall[1][1] is B and after.boards[0].wall[4][1] is K


def test_offer_and_tiling_actions_are_checked_for_the_phase() -> None:
    state = grey_tiling_state()
    with pytest.raises(IllegalActionError, match="grey-wall tiling"):
        GAME.check_action(state, 0, Take.parse("0 R 1"))
    with pytest.raises(IllegalActionError, match="factory offer"):
        GAME.check_action(fresh(2), 0, Tiling.parse("1:1"))


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("3 R 4", "3 R 4"), ("c k f", "C K F"), (" 0  b 1 ", "0 B 1"), ("2:4 5:1", "2:4 5:1"), ("1:f", "1:F")],
)
def test_actions_parse_and_print_in_the_contracts_notation(text: str, canonical: str) -> None:
    action = GAME.parse_action(text)
    assert str(action) == canonical
    assert GAME.parse_action(str(action)) == action
    assert to_jsonable(action) == canonical


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("", "''"),
        ("3 R", "'3 R'"),
        ("9 R 1", "'9'"),
        ("X R 1", "'X'"),
        ("\u00b2 R 1", "'\u00b2'"),
        ("\u0663 R 1", "'\u0663'"),
        ("1 S 1", "'S'"),
        ("1 R 6", "'6'"),
        ("1 R 4 5", "'1 R 4 5'"),
        ("2:4 2:5", "'2:4 2:5'"),
        ("5:1 2:4", "'5:1 2:4'"),
        ("0:1", "'0:1'"),
        ("1:6", "'1:6'"),
    ],
)
def test_unparseable_actions_raise_invalid_action_naming_the_text(text: str, names: str) -> None:
    with pytest.raises(InvalidActionError) as error:
        GAME.parse_action(text)
    assert names in str(error.value)


def test_a_long_action_text_is_truncated_in_the_error() -> None:
    with pytest.raises(InvalidActionError) as error:
        GAME.parse_action("C " * 5000)
    assert len(str(error.value)) < 200


def test_illegal_sources_name_the_action() -> None:
    state = fresh(2)
    with pytest.raises(IllegalActionError, match="there is no factory 7"):
        GAME.check_action(state, 0, Take.parse("7 R 1"))
    with pytest.raises(IllegalActionError, match="not to move"):
        GAME.check_action(state, 1, GAME.legal_actions(state, 0)[0])
    with pytest.raises(InvalidActionError):
        GAME.check_action(state, 0, "0 R 1")


def test_a_rejected_apply_changes_nothing() -> None:
    state = fresh(2, "RRRRKKKW")
    before = copy.deepcopy(state)
    for actions in (
        {0: Take.parse("0 B 1")},
        {1: Take.parse("1 K 1")},
        {0: Take.parse("0 R 1"), 1: Take.parse("1 K 1")},
        {},
    ):
        with pytest.raises(IllegalActionError):
            GAME.apply(state, actions)
    assert state == before


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": 1}, "unknown Azul option"),
        ({"wall": "gray"}, "option wall must be 'standard' or 'grey', not 'gray'"),
        ({"max_rounds": 0}, "option max_rounds must be an integer from 1 to 1000, not 0"),
        ({"max_rounds": True}, "max_rounds"),
        ({"first": 2}, "option first must be a seat from 0 to 1, not 2"),
    ],
)
def test_bad_options_are_refused_naming_the_value(options: dict[str, Any], message: str) -> None:
    with pytest.raises(GameSetupError, match=message):
        GAME.initial_state(2, 0, options)


def test_bad_player_counts_and_decks_are_refused() -> None:
    with pytest.raises(GameSetupError, match="2 to 4 players, not 5"):
        GAME.initial_state(5, 0)
    with pytest.raises(GameSetupError, match="100 tiles, 20 of each colour, not 99"):
        GAME.initial_state(2, 0, deck=bag_starting("")[1:])
    with pytest.raises(GameSetupError, match="invalid deck entry 'Q' at position 0"):
        GAME.initial_state(2, 0, deck=["Q", *bag_starting("")[1:]])


def dump_everything(state: State) -> State:
    """Play every take to the floor: nobody ever completes a row."""
    while state.phase is Phase.OFFER:
        legal = GAME.legal_actions(state, state.to_act)
        state = GAME.apply(state, {state.to_act: next(a for a in legal if isinstance(a, Take) and a.target == 0)})
    return state


def test_a_fixture_refill_must_exist_match_the_lid_and_be_used() -> None:
    # 2 players use 20 tiles a round: the bag runs out when round 6 is filled.
    with pytest.raises(GameSetupError, match="no order for refill 1"):
        dump_everything(fresh(2))
    with pytest.raises(GameSetupError, match=r"refill 1 order .* is not a permutation of the lid"):
        dump_everything(GAME.initial_state(2, 0, deck=[*bag_starting(""), "/", "B"]))
    with pytest.raises(GameSetupError, match="1 refill order"):
        dump_everything(GAME.initial_state(2, 0, {"max_rounds": 1}, deck=[*bag_starting(""), "/", "B"]))
    state = dump_everything(GAME.initial_state(2, 0, {"max_rounds": 5}, deck=bag_starting("")))
    lid = "".join(tile.name for tile in state.lid)
    assert len(lid) == 100
    refilled = GAME.initial_state(2, 0, {"max_rounds": 6}, deck=[*bag_starting(""), "/", *reversed(lid)])
    refilled = dump_everything(refilled)
    assert refilled.refill_count == 1 and refilled.end is EndReason.MAX_ROUNDS


def test_the_first_legal_take_puts_tiles_on_the_longest_open_line() -> None:
    state = fresh(2, "RRYB")
    legal = [str(a) for a in GAME.legal_actions(state, 0)]
    assert legal[:6] == ["0 B 5", "0 B 4", "0 B 3", "0 B 2", "0 B 1", "0 B F"]
    assert legal[6:8] == ["0 Y 5", "0 Y 4"] and legal[-1].endswith(" F")


def test_the_seed_decides_the_bag_and_the_starter() -> None:
    starters = {GAME.initial_state(3, seed).starter for seed in range(30)}
    assert starters == {0, 1, 2}
    assert GAME.initial_state(2, 7) == GAME.initial_state(2, 7)
    assert GAME.initial_state(2, 7).bag != GAME.initial_state(2, 8).bag


def test_describe_action_shows_the_notation_with_a_legal_example() -> None:
    state = fresh(2)
    text = GAME.describe_action(state, 0)
    assert "'source colour target'" in text and str(GAME.legal_actions(state, 0)[0]) in text
    assert GAME.describe_action(state, 1) == "seat 1 is not to move"
    tiling = grey_tiling_state()
    assert "full line (1 2 5)" in GAME.describe_action(tiling, 0)


class GreyAzul(GameAzul):
    """Azul on the grey wall by default, for the generic playout."""

    def initial_state(self, num_players: int, seed: int, options: Any = None, deck: Any = None) -> State:
        return super().initial_state(num_players, seed, {"wall": WallSide.GREY.value, **(options or {})}, deck)


@pytest.mark.parametrize("rules", [GAME, GreyAzul()], ids=["standard", "grey"])
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_generic_playout_suite(rules: GameAzul, players: int, seed: int) -> None:
    record = playout(rules, players, seed)
    assert playout(rules, players, seed) == record, "the same seed gives the same record"
    assert replay(rules, players, seed, record).to_dict() == record["outcome"]


def test_an_observation_is_plain_json_with_the_bag_as_counts_only() -> None:
    state = GAME.initial_state(2, 3, {"wall": "grey"})
    view = to_jsonable(GAME.observe(state, 1))
    assert json.loads(json.dumps(view)) == view
    assert view["seat"] == 1 and view["wall_side"] == "grey" and view["phase"] == "offer"
    assert view["bag_counts"] == [state.bag.count(colour) for colour in COLOURS] and sum(view["bag_counts"]) == 80
    assert view["factories"][0] == [tile.name for tile in state.factories[0]]
    assert view["boards"][0] == {"score": 0, "lines": [[]] * 5, "wall": [[None] * 5] * 5, "floor": []}
    assert not {"bag", "seed", "refills"} & set(view), "nothing from the contract's 'nobody' rows"
    assert to_jsonable(GAME.public_view(state)) == {**view, "seat": None}
    with pytest.raises(IllegalActionError, match="seat 2 is not in this 2-player match"):
        GAME.observe(state, 2)
