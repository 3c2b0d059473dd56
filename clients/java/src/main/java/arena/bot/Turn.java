package arena.bot;

import arena.v1.Bot.ActionRequest;
import arena.v1.ObservationOuterClass.Observation;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One decision to make: what the seat may know now, and what it may do. It names no game: it carries the game's name
 * and the observation envelope; the typed helpers of each game are in {@code arena.bot.games} (one class per game).
 */
public final class Turn {
    private static final OneofDescriptor GAME_ONEOF =
            Observation.getDescriptor().getOneofs().stream()
                    .filter(o -> o.getName().equals("game"))
                    .findFirst()
                    .orElseThrow();

    private final ActionRequest request;
    private final MatchInfo match;
    private final long receivedAt;
    private final AtomicLong latest;

    Turn(ActionRequest request, MatchInfo match, AtomicLong latest) {
        this.request = request;
        this.match = match;
        this.receivedAt = System.nanoTime();
        this.latest = latest;
    }

    /** Builds a turn from a request, e.g. to test a bot offline. */
    public static Turn fromRequest(ActionRequest request, MatchInfo match) {
        return new Turn(request, match, new AtomicLong(request.getSequence()));
    }

    /** The match. */
    public String matchId() {
        return request.getMatchId();
    }

    /** The request's sequence number (the SDK echoes it). */
    public long sequence() {
        return request.getSequence();
    }

    /** The bot's seat, 0-based. */
    public int seat() {
        return request.getSeat();
    }

    /**
     * The game, by registry name (e.g. "5211", "coloretto"): from the match's {@code MatchStarted}, else from the
     * field the observation envelope sets ("" when none).
     */
    public String game() {
        if (match != null) {
            return match.game();
        }
        return gameOf(request.getObservation());
    }

    /**
     * The observation envelope: exactly what the seat may know, in the {@code oneof game} field of its game (none is
     * set for a game this build does not know). {@code Game5211.observation(turn)} and the like read it for you.
     */
    public Observation observation() {
        return request.getObservation();
    }

    /** The game an observation envelope is of, from the name of its set {@code oneof game} field ("game_<name>"). */
    public static String gameOf(Observation observation) {
        FieldDescriptor field = observation.getOneofFieldDescriptor(GAME_ONEOF);
        return field == null ? "" : field.getName().replaceFirst("^game_", "");
    }

    /** Every legal action now, in the game's notation (e.g. "G3 Y1" in 5211, "take 2" in Coloretto). */
    public List<String> legalActions() {
        return request.getLegalActionsList();
    }

    /** One line saying what an action looks like now. */
    public String actionHint() {
        return request.getActionHint();
    }

    /** The time this decision may take without spending the time bank. */
    public Duration allowance() {
        return duration(request.getAllowance());
    }

    /** What is left of the seat's time bank for the match. */
    public Duration timeBank() {
        return duration(request.getTimeBank());
    }

    /** Time before the action is late: allowance plus time bank, less the time since the request arrived. */
    public Duration timeLeft() {
        return positive(allowance().plus(timeBank()).minus(elapsed()));
    }

    /** Time before the time bank starts being spent. */
    public Duration freeTimeLeft() {
        return positive(allowance().minus(elapsed()));
    }

    /** Whether a newer request for the same match arrived: this turn's answer will be dropped. */
    public boolean isSuperseded() {
        return latest.get() != request.getSequence();
    }

    /** The match as announced by {@code MatchStarted}, or null if this connection has not heard it. */
    public MatchInfo match() {
        return match;
    }

    /** The raw wire message. */
    public ActionRequest request() {
        return request;
    }

    private Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - receivedAt);
    }

    private static Duration positive(Duration d) {
        return d.isNegative() ? Duration.ZERO : d;
    }

    static Duration duration(com.google.protobuf.Duration d) {
        return Duration.ofSeconds(d.getSeconds(), d.getNanos());
    }
}
