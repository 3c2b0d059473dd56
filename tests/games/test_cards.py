"""5211 cards and plays: notation, interning, the deck's composition."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.errors import InvalidActionError
from arena.games import to_jsonable
from arena.games.g5211 import CARDS, Card, Colour, Play
from arena.games.g5211.cards import COPIES_PER_VALUE, format_cards, full_deck


def test_every_card_prints_and_parses_back() -> None:
    texts = [str(card) for card in CARDS]
    assert len(set(texts)) == 30
    for card in CARDS:
        assert Card.parse(str(card)) is card
        assert repr(card) == f"Card({str(card)!r})"


@pytest.mark.parametrize(
    ("text", "colour", "value"),
    [("B1", Colour.BLUE, 1), ("G3", Colour.GREEN, 3), ("O6", Colour.ORANGE, 6), ("Y4", Colour.YELLOW, 4)],
)
def test_card_colour_and_value(text: str, colour: Colour, value: int) -> None:
    card = Card.parse(text)
    assert card.colour is colour
    assert card.value == value
    assert colour.letter == text[0]


def test_parse_is_lenient_about_case_and_spaces() -> None:
    assert Card.parse(" g3 ") is Card.parse("G3")


@pytest.mark.parametrize("text", ["", "G", "G0", "G7", "X3", "3G", "G33", "Kododo"])
def test_invalid_card_names_the_text(text: str) -> None:
    with pytest.raises(InvalidActionError, match="invalid card") as info:
        Card.parse(text)
    assert repr(text) in str(info.value)


def test_full_deck_composition() -> None:
    deck = full_deck()
    assert len(deck) == 100
    counts = Counter(deck)
    assert len(counts) == 30
    for card, copies in counts.items():
        assert copies == COPIES_PER_VALUE[card.value]
    per_colour = Counter(card.colour for card in deck)
    assert per_colour == dict.fromkeys(Colour, 20)
    assert sum(COPIES_PER_VALUE.values()) == 20


def test_play_is_a_sorted_multiset() -> None:
    play = Play.parse("Y1 G3")
    assert str(play) == "G3 Y1"
    assert play == Play.parse("G3,Y1") == Play.parse("  g3   y1 ")
    assert play is Play.parse("G3 Y1"), "plays a hand can make are interned"
    assert play is Play.of([Card.parse("Y1"), Card.parse("G3")])
    assert hash(play) == hash(Play.parse("Y1 G3"))
    assert len(play) == 2
    assert repr(play) == "Play('G3 Y1')"
    assert Play.parse("B2 B2").cards == (Card.parse("B2"), Card.parse("B2"))


def test_play_equality_is_by_cards() -> None:
    assert Play.parse("G3") != Play.parse("G4")
    assert Play.parse("G3") != "G3"
    # Plays no hand can make (3 cards) are not interned but still compare by value.
    assert Play.parse("B1 B2 B3") == Play.parse("B3 B2 B1")


@pytest.mark.parametrize("text", ["", "   ", ",", ", ,"])
def test_empty_play_is_invalid(text: str) -> None:
    with pytest.raises(InvalidActionError, match="no cards given"):
        Play.parse(text)


def test_play_with_a_bad_card_names_the_card() -> None:
    with pytest.raises(InvalidActionError, match="'Q9'"):
        Play.parse("G3 Q9")


def test_notation_in_json() -> None:
    assert to_jsonable(Card.parse("G3")) == "G3"
    assert to_jsonable(Play.parse("Y1 G3")) == "G3 Y1"
    assert to_jsonable((Card.parse("B1"), Play.parse("O2"))) == ["B1", "O2"]
    assert format_cards([Card.parse("Y1"), Card.parse("B6")]) == "Y1 B6"
