"""The FOOL! rules engine: exactly the arena's rules contract (shared/rules/fool.md), 4 to 8 players.

Turns are sequential: one seat plays one card at a time, clockwise from the trick's leader,
skipping the previous trick's Fools. A round ends after the trick in which some seat plays its
last card; the hands left are then shown and scored, and the deal passes left.

Randomness: the first dealer and one shuffle per round, all from the match seed. For tests and
duplicate deals, option ``first_dealer`` fixes the first dealer and the ``deck`` argument fixes
the first rounds' shuffles: the concatenation of one or more deals, each a permutation of the
cards in play, of which seat ``s`` receives positions ``s*H`` to ``s*H+H-1``; rounds beyond them
are shuffled from the seed. The deals are not an option because options are shown to the bots.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.errors import GameSetupError, IllegalActionError, InvalidActionError
from arena.games.base import Outcome, Seat, Termination
from arena.games.fool.cards import (
    CARDS,
    COLOUR_OF,
    FULL_COUNTS,
    PLAYER_COUNTS,
    WILD,
    Card,
    default_card_set,
    format_cards,
    quote,
)
from arena.games.fool.scoring import RoundResult, RoundSummary, is_game_over, round_scores
from arena.games.fool.state import Observation, Setup, State
from arena.games.fool.trick import Play, completed, legal_cards

OPTIONS: Final = frozenset({"card_set", "two_fools_from", "wild_penalty", "first_dealer"})
TWO_FOOLS_FROM: Final = (7, 8)
DEFAULT_TWO_FOOLS_FROM: Final = 7
DEFAULT_WILD_PENALTY: Final = 5
MAX_WILD_PENALTY: Final = 100
"""A wild left in hand costs 1 to this many points; at least 1, so every round costs someone a point
and the game always ends."""

_NOBODY: Final[frozenset[Seat]] = frozenset()
_new: Final = tuple.__new__
_SEAT_SETS: Final = [frozenset({seat}) for seat in range(max(PLAYER_COUNTS))]


def deck_from_deals(deals: Sequence[Sequence[str]]) -> list[str]:
    """The ``deck`` argument that fixes these deals (one list of card tokens per round)."""
    return [text for deal in deals for text in deal]


class GameFool:
    """The rules of FOOL!, behind the game-agnostic ``GameRules`` interface."""

    name: Final = "fool"
    player_counts: Final = PLAYER_COUNTS

    # -- set-up ---------------------------------------------------------------------------------

    def initial_state(
        self,
        num_players: int,
        seed: int,
        options: Mapping[str, Any] | None = None,
        deck: Sequence[str] | None = None,
    ) -> State:
        """A new match, shuffled from ``seed``; ``deck`` (optional) fixes the first rounds' deals.

        Options: ``card_set`` (player count -> list of card tokens), ``two_fools_from`` (7 or 8),
        ``wild_penalty`` (1-100, default 5), ``first_dealer`` (a seat; default from the seed).

        Raises ``GameSetupError`` naming the value for a player count outside 4-8, an unknown option or value, or a
        deck that does not fit.
        """
        if not isinstance(num_players, int) or num_players not in PLAYER_COUNTS:
            raise GameSetupError(f"FOOL! is for 4 to 8 players, not {quote(num_players)}")
        opts = dict(options or {})
        unknown = set(opts) - OPTIONS
        if unknown:
            raise GameSetupError(
                f"unknown FOOL! option(s) {quote(', '.join(sorted(map(str, unknown))))}; known: {sorted(OPTIONS)}"
            )
        card_sets = _card_sets(opts.get("card_set", {}))
        cards_in_play = card_sets.get(num_players) or default_card_set(num_players)
        two_from = opts.get("two_fools_from", DEFAULT_TWO_FOOLS_FROM)
        if not _is_int(two_from) or two_from not in TWO_FOOLS_FROM:
            raise GameSetupError(f"option two_fools_from must be 7 or 8, not {quote(two_from)}")
        penalty = opts.get("wild_penalty", DEFAULT_WILD_PENALTY)
        if not _is_int(penalty) or not 1 <= penalty <= MAX_WILD_PENALTY:
            raise GameSetupError(
                f"option wild_penalty must be an integer from 1 to {MAX_WILD_PENALTY}, not {quote(penalty)}"
            )
        first_dealer = opts.get("first_dealer")
        if first_dealer is None:
            first_dealer = random.Random(f"fool/{seed}/dealer").randrange(num_players)
        elif not _is_int(first_dealer) or not 0 <= first_dealer < num_players:
            raise GameSetupError(
                f"option first_dealer must be a seat from 0 to {num_players - 1}, not {quote(first_dealer)}"
            )
        setup = Setup(
            num_players=num_players,
            seed=seed,
            cards_in_play=cards_in_play,
            hand_size=len(cards_in_play) // num_players,
            fools_per_trick=2 if num_players >= two_from else 1,
            wild_penalty=penalty,
            first_dealer=first_dealer,
            deals=() if deck is None else _parse_deals(deck, cards_in_play),
        )
        zeros = (0,) * num_players
        return _deal(setup, 1, first_dealer, (), (), zeros, zeros)

    # -- whose turn, and what they may do --------------------------------------------------------

    def to_move(self, state: State) -> frozenset[Seat]:
        """The one seat to play now; empty once the match is over."""
        return _SEAT_SETS[state.to_play[0]] if state.to_play else _NOBODY

    def legal_actions(self, state: State, seat: Seat) -> tuple[Card, ...]:
        """The distinct cards ``seat`` may play now, in notation order (empty if not to move)."""
        if not state.to_play or state.to_play[0] != seat:
            return ()
        return _legal(state)

    def parse_action(self, text: str) -> Card:
        """Read a card token, e.g. ``"G12"`` or ``"W1"``."""
        return Card.parse(text)

    def describe_action(self, state: State, seat: Seat) -> str:
        """What a legal action looks like now."""
        if state.finished:
            return "nothing to do: the match is over"
        if state.to_play[0] != seat:
            return f"nothing to do: it is seat {state.to_play[0]}'s turn"
        legal = legal_cards(state.hands[seat], state.lead)
        if state.lead is None:
            rule = "any card (no lead colour yet)"
        elif len(legal) < len(set(state.hands[seat])):
            rule = f"{state.lead.name.lower()} was led: a {state.lead.name.lower()} card or a wild"
        else:
            rule = f"{state.lead.name.lower()} was led and you hold none: any card"
        return f"play one card from your hand as a token, e.g. {legal[0]}; {rule}"

    def check_action(self, state: State, seat: Seat, action: object) -> Card:
        """Return ``action`` as a legal card of ``seat`` now, or raise saying exactly why not.

        The message speaks only of public facts and of ``seat``'s own hand.
        """
        if state.finished:
            raise IllegalActionError(f"illegal action {quote(action)} for seat {seat}: the match is over")
        if not isinstance(seat, int) or not 0 <= seat < state.num_players:
            raise IllegalActionError(f"illegal action {quote(action)}: seat {quote(seat)} is not in this match")
        if not isinstance(action, Card):
            raise InvalidActionError(
                f"invalid action {quote(action)} for seat {seat}: expected one card token like 'G12' or 'W1'"
            )
        where = f"for seat {seat} in round {state.round}, trick {len(state.tricks) + 1}"
        if state.to_play[0] != seat:
            if seat in state.sitting_out:
                why = "it is a Fool of the last trick and sits this one out"
            elif any(play.seat == seat for play in state.trick):
                why = "it has already played to this trick"
            else:
                why = "it is not its turn"
            raise IllegalActionError(f"illegal action {action} {where}: {why}; seat {state.to_play[0]} is to play")
        hand = state.hands[seat]
        if action not in hand:
            raise IllegalActionError(
                f"illegal action {action} {where}: {action} is not in your hand ({format_cards(hand)})"
            )
        lead = state.lead
        if lead is not None and action is not WILD and COLOUR_OF[action] is not lead:
            own = [c for c in hand if COLOUR_OF[c] is lead]
            if own:
                colour = lead.name.lower()
                raise IllegalActionError(
                    f"illegal action {action} {where}: {colour} was led and you hold {colour} "
                    f"({format_cards(own)}); play {colour} or W1"
                )
        return action

    # -- playing ----------------------------------------------------------------------------------

    def apply(self, state: State, actions: Mapping[Seat, Card]) -> State:
        """The state after the seat to move plays its card; completes tricks and rounds."""
        if len(actions) != 1 or not state.to_play:
            self._check_seats(state, actions)
        ((seat, card),) = actions.items()
        if seat != state.to_play[0]:
            self._check_seats(state, actions)
        if type(card) is not Card or card not in _legal(state):
            card = self.check_action(state, seat, card)  # raises, saying why
        card = CARDS[card]  # the interned card, which ``is`` compares
        setup = state.setup
        hands = list(state.hands)
        hand = hands[seat]
        at = hand.index(card)
        hands[seat] = hand[:at] + hand[at + 1 :]
        trick = (*state.trick, _new(Play, (seat, card)))
        lead = state.lead if state.lead is not None or card is WILD else COLOUR_OF[card]
        to_play = state.to_play[1:]
        if to_play:
            # tuple.__new__ with the fields in order: the named tuple's own __new__ is a Python call.
            return _new(
                State,
                (
                    setup,
                    state.round,
                    state.dealer,
                    tuple(hands),
                    state.leader,
                    state.sitting_out,
                    trick,
                    lead,
                    to_play,
                    state.tricks,
                    state.history,
                    state.rounds,
                    state.totals,
                    state.tens,
                ),
            )
        done = completed(state.leader, trick, state.sitting_out, setup.fools_per_trick)
        tricks = (*state.tricks, done)
        if any(not hands[play.seat] for play in trick):
            return _end_round(state, tuple(hands), tricks)
        return State(
            setup,
            state.round,
            state.dealer,
            tuple(hands),
            done.winner,
            done.fools,
            (),
            None,
            _order(done.winner, setup.num_players, done.fools),
            tricks,
            state.history,
            state.rounds,
            state.totals,
            state.tens,
        )

    def _check_seats(self, state: State, actions: Mapping[Seat, Any]) -> None:
        if state.finished:
            raise IllegalActionError("no action can be applied: the match is over")
        seat = state.to_play[0]
        for other in actions:
            if other != seat:
                self.check_action(state, other, actions[other])  # raises: it is not that seat's turn
        raise IllegalActionError(f"no action for seat {seat}: it is the one seat to play now")

    # -- views and result -------------------------------------------------------------------------

    def observe(self, state: State, seat: Seat) -> Observation:
        """Exactly what ``seat`` may know: its own hand and everything public.

        Raises ``IllegalActionError`` for a seat not in the match.
        """
        if not isinstance(seat, int) or not 0 <= seat < state.num_players:
            raise IllegalActionError(f"seat {quote(seat)} is not in this {state.num_players}-player match")
        return _view(state, seat, state.hands[seat])

    def public_view(self, state: State) -> Observation:
        """What a spectator may know: everything public, no hand."""
        return _view(state, None, ())

    def round_result(self, view: Observation) -> tuple[int, RoundResult] | None:
        """The last scored round in a view (public once scored) and its 1-based number; None before."""
        if view.last_round is None:
            return None
        return len(view.rounds), view.last_round

    def outcome(self, state: State) -> Outcome | None:
        """Most points wins; a tie is a shared win (contract **Decision**)."""
        if not state.finished:
            return None
        return Outcome.from_keys(Termination.NORMAL, state.totals, [(total,) for total in state.totals])


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _legal(state: State) -> tuple[Card, ...]:
    """The legal cards of the seat to move, remembered for the last state asked about (a referee or
    a bot asks for the legal actions of a state and then applies one in the same state)."""
    last = _last_legal[0]
    if last[0] is state:
        return last[1]
    legal = legal_cards(state.hands[state.to_play[0]], state.lead)
    _last_legal[0] = (state, legal)
    return legal


_last_legal: list[tuple[State | None, tuple[Card, ...]]] = [(None, ())]


@functools.lru_cache(maxsize=4096)
def _order(leader: Seat, num_players: int, sitting_out: tuple[Seat, ...]) -> tuple[Seat, ...]:
    """The seats that play a trick, clockwise from its leader."""
    seats = ((leader + i) % num_players for i in range(num_players))
    return tuple(s for s in seats if s not in sitting_out)


def _view(state: State, seat: Seat | None, hand: tuple[Card, ...]) -> Observation:
    setup = state.setup
    return Observation(
        seat=seat,
        num_players=setup.num_players,
        cards_in_play=setup.cards_in_play,
        hand_size=setup.hand_size,
        fools_per_trick=setup.fools_per_trick,
        wild_penalty=setup.wild_penalty,
        round=state.round,
        dealer=state.dealer,
        hand=hand,
        hand_sizes=tuple(map(len, state.hands)),
        leader=state.leader,
        sitting_out=state.sitting_out,
        trick=state.trick,
        lead_colour=state.lead,
        to_play=state.to_play[0] if state.to_play else None,
        tricks=state.tricks,
        last_trick=state.tricks[-1] if state.tricks else state.history[-1].tricks[-1] if state.history else None,
        rounds=state.rounds,
        last_round=state.history[-1] if state.history else None,
        totals=state.totals,
        tens=state.tens,
        finished=state.finished,
    )


def _shuffle(setup: Setup, round_number: int) -> tuple[Card, ...]:
    """Round ``round_number``'s shuffle: fixed by the ``deck`` argument, else from the seed."""
    if round_number <= len(setup.deals):
        return setup.deals[round_number - 1]
    cards = list(setup.cards_in_play)
    random.Random(f"fool/{setup.seed}/round{round_number}").shuffle(cards)
    return tuple(cards)


def _deal(
    setup: Setup,
    round_number: int,
    dealer: Seat,
    history: tuple[RoundResult, ...],
    rounds: tuple[RoundSummary, ...],
    totals: tuple[int, ...],
    tens: tuple[int, ...],
) -> State:
    cards = _shuffle(setup, round_number)
    size = setup.hand_size
    hands = tuple(tuple(sorted(cards[seat * size : (seat + 1) * size])) for seat in range(setup.num_players))
    leader = (dealer + 1) % setup.num_players
    # A new deal starts afresh: nobody sits out the first trick (contract **Decision**).
    return State(
        setup,
        round_number,
        dealer,
        hands,
        leader,
        (),
        (),
        None,
        _order(leader, setup.num_players, ()),
        (),
        history,
        rounds,
        totals,
        tens,
    )


def _end_round(state: State, hands: tuple[tuple[Card, ...], ...], tricks: tuple[Any, ...]) -> State:
    setup = state.setup
    scores = round_scores(hands, tricks[-1].fools, setup.wild_penalty)
    totals = tuple(t + s for t, s in zip(state.totals, scores, strict=True))
    tens = tuple(t + (s > 0) for t, s in zip(state.tens, scores, strict=True))
    result = RoundResult(state.round, state.dealer, tricks, hands, scores, totals, tens)
    history = (*state.history, result)
    rounds = (*state.rounds, result.summary())
    if not is_game_over(totals, tens):
        return _deal(setup, state.round + 1, (state.dealer + 1) % setup.num_players, history, rounds, totals, tens)
    last = tricks[-1]
    return State(
        setup,
        state.round,
        state.dealer,
        hands,
        last.winner,
        last.fools,
        (),
        None,
        (),
        tricks,
        history,
        rounds,
        totals,
        tens,
    )


def _card_sets(value: object) -> dict[int, tuple[Card, ...]]:
    """Option ``card_set``: player count (an int, or its digits as a JSON key) -> card tokens."""
    if not isinstance(value, Mapping):
        raise GameSetupError(f"option card_set must map player counts to card lists, not {quote(value)}")
    result: dict[int, tuple[Card, ...]] = {}
    for key, cards in value.items():
        count = int(key) if isinstance(key, str) and key.strip().isdigit() else key
        if not _is_int(count) or count not in PLAYER_COUNTS:
            raise GameSetupError(f"option card_set: {quote(key)} is not a player count from 4 to 8")
        if not isinstance(cards, (list, tuple)) or not cards:
            raise GameSetupError(
                f"option card_set[{count}] must be a non-empty list of card tokens, not {quote(cards)}"
            )
        try:
            parsed = tuple(sorted(Card.parse(text) for text in cards))
        except InvalidActionError as error:
            raise GameSetupError(f"option card_set[{count}]: {error}") from None
        if len(parsed) % count:
            raise GameSetupError(
                f"option card_set[{count}] holds {len(parsed)} cards, not a multiple of {count} players"
            )
        extra = format_cards(sorted((Counter(parsed) - FULL_COUNTS).elements()))
        if extra:
            raise GameSetupError(f"option card_set[{count}] holds more copies than the game has: {quote(extra)}")
        result[count] = parsed
    return result


def _parse_deals(deck: Sequence[str], cards_in_play: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    size = len(cards_in_play)
    if isinstance(deck, str) or not deck or len(deck) % size:
        raise GameSetupError(
            f"a FOOL! deck order is one or more deals of the {size} cards in play, "
            f"not {len(deck) if not isinstance(deck, str) else quote(deck)} cards"
        )
    try:
        cards = [Card.parse(text) for text in deck]
    except InvalidActionError as error:
        raise GameSetupError(f"invalid deck order: {error}") from None
    deals = tuple(tuple(cards[i : i + size]) for i in range(0, len(cards), size))
    want = Counter(cards_in_play)
    for number, deal in enumerate(deals, 1):
        got = Counter(deal)
        if got != want:
            diff = ", ".join(
                f"{c} x{got[c]} (want {want[c]})" for c in sorted(set(got) | set(want)) if got[c] != want[c]
            )
            raise GameSetupError(f"deal {number} of the deck order is not a permutation of the cards in play: {diff}")
    return deals
