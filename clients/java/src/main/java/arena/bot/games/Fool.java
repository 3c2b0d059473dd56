package arena.bot.games;

import arena.bot.Turn;
import arena.v1.GameFool.FoolObservation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * FOOL! as a bot needs it: the turn's typed observation and its legal actions, parsed.
 *
 * <pre>{@code
 * FoolObservation view = Fool.observation(turn);   // hand, hand sizes, trick, lead colour, totals...
 * List<Fool.Card> cards = Fool.legalCards(turn);   // the cards of your hand you may play: R2, W1...
 * }</pre>
 */
public final class Fool {
    /** The game's registry name. */
    public static final String GAME = "fool";

    private static final Pattern TOKEN = Pattern.compile("([GRYBW])([1-9][0-9]?)");
    private static final Map<Character, Integer> HIGHEST = Map.of('G', 27, 'R', 23, 'Y', 21, 'B', 15, 'W', 1);

    private Fool() {}

    /**
     * One FOOL! card.
     *
     * @param colour the colour's letter: G, R, Y, B, or W for the wild W1
     * @param value the face value
     */
    public record Card(char colour, int value) {
        /** Reads a card token (G2-G27, R2-R23, Y2-Y21, B2-B15, W1); null if it is not one. */
        public static Card parse(String text) {
            Matcher m = TOKEN.matcher(text);
            if (!m.matches()) {
                return null;
            }
            char colour = m.group(1).charAt(0);
            int value = Integer.parseInt(m.group(2));
            boolean inRange = value <= HIGHEST.get(colour) && (value >= 2 || colour == 'W');
            return inRange ? new Card(colour, value) : null;
        }

        /** Whether this is the wild W1. */
        public boolean isWild() {
            return colour == 'W';
        }

        @Override
        public String toString() {
            return colour + String.valueOf(value);
        }
    }

    /** The seat's FOOL! observation; throws {@link IllegalArgumentException} for another game's turn (or none). */
    public static FoolObservation observation(Turn turn) {
        if (!GAME.equals(turn.game()) || !turn.observation().hasGameFool()) {
            throw new IllegalArgumentException("match " + turn.matchId() + " plays \"" + turn.game() + "\", not fool");
        }
        return turn.observation().getGameFool();
    }

    /** The legal actions, parsed: cards of the seat's own hand (any that do not parse are skipped). */
    public static List<Card> legalCards(Turn turn) {
        List<Card> cards = new ArrayList<>();
        for (String text : turn.legalActions()) {
            Card card = Card.parse(text);
            if (card != null) {
                cards.add(card);
            }
        }
        return cards;
    }
}
