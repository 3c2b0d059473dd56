package arena.bot;

import arena.v1.Common.Fault;

/** The SDK's log: one line per message on stderr ({@code ARENA_BOT_DEBUG=1} adds the debug lines). */
public final class Log {
    private static final boolean DEBUG = System.getenv("ARENA_BOT_DEBUG") != null;

    private Log() {}

    static void info(String message) {
        System.err.println("arena-bot INFO " + message);
    }

    static void warn(String message) {
        System.err.println("arena-bot WARNING " + message);
    }

    static void debug(String message) {
        if (DEBUG) {
            System.err.println("arena-bot DEBUG " + message);
        }
    }

    /** A fault's name as in the proto (e.g. {@code FAULT_INVALID_ACTION}). */
    public static String faultName(Fault fault) {
        return fault == Fault.UNRECOGNIZED ? "FAULT_UNKNOWN" : fault.name();
    }

    /** The default event log: one line on stderr per event. */
    public static void event(Event event) {
        if (event instanceof Event.Connected e) {
            info("connected as " + e.welcome().getBotName() + " (games " + String.join(", ", e.welcome().getGamesList())
                    + ")");
        } else if (event instanceof Event.MatchStarted e) {
            info("match " + e.match().matchId() + " started: " + e.match().game() + ", seat " + e.match().seat()
                    + " of " + e.match().botNames());
        } else if (event instanceof Event.Rejected e) {
            var r = e.rejection();
            warn("match " + r.getMatchId() + ", request " + r.getSequence() + ": action rejected ("
                    + faultName(r.getFault()) + "): " + r.getReason() + "; played '" + r.getFallbackAction()
                    + "' instead, strike " + r.getStrikes() + " of " + r.getStrikeLimit());
        } else if (event instanceof Event.ProtocolErrorReceived e) {
            var p = e.error();
            warn("match " + p.getMatchId() + ", request " + p.getSequence() + ": protocol error: " + p.getReason());
        } else if (event instanceof Event.MatchEnded e) {
            var r = e.result();
            info("match " + r.matchId() + " ended (" + r.outcome().getTermination() + "): placing "
                    + (r.placing().isPresent() ? r.placing().getAsInt() : "-") + ", score "
                    + (r.score().isPresent() ? r.score().getAsLong() : "-"));
        } else if (event instanceof Event.Reconnecting e) {
            warn(e.reason() + "; reconnecting to " + e.address() + " in "
                    + String.format("%.2f", e.delay().toMillis() / 1000.0) + " s");
        }
    }
}
