package arena.bot;

import arena.v1.Bot.MatchStarted;
import arena.v1.Common.TimeControl;
import java.util.List;
import java.util.Map;

/**
 * A match the bot plays in, as announced by {@code MatchStarted}.
 *
 * @param matchId the match's id
 * @param game the game, by registry name (e.g. "5211")
 * @param seat the bot's seat, 0-based
 * @param numPlayers the number of seats
 * @param botNames the registered bot names in seat order
 * @param timeControl the match's time control
 * @param options the game's rules options
 */
public record MatchInfo(
        String matchId,
        String game,
        int seat,
        int numPlayers,
        List<String> botNames,
        TimeControl timeControl,
        Map<String, String> options) {

    /** Reads the wire message. */
    public static MatchInfo fromProto(MatchStarted message) {
        return new MatchInfo(
                message.getMatchId(),
                message.getGame(),
                message.getSeat(),
                message.getNumPlayers(),
                List.copyOf(message.getBotNamesList()),
                message.getTimeControl(),
                Map.copyOf(message.getOptionsMap()));
    }
}
