package arena.bot.games;

import arena.bot.Turn;
import arena.v1.GameColoretto.ColorettoObservation;
import java.util.ArrayList;
import java.util.List;

/**
 * Coloretto as a bot needs it: the turn's typed observation and its legal actions, parsed.
 *
 * <pre>{@code
 * ColorettoObservation view = Coloretto.observation(turn);  // rows, collections, drawn card, pile size...
 * List<Coloretto.Move> moves = Coloretto.legalMoves(turn);  // draw, place r, take r
 * }</pre>
 */
public final class Coloretto {
    /** The game's registry name. */
    public static final String GAME = "coloretto";

    private Coloretto() {}

    /** One of Coloretto's three decisions. */
    public enum Kind {
        /** Draw the next card from the pile. */
        DRAW,
        /** Place the drawn card in a row. */
        PLACE,
        /** Take a row (and sit out the rest of the round). */
        TAKE
    }

    /**
     * One Coloretto action.
     *
     * @param kind what it does
     * @param row the 0-based row it places in or takes (-1 for a draw)
     */
    public record Move(Kind kind, int row) {
        /** Reads an action in the contract's notation ("draw", "place r", "take r"); null if it is not one. */
        public static Move parse(String text) {
            String[] words = text.trim().split("\\s+");
            if (words.length == 1 && words[0].equals("draw")) {
                return new Move(Kind.DRAW, -1);
            }
            if (words.length == 2 && (words[0].equals("place") || words[0].equals("take")) && words[1].matches("\\d")) {
                return new Move(words[0].equals("place") ? Kind.PLACE : Kind.TAKE, Integer.parseInt(words[1]));
            }
            return null;
        }

        @Override
        public String toString() {
            return kind == Kind.DRAW ? "draw" : kind.name().toLowerCase(java.util.Locale.ROOT) + " " + row;
        }
    }

    /** The seat's Coloretto observation; throws {@link IllegalArgumentException} for another game's turn (or none). */
    public static ColorettoObservation observation(Turn turn) {
        if (!GAME.equals(turn.game()) || !turn.observation().hasGameColoretto()) {
            throw new IllegalArgumentException("match " + turn.matchId() + " plays \"" + turn.game() + "\", not coloretto");
        }
        return turn.observation().getGameColoretto();
    }

    /** The legal actions, parsed (any that do not parse are skipped). */
    public static List<Move> legalMoves(Turn turn) {
        List<Move> moves = new ArrayList<>();
        for (String action : turn.legalActions()) {
            Move move = Move.parse(action);
            if (move != null) {
                moves.add(move);
            }
        }
        return moves;
    }
}
