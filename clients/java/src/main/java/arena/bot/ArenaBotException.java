package arena.bot;

import io.grpc.Status;

/** Why {@link Client#run} gave up: the server refused the bot, or another connection took over. */
public class ArenaBotException extends Exception {
    private static final long serialVersionUID = 1L;

    ArenaBotException(String message) {
        super(message);
    }

    /**
     * Another connection with the same token took over (the server ended the stream with ABORTED). Reconnecting would
     * take the seat back and start a tug of war, so the SDK stops.
     */
    public static final class Replaced extends ArenaBotException {
        private static final long serialVersionUID = 1L;

        Replaced(String details) {
            super("another connection of this bot took over: " + details);
        }
    }

    /** The server refused the token or the Hello (UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT). */
    public static final class Refused extends ArenaBotException {
        private static final long serialVersionUID = 1L;
        private final transient Status.Code code;

        Refused(Status.Code code, String details) {
            super("the arena refused the connection: " + code + ": " + details);
            this.code = code;
        }

        /** The gRPC status code. */
        public Status.Code code() {
            return code;
        }
    }
}
