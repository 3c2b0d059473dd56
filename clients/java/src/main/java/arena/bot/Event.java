package arena.bot;

import arena.v1.Bot.ActionRejected;
import arena.v1.Bot.ProtocolError;
import arena.v1.Bot.Welcome;
import java.time.Duration;

/** Something a bot may want to hear about, passed to {@link Bot#onEvent}. */
public sealed interface Event {
    /** The server accepted the Hello (after every connect and reconnect). */
    record Connected(Welcome welcome) implements Event {}

    /** A match started (said once per match, not again when the server resends it after a reconnect). */
    record MatchStarted(MatchInfo match) implements Event {}

    /** The server did not use an action (late, invalid or illegal) and played a fallback instead. */
    record Rejected(ActionRejected rejection) implements Event {}

    /** The server could not use an Action (stale or unknown sequence): no strike, but out of step. */
    record ProtocolErrorReceived(ProtocolError error) implements Event {}

    /** A match ended. */
    record MatchEnded(MatchResult result) implements Event {}

    /** The stream dropped or could not be opened; the next attempt goes to {@code address} after {@code delay}. */
    record Reconnecting(String reason, String address, Duration delay) implements Event {}
}
