"""5211 round scoring: every shared round-scoring case, edge cases, and a literal reference rule."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.g5211 import CARDS, Card, Colour, ScoringKind, score_round
from arena.games.g5211.cards import full_deck
from arena.games.g5211.scoring import colour_limit, kododo_target, winning_colour
from tests.games.casefiles import ROUND_SCORING, load_cases

SHARED_CASES = load_cases(ROUND_SCORING)


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def laid(*seats: str) -> list[list[Card]]:
    return [cards(seat) for seat in seats]


def as_multisets(scored: Sequence[Sequence[Card]]) -> list[Counter[str]]:
    return [Counter(str(c) for c in seat) for seat in scored]


@pytest.mark.parametrize("case", SHARED_CASES, ids=[c["id"] for c in SHARED_CASES])
def test_shared_round_scoring_case(case: dict[str, Any]) -> None:
    result = score_round(case["players"], [[Card.parse(t) for t in seat] for seat in case["played"]])
    assert as_multisets(result.scored) == [Counter(seat) for seat in case["scoring"]]
    assert list(result.points) == case["points"]


def test_the_shared_file_has_the_rulebook_examples() -> None:
    assert len(SHARED_CASES) >= 11
    assert {"T1", "T2", "T3", "T4"} <= {c["id"] for c in SHARED_CASES}


@pytest.mark.parametrize(("players", "target", "limit"), [(2, 4, 5), (3, 5, 6), (4, 6, 7), (5, 7, 8)])
def test_targets_by_player_count(players: int, target: int, limit: int) -> None:
    assert kododo_target(players) == target
    assert colour_limit(players) == limit


def test_kododo_round_records_its_kind_and_keeps_laid_cards() -> None:
    played = laid("G1 G1 G5 Y2", "Y1 B1 G3 G4", "O1 V1 G2 G2", "Y3 Y4 B2 O2")
    result = score_round(4, played)
    assert result.kind is ScoringKind.KODODO
    assert result.colour is None
    assert result.laid == tuple(tuple(seat) for seat in played)
    assert result.points == (2, 2, 2, 0)


def test_kododo_beats_a_colour_that_would_otherwise_win() -> None:
    # 2 players: exactly 4 Kododo; blue alone would have 4 (< limit 5) and would win otherwise.
    result = score_round(2, laid("B1 B2 B3 O1", "B4 G1 Y1 V2"))
    assert result.kind is ScoringKind.KODODO
    assert as_multisets(result.scored) == [Counter(["B1", "O1"]), Counter(["G1", "Y1"])]


def test_kododo_of_one_colour_counts_only_once() -> None:
    # 4 Kododo of one colour in 2 players: exactly the target, whatever the colours.
    result = score_round(2, laid("G1 G1 B2 B3", "G1 G1 Y2 Y3"))
    assert result.kind is ScoringKind.KODODO
    assert result.points == (2, 2)


def test_more_kododo_than_the_target_count_as_colour() -> None:
    # 2 players, 5 Kododo (target 4): orange has 4 cards, under the limit of 5, and wins.
    result = score_round(2, laid("O1 O1 B1 G2", "O1 O6 Y1 V2"))
    assert result.kind is ScoringKind.COLOUR
    assert result.colour is Colour.ORANGE
    assert as_multisets(result.scored) == [Counter(["O1", "O1"]), Counter(["O1", "O6"])]
    assert result.points == (2, 7)


def test_colour_win_reports_the_colour() -> None:
    result = score_round(2, laid("B2 B3 B4 Y2", "B5 Y3 Y4 G2"))
    assert result.kind is ScoringKind.COLOUR
    assert result.colour is Colour.BLUE


@pytest.mark.parametrize(
    ("players", "at_limit", "below_limit"),
    [
        # colour counts of the 4 * players laid cards: green at the limit, then one green fewer
        (2, "G5 Y2 B1", "G4 Y2 B1 O1"),
        (3, "G6 Y3 B2 O1", "G5 Y3 B2 O1 V1"),
        (4, "G7 Y4 B3 O2", "G6 Y4 B3 O2 V1"),
        (5, "G8 Y5 B4 O2 V1", "G7 Y5 B4 O2 V2"),
    ],
)
def test_limit_is_reach_not_exceed(players: int, at_limit: str, below_limit: str) -> None:
    def round_of(counts: str) -> list[list[Card]]:
        flat = [Card.parse(f"{part[0]}2") for part in counts.split() for _ in range(int(part[1:]))]
        assert len(flat) == 4 * players
        return [flat[i * 4 : i * 4 + 4] for i in range(players)]

    dead = score_round(players, round_of(at_limit))
    assert dead.colour is Colour.YELLOW, "a colour with exactly the limit is dead; the next one wins"
    alive = score_round(players, round_of(below_limit))
    assert alive.colour is Colour.GREEN


def test_nothing_scores_when_every_colour_ties_or_is_dead() -> None:
    result = score_round(2, laid("B2 G2 O2 V2", "Y2 B3 G3 O3"))
    # Counts: B2 G2 O2 V1 Y1: the top (2) is a three-way tie, then V and Y tie at 1.
    assert result.kind is ScoringKind.NOTHING
    assert result.colour is None
    assert result.scored == ((), ())
    assert result.points == (0, 0)


def test_a_seat_scores_only_its_own_cards() -> None:
    result = score_round(3, laid("G2 G3 B2 B3", "G4 Y2 Y3 O2", "V2 V3 O3 B4"))
    # Counts: G3 B3 Y2 O2 V2 -> G and B tie, then Y/O/V tie at 2: nothing.
    assert result.kind is ScoringKind.NOTHING
    result = score_round(3, laid("G2 G3 B2 B3", "G4 Y2 Y3 O2", "V2 V3 O3 O4"))
    # Counts: G3 B2 Y2 O3 V2 -> G and O tie at 3; B, Y, V tie at 2: nothing.
    assert result.kind is ScoringKind.NOTHING
    result = score_round(3, laid("G2 G3 B2 B3", "G4 Y2 Y3 O2", "G5 V3 O3 O4"))
    # Counts: G4 B2 Y2 O3 V1 -> green wins; seat 2's G5 is its own.
    assert result.colour is Colour.GREEN
    assert as_multisets(result.scored) == [Counter(["G2", "G3"]), Counter(["G4"]), Counter(["G5"])]


@pytest.mark.parametrize(
    ("counts", "limit", "expected"),
    [
        ([0, 0, 0, 0, 0], 5, None),
        ([4, 0, 0, 0, 0], 5, 0),
        ([5, 3, 0, 0, 0], 5, 1),
        ([2, 2, 1, 1, 1], 5, None),
        ([3, 3, 2, 0, 0], 6, 2),
        ([7, 7, 1, 1, 0], 7, None),
        ([8, 4, 4, 0, 0], 7, None),
        ([0, 0, 0, 0, 6], 7, 4),
    ],
)
def test_winning_colour(counts: list[int], limit: int, expected: int | None) -> None:
    assert winning_colour(counts, limit) == expected


def reference_score(players: int, played: list[list[Card]]) -> list[list[Card]]:
    """The rules text, literally: Kododo exact, else repeat removing tied or dead top colours."""
    flat = [c for seat in played for c in seat]
    if sum(1 for c in flat if c.value == 1) == players + 2:
        return [[c for c in seat if c.value == 1] for seat in played]
    counts = Counter(c.colour for c in flat)
    left = {colour: n for colour, n in counts.items() if n > 0}
    while left:
        top = max(left.values())
        tops = [colour for colour, n in left.items() if n == top]
        if len(tops) == 1 and top < players + 3:
            return [[c for c in seat if c.colour == tops[0]] for seat in played]
        for colour in tops:
            del left[colour]
    return [[] for _ in played]


@st.composite
def rounds(draw: st.DrawFn) -> tuple[int, list[list[Card]]]:
    players = draw(st.integers(2, 5))
    deck = draw(st.permutations(full_deck()))
    # Bias towards Kododo-heavy rounds now and then so the exact-target branch is exercised.
    if draw(st.booleans()):
        deck = sorted(deck, key=lambda c: (c.value != 1, draw(st.integers(0, 3))))
    flat = list(deck[: 4 * players])
    return players, [flat[i * 4 : i * 4 + 4] for i in range(players)]


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_engine_matches_the_literal_rule(case: tuple[int, list[list[Card]]]) -> None:
    players, played = case
    result = score_round(players, played)
    assert [list(seat) for seat in result.scored] == reference_score(players, played)
    assert sum(result.points) == sum(c.value for seat in result.scored for c in seat)


def test_all_thirty_cards_score_by_value() -> None:
    for card in CARDS:
        assert card.value == int(card) % 6 + 1
