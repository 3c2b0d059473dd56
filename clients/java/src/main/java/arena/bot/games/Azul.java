package arena.bot.games;

import arena.bot.Turn;
import arena.v1.GameAzul.AzulObservation;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Azul as a bot needs it: the turn's typed observation and its legal actions, parsed.
 *
 * <pre>{@code
 * AzulObservation view = Azul.observation(turn);     // wall side, phase, factories, centre, boards...
 * List<Azul.Action> actions = Azul.legalActions(turn); // takes "3 R 4", "C K F"; grey-wall tilings "2:4 5:1"
 * }</pre>
 */
public final class Azul {
    /** The game's registry name. */
    public static final String GAME = "azul";
    /** A take's source for the centre ({@code C}). */
    public static final int CENTRE = -1;
    /** A take's target, or a tiling's column, for the floor line ({@code F}). */
    public static final int FLOOR = 0;

    private static final Pattern TAKE = Pattern.compile("([0-8C]) ([BYRKW]) ([1-5F])");
    private static final Pattern PLACEMENT = Pattern.compile("([1-5]):([1-5F])");

    private Azul() {}

    /** One Azul action: a {@link Take} in the factory offer, or a grey-wall {@link Tiling}. */
    public sealed interface Action permits Take, Tiling {}

    /**
     * Take every tile of one colour to a pattern line or the floor.
     *
     * @param source a factory index, or {@link #CENTRE}
     * @param colour the colour's letter: B, Y, R, K or W
     * @param target a pattern line 1-5, or {@link #FLOOR}
     */
    public record Take(int source, char colour, int target) implements Action {
        @Override
        public String toString() {
            return (source == CENTRE ? "C" : String.valueOf(source)) + " " + colour + " "
                    + (target == FLOOR ? "F" : String.valueOf(target));
        }
    }

    /**
     * A full line's column on the grey wall.
     *
     * @param line the pattern line, 1-5
     * @param column its wall column 1-5, or {@link #FLOOR} when no column is legal
     */
    public record Placement(int line, int column) {
        @Override
        public String toString() {
            return line + ":" + (column == FLOOR ? "F" : String.valueOf(column));
        }
    }

    /**
     * A grey-wall tiling: one placement per full line, top to bottom.
     *
     * @param placements the placements
     */
    public record Tiling(List<Placement> placements) implements Action {
        @Override
        public String toString() {
            return String.join(" ", placements.stream().map(Placement::toString).toList());
        }
    }

    /** Reads an action in the contract's notation ("3 R 4", "C K F", "2:4 5:1"); null if it is not one. */
    public static Action parse(String text) {
        String[] words = text.trim().split("\\s+");
        if (text.contains(":")) {
            List<Placement> placements = new ArrayList<>();
            for (String word : words) {
                Matcher m = PLACEMENT.matcher(word);
                if (words.length > 5 || !m.matches()) {
                    return null;
                }
                int line = Integer.parseInt(m.group(1));
                if (!placements.isEmpty() && line <= placements.get(placements.size() - 1).line()) {
                    return null;
                }
                placements.add(new Placement(line, m.group(2).equals("F") ? FLOOR : Integer.parseInt(m.group(2))));
            }
            return new Tiling(List.copyOf(placements));
        }
        Matcher m = TAKE.matcher(text.trim());
        if (!m.matches()) {
            return null;
        }
        int source = m.group(1).equals("C") ? CENTRE : Integer.parseInt(m.group(1));
        int target = m.group(3).equals("F") ? FLOOR : Integer.parseInt(m.group(3));
        return new Take(source, m.group(2).charAt(0), target);
    }

    /** The seat's Azul observation; throws {@link IllegalArgumentException} for another game's turn (or none). */
    public static AzulObservation observation(Turn turn) {
        if (!GAME.equals(turn.game()) || !turn.observation().hasGameAzul()) {
            throw new IllegalArgumentException("match " + turn.matchId() + " plays \"" + turn.game() + "\", not azul");
        }
        return turn.observation().getGameAzul();
    }

    /** The legal actions, parsed (any that do not parse are skipped). */
    public static List<Action> legalActions(Turn turn) {
        List<Action> actions = new ArrayList<>();
        for (String text : turn.legalActions()) {
            Action action = parse(text);
            if (action != null) {
                actions.add(action);
            }
        }
        return actions;
    }
}
