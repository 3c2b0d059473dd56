package arena.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arena.v1.Bot.ActionRejected;
import arena.v1.Bot.Welcome;
import arena.v1.Common.Fault;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MainTest {
    private static Main.Args parse(String line) {
        return Main.parse(line.split(" "));
    }

    @Test
    void theCommandLineReadsEveryFlag() {
        Main.Args args = parse("--server a:1,b:2 --server c:3 --token t --strategy random --max-matches 3 --invalid-first");
        assertEquals(List.of("a:1", "b:2", "c:3"), args.servers());
        assertEquals("t", args.token());
        assertEquals("random", args.strategy());
        assertEquals(3, args.maxMatches());
        assertTrue(args.invalidFirst());
        assertEquals(List.of("a:1"), parse("--server=a:1 --token=t").servers());
    }

    @Test
    void badCommandLinesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> parse("--token t"));
        assertThrows(IllegalArgumentException.class, () -> parse("--server a:1 --token t --strategy clever"));
        assertThrows(IllegalArgumentException.class, () -> parse("--server a:1 --token t --max-matches x"));
        assertThrows(IllegalArgumentException.class, () -> parse("--server a:1 --token t --what"));
    }

    @Test
    void eventsPrintAsOneLineEach() {
        assertEquals("welcome b", Main.CliBot.line(new Event.Connected(Welcome.newBuilder().setBotName("b").build())));
        ActionRejected rejection = ActionRejected.newBuilder()
                .setMatchId("m")
                .setSequence(3)
                .setFault(Fault.FAULT_INVALID_ACTION)
                .build();
        assertEquals("rejected m 3 FAULT_INVALID_ACTION", Main.CliBot.line(new Event.Rejected(rejection)));
        assertEquals("reconnecting", Main.CliBot.line(new Event.Reconnecting("why", "a:1", Duration.ZERO)));
    }
}
