package arena.bot;

/**
 * A bot: the one callback the SDK calls for every decision, and an optional event hook.
 *
 * <p>A lambda is a bot: {@code turn -> turn.legalActions().get(0)}.
 */
@FunctionalInterface
public interface Bot {
    /**
     * Chooses an action for {@code turn}: one of {@link Turn#legalActions()} (e.g. {@code "G3 Y1"} in 5211, {@code "take 2"} in Coloretto).
     *
     * <p>Runs on a thread of its own, so it may take its time (see {@link Turn#timeLeft()}). If it throws or
     * returns null, the error is logged and the first legal action is sent instead.
     */
    String act(Turn turn) throws Exception;

    /**
     * Called on the SDK's stream thread for each {@link Event}; the default logs it to stderr. Keep it quick: the
     * stream waits for it.
     */
    default void onEvent(Event event) {
        Log.event(event);
    }
}
