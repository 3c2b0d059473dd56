"""5211 observations on the wire: lossless round trips, and nothing hidden crosses."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import catalogue, wire
from arena.games.g5211 import CARDS, Card, Colour, Game5211, Observation, RoundResult, ScoringKind, State
from arena.games.g5211.cards import Play
from arena.v1 import game_5211_pb2, observation_pb2
from arena.wire import g5211

GAME = Game5211()


def play_random(num_players: int, seed: int, long_game: bool = False) -> Iterator[State]:
    """Every state of one match between uniformly random players."""
    rng = random.Random(seed * 7 + num_players)
    state = GAME.initial_state(num_players, seed, {"long_game": long_game})
    yield state
    while seats := GAME.to_move(state):
        state = GAME.apply(state, {seat: rng.choice(GAME.legal_actions(state, seat)) for seat in seats})
        yield state


def _roundtrip(observation: Observation) -> Observation:
    message = catalogue.observation_to_proto(observation)
    # Through bytes too, as on a real stream.
    parsed = observation_pb2.Observation.FromString(message.SerializeToString())
    assert catalogue.game_of(parsed) == "5211"
    return catalogue.observation_from_proto(parsed)  # type: ignore[no-any-return]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), num_players=st.integers(2, 5), long_game=st.booleans())
def test_every_observation_of_a_random_match_round_trips(seed: int, num_players: int, long_game: bool) -> None:
    states = play_random(num_players, seed, long_game)
    for index, state in enumerate(states):
        if long_game and index > 60:
            break  # the longer game is long; its first decks are enough
        for seat in range(num_players):
            observation = GAME.observe(state, seat)
            assert _roundtrip(observation) == observation
        view = GAME.public_view(state)
        assert _roundtrip(view) == view


def test_seat_is_optional_and_zero_is_kept() -> None:
    state = GAME.initial_state(2, 1)
    seat_zero = catalogue.observation_to_proto(GAME.observe(state, 0)).game_5211
    public = catalogue.observation_to_proto(GAME.public_view(state)).game_5211
    assert seat_zero.HasField("seat")
    assert seat_zero.seat == 0
    assert not public.HasField("seat")
    assert list(public.hand_cards) == []


cards = st.sampled_from(CARDS)
card_lists = st.lists(cards, max_size=6).map(tuple)


@st.composite
def round_results(draw: st.DrawFn, num_players: int) -> RoundResult:
    kind = draw(st.sampled_from(ScoringKind))
    colour = draw(st.sampled_from(Colour)) if kind is ScoringKind.COLOUR else None
    laid = tuple(draw(card_lists) for _ in range(num_players))
    scored = tuple(draw(card_lists) for _ in range(num_players))
    return RoundResult(laid, scored, kind, colour)


@st.composite
def observations(draw: st.DrawFn) -> Observation:
    """Arbitrary, not necessarily reachable, observations: the converter must not care."""
    n = draw(st.integers(2, 5))
    per_seat_ints = st.lists(st.integers(0, 300), min_size=n, max_size=n).map(tuple)
    return Observation(
        seat=draw(st.none() | st.integers(0, n - 1)),
        num_players=n,
        long_game=draw(st.booleans()),
        deck_number=draw(st.integers(1, 9)),
        round=draw(st.integers(1, 60)),
        rounds_per_deck=draw(st.integers(1, 11)),
        turn=draw(st.integers(0, 3)),
        cards_to_lay=draw(st.integers(0, 2)),
        hand=tuple(sorted(draw(card_lists))),
        hand_sizes=draw(per_seat_ints),
        laid=tuple(draw(card_lists) for _ in range(n)),
        history=tuple(draw(st.lists(round_results(n), max_size=4))),
        points=draw(per_seat_ints),
        score_pile_cards=draw(per_seat_ints),
        draw_pile_size=draw(st.integers(0, 100)),
        removed_count=draw(st.integers(0, 15)),
        finished=draw(st.booleans()),
    )


@settings(max_examples=200, deadline=None)
@given(observation=observations())
def test_arbitrary_observations_round_trip(observation: Observation) -> None:
    assert _roundtrip(observation) == observation


def test_round_result_fields() -> None:
    result = RoundResult(
        laid=((CARDS[6], CARDS[7]), (CARDS[8],)),
        scored=((CARDS[6], CARDS[7]), (CARDS[8],)),
        kind=ScoringKind.COLOUR,
        colour=Colour.GREEN,
    )
    message = g5211.round_result_to_proto(result)
    assert [list(c.cards) for c in message.laid_cards] == [["G1", "G2"], ["G3"]]
    assert message.kind == game_5211_pb2.Game5211RoundResult.SCORING_KIND_COLOUR
    assert message.colour == game_5211_pb2.Game5211RoundResult.COLOUR_GREEN
    assert list(message.points) == [3, 3]
    assert g5211.round_result_from_proto(message) == result
    envelope = catalogue.round_result_to_proto(result, 4)
    assert envelope.round == 4
    assert catalogue.game_of(envelope) == "5211"
    assert catalogue.round_result_from_proto(envelope) == result


def test_last_round_of_a_view() -> None:
    states = list(play_random(3, 11))
    after_first_round = states[3]
    assert GAME.round_result(GAME.public_view(after_first_round)) == (1, after_first_round.history[0])
    assert GAME.round_result(GAME.public_view(states[0])) is None


def test_bad_payloads_are_wire_errors() -> None:
    with pytest.raises(wire.WireError, match="no game payload"):
        catalogue.observation_from_proto(observation_pb2.Observation())
    message = catalogue.observation_to_proto(GAME.observe(GAME.initial_state(2, 3), 0))
    message.game_5211.hand_cards.append("Z9")
    with pytest.raises(wire.WireError, match="'Z9'"):
        catalogue.observation_from_proto(message)
    with pytest.raises(wire.WireError, match="no wire converter"):
        catalogue.observation_to_proto(object())
    unscored = game_5211_pb2.Game5211RoundResult()
    with pytest.raises(wire.WireError, match="scoring kind"):
        g5211.round_result_from_proto(unscored)


def test_cards_and_plays_share_the_notation() -> None:
    state = GAME.initial_state(4, 99)
    message = catalogue.observation_to_proto(GAME.observe(state, 2)).game_5211
    hand = [Card.parse(text) for text in message.hand_cards]
    assert tuple(hand) == state.hands[2]
    for action in GAME.legal_actions(state, 2):
        assert Play.parse(str(action)) == action


# -- hidden information ------------------------------------------------------------------------------


def _cards_in(message: game_5211_pb2.Game5211Observation) -> Counter[str]:
    """Every card string anywhere in the message."""
    found: Counter[str] = Counter(message.hand_cards)
    for laid in message.laid_cards:
        found.update(laid.cards)
    for result in message.round_results:
        for group in (*result.laid_cards, *result.scored_cards):
            found.update(group.cards)
    return found


def _public_cards(state: State) -> Counter[str]:
    found: Counter[str] = Counter()
    for cards in state.laid:
        found.update(str(c) for c in cards)
    for result in state.history:
        for cards in (*result.laid, *result.scored):
            found.update(str(c) for c in cards)
    return found


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), num_players=st.integers(2, 5))
def test_a_seat_sees_its_own_hand_and_public_cards_only(seed: int, num_players: int) -> None:
    for state in play_random(num_players, seed):
        public = _public_cards(state)
        for seat in range(num_players):
            message = catalogue.observation_to_proto(GAME.observe(state, seat)).game_5211
            assert list(message.hand_cards) == [str(c) for c in state.hands[seat]]
            # Every card in the message is the seat's own or public: nothing from another hand,
            # the draw pile or the removed cards.
            assert _cards_in(message) == public + Counter(str(c) for c in state.hands[seat])
        view = catalogue.observation_to_proto(GAME.public_view(state)).game_5211
        assert _cards_in(view) == public


def _reshuffle_hidden(state: State, seat: int, rng: random.Random) -> State:
    """The same state except for what ``seat`` cannot see: other hands, the pile, removed cards."""
    others = [s for s in range(state.num_players) if s != seat]
    hidden = [c for s in others for c in state.hands[s]] + list(state.draw_pile) + list(state.removed)
    rng.shuffle(hidden)
    hands = list(state.hands)
    for s in others:
        size = len(state.hands[s])
        hands[s], hidden = tuple(sorted(hidden[:size])), hidden[size:]
    pile, removed = tuple(hidden[: len(state.draw_pile)]), tuple(hidden[len(state.draw_pile) :])
    return state._replace(hands=tuple(hands), draw_pile=pile, removed=removed)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), num_players=st.integers(2, 5))
def test_hidden_cards_do_not_change_a_seats_bytes(seed: int, num_players: int) -> None:
    """Two states that differ only in what seat p cannot see give p the same bytes on the wire."""
    rng = random.Random(seed)
    for state in play_random(num_players, seed):
        seat = rng.randrange(num_players)
        other = _reshuffle_hidden(state, seat, rng)
        mine = catalogue.observation_to_proto(GAME.observe(state, seat)).SerializeToString(deterministic=True)
        theirs = catalogue.observation_to_proto(GAME.observe(other, seat)).SerializeToString(deterministic=True)
        assert mine == theirs


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), num_players=st.integers(2, 5))
def test_the_quick_encoding_is_the_same_message(seed: int, num_players: int) -> None:
    """What the bot stream sends (each scored round encoded once, appended) parses to exactly the
    message ``observation_to_proto`` builds, for every seat's view and the public one."""
    for state in play_random(num_players, seed):
        views = [GAME.observe(state, seat) for seat in range(num_players)] + [GAME.public_view(state)]
        for view in views:
            sent = observation_pb2.Observation.FromString(catalogue.observation_to_wire(view))
            assert sent == catalogue.observation_to_proto(view)
