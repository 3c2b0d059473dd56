package arena.bot.games;

import arena.bot.Turn;
import arena.v1.Game5211.Game5211Cards;
import arena.v1.Game5211.Game5211Observation;
import arena.v1.Game5211.Game5211RoundResult;
import java.util.ArrayList;
import java.util.List;

/**
 * The game 5211 as a bot needs it: the turn's typed observation, cards in notation, the deck, and the round-scoring
 * rules (see the arena's rules page). A card is a {@link Card} of a colour (0-4 for B G O V Y) and a value (1-6; 1 is
 * the Kododo).
 *
 * <pre>{@code
 * Game5211Observation view = Game5211.observation(turn);  // hand, cards laid this round, earlier rounds, points
 * List<List<Card>> plays = Game5211.legalPlays(turn);      // each legal play's cards
 * }</pre>
 */
public final class Game5211 {
    /** The game's registry name. */
    public static final String GAME = "5211";

    /** The colour letters in colour order. */
    public static final String COLOURS = "BGOVY";
    /** Copies of each value 1 to 6 in every colour: 20 cards a colour, 100 in all. */
    static final int[] COPIES_PER_VALUE = {5, 6, 5, 2, 1, 1};

    private Game5211() {}

    /** The seat's 5211 observation; throws {@link IllegalArgumentException} for another game's turn (or none). */
    public static Game5211Observation observation(Turn turn) {
        if (!GAME.equals(turn.game()) || !turn.observation().hasGame5211()) {
            throw new IllegalArgumentException("match " + turn.matchId() + " plays \"" + turn.game() + "\", not 5211");
        }
        return turn.observation().getGame5211();
    }

    /** The legal plays, each the cards it lays (cards that do not parse are skipped). */
    public static List<List<Card>> legalPlays(Turn turn) {
        List<List<Card>> plays = new ArrayList<>();
        for (String action : turn.legalActions()) {
            plays.add(parseCards(action));
        }
        return plays;
    }

    /**
     * One card.
     *
     * @param colour 0-4 for B, G, O, V, Y
     * @param value 1-6
     */
    public record Card(int colour, int value) {
        /** Reads a card in notation, e.g. "G3"; null if it is not one. */
        public static Card parse(String text) {
            if (text.length() != 2) {
                return null;
            }
            int colour = COLOURS.indexOf(text.charAt(0));
            int value = text.charAt(1) - '0';
            return colour >= 0 && value >= 1 && value <= 6 ? new Card(colour, value) : null;
        }

        /** The card's index in a 30-slot table (colour × value). */
        int index() {
            return colour * 6 + value - 1;
        }

        @Override
        public String toString() {
            return "" + COLOURS.charAt(colour) + value;
        }
    }

    /** Reads an action or card list in notation ("G3 Y1"); cards that do not parse are skipped. */
    public static List<Card> parseCards(Iterable<String> texts) {
        List<Card> cards = new ArrayList<>();
        for (String text : texts) {
            for (String part : text.trim().split("\\s+")) {
                Card card = Card.parse(part);
                if (card != null) {
                    cards.add(card);
                }
            }
        }
        return cards;
    }

    /** Reads one action in notation. */
    public static List<Card> parseCards(String text) {
        return parseCards(List.of(text));
    }

    /**
     * The points each seat scores in a round where seat i laid {@code laid.get(i)}: the Kododo rule (exactly P + 2
     * value-1 cards: only they score), else the colour majority below the limit P + 3.
     */
    public static int[] roundPoints(List<List<Card>> laid) {
        int players = laid.size();
        int[] counts = new int[5];
        int kododos = 0;
        for (List<Card> cards : laid) {
            for (Card card : cards) {
                counts[card.colour()]++;
                kododos += card.value() == 1 ? 1 : 0;
            }
        }
        int[] points = new int[players];
        int winner = kododos == players + 2 ? -2 : winningColour(counts, players + 3);
        for (int seat = 0; seat < players; seat++) {
            for (Card card : laid.get(seat)) {
                if (winner == -2 ? card.value() == 1 : card.colour() == winner) {
                    points[seat] += card.value();
                }
            }
        }
        return points;
    }

    /** The colour that wins the majority: the highest count below {@code limit} no other colour shares; -1 if none. */
    public static int winningColour(int[] counts, int limit) {
        int best = -1;
        for (int colour = 0; colour < counts.length; colour++) {
            int n = counts[colour];
            if (n <= 0 || n >= limit || (best >= 0 && n <= counts[best])) {
                continue;
            }
            int same = 0;
            for (int other : counts) {
                same += other == n ? 1 : 0;
            }
            if (same == 1) {
                best = colour;
            }
        }
        return best;
    }

    /** The cards of the current deck this seat has not seen: other hands, the draw pile, removed cards. */
    public static List<Card> unseenCards(Game5211Observation observation) {
        int[] left = new int[30];
        for (int colour = 0; colour < 5; colour++) {
            for (int value = 1; value <= 6; value++) {
                left[new Card(colour, value).index()] = COPIES_PER_VALUE[value - 1];
            }
        }
        List<Card> seen = new ArrayList<>(parseCards(observation.getHandCardsList()));
        for (Game5211Cards laid : observation.getLaidCardsList()) {
            seen.addAll(parseCards(laid.getCardsList()));
        }
        // Only this deck's rounds count: the longer game reshuffles all 100 cards for each new deck.
        int thisDeck = (Math.max(observation.getRound(), 1) - 1) % Math.max(observation.getRoundsPerDeck(), 1);
        List<Game5211RoundResult> history = observation.getRoundResultsList();
        for (Game5211RoundResult result : history.subList(Math.max(0, history.size() - thisDeck), history.size())) {
            for (Game5211Cards laid : result.getLaidCardsList()) {
                seen.addAll(parseCards(laid.getCardsList()));
            }
        }
        for (Card card : seen) {
            left[card.index()]--;
        }
        List<Card> unseen = new ArrayList<>();
        for (int colour = 0; colour < 5; colour++) {
            for (int value = 1; value <= 6; value++) {
                Card card = new Card(colour, value);
                for (int i = 0; i < left[card.index()]; i++) {
                    unseen.add(card);
                }
            }
        }
        return unseen;
    }
}
