package arena.bot;

import arena.v1.Bot.MatchEnded;
import arena.v1.Common.Outcome;
import arena.v1.ObservationOuterClass.Observation;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A match's end, as told by {@code MatchEnded}.
 *
 * @param matchId the match's id
 * @param seat the bot's seat
 * @param placing the seat's placing (1 = a winner), if the outcome has one for the seat
 * @param score the seat's final score, if the outcome has one for the seat
 * @param outcome the whole outcome: termination, scores, placings, winners, forfeits
 * @param finalObservation the seat's final observation envelope when the match ended by the rules, else null
 * @param match the match as announced, if this connection heard its start, else null
 */
public record MatchResult(
        String matchId,
        int seat,
        OptionalInt placing,
        OptionalLong score,
        Outcome outcome,
        Observation finalObservation,
        MatchInfo match) {

    /** Reads the wire message. */
    public static MatchResult fromProto(MatchEnded message, MatchInfo match) {
        Outcome outcome = message.getOutcome();
        int seat = message.getSeat();
        return new MatchResult(
                message.getMatchId(),
                seat,
                seat < outcome.getPlacingsCount() ? OptionalInt.of(outcome.getPlacings(seat)) : OptionalInt.empty(),
                seat < outcome.getScoresCount() ? OptionalLong.of(outcome.getScores(seat)) : OptionalLong.empty(),
                outcome,
                message.hasFinalObservation() ? message.getFinalObservation() : null,
                match);
    }
}
