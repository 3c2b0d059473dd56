package arena.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arena.v1.Bot.ActionRejected;
import arena.v1.Bot.Welcome;
import arena.v1.Common.Fault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
    private static Main.Args parse(String line) {
        return Main.parse(line.split(" "));
    }

    @Test
    void theCommandLineReadsEveryFlag() {
        Main.Args args = parse("--server a:1,b:2 --server c:3 --token t --strategy random --max-matches 3 --invalid-first");
        assertEquals(List.of("a:1", "b:2", "c:3"), args.servers());
        assertEquals("t", args.token().orElseThrow());
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
    void aTokenMayStartWithADashInEitherForm() {
        assertEquals("-x_Y", parse("--server a:1 --token=-x_Y").token().orElseThrow());
        assertEquals("-x_Y", parse("--token -x_Y --server a:1").token().orElseThrow());
        assertEquals("-f", parse("--server a:1 --token-file=-f").tokenFile().orElseThrow());
    }

    @Test
    void theTokenComesFromTheFlagThenTheFileThenTheEnvironment(@TempDir Path folder) throws Exception {
        Path file = folder.resolve("token");
        Files.writeString(file, "  -from_file\n");
        Map<String, String> env = Map.of("ARENA_TOKEN", "from_env", "ARENA_BOT_TOKEN", "older");
        String path = file.toString();
        assertEquals("-flag", Main.tokenFrom("-flag", path, env));
        assertEquals("-from_file", Main.tokenFrom(null, path, env));
        assertEquals("from_env", Main.tokenFrom(null, null, env));
        assertEquals("from_env", Main.tokenFrom("", null, env));
        assertEquals("older", Main.tokenFrom(null, null, Map.of("ARENA_BOT_TOKEN", "older")));
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> Main.tokenFrom(null, null, Map.of()));
        assertEquals("give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token",
                none.getMessage());
    }

    @Test
    void aMissingOrEmptyTokenFileIsAnErrorNamingIt(@TempDir Path folder) throws Exception {
        Path empty = folder.resolve("empty");
        Files.writeString(empty, " \n\t");
        String missing = folder.resolve("missing").toString();
        Map<String, String> env = Map.of("ARENA_TOKEN", "from_env");
        assertEquals("cannot read the token file '" + missing + "': No such file or directory",
                assertThrows(Main.TokenException.class, () -> Main.tokenFrom(null, missing, env)).getMessage());
        assertEquals("the token file '" + empty + "' is empty",
                assertThrows(Main.TokenException.class, () -> Main.tokenFrom(null, empty.toString(), env))
                        .getMessage());
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
