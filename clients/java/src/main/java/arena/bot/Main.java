package arena.bot;

import arena.bot.bots.HeuristicBot;
import arena.bot.bots.RandomBot;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code bin/bot}: runs a starter bot against an arena and prints one line per event on stdout.
 *
 * <pre>
 * bin/bot --server HOST:PORT[,HOST:PORT...] [--token TOKEN | --token-file PATH]
 *         [--strategy random|heuristic] [--max-matches N] [--invalid-first] [--concurrency N] [--seed N]
 * </pre>
 *
 * <p>The token comes from {@code --token}, else from {@code --token-file} (the file's contents, whitespace stripped),
 * else from {@code $ARENA_TOKEN} (or its older alias {@code $ARENA_BOT_TOKEN}). The last two keep it out of the process's
 * command line, which other local users can read. A token may start with '-' ({@code --token=-x} and
 * {@code --token -x} both work).
 *
 * <p>stdout lines: {@code welcome <bot_name>}, {@code started <match_id> <seat>},
 * {@code rejected <match_id> <sequence> <fault>}, {@code ended <match_id> <placing>}, {@code reconnecting}. Logs go
 * to stderr. Exit status: 0 after N matches, 2 on a usage error, a missing or empty token file, a refused token or
 * when another connection of the bot took over.
 */
public final class Main {
    static final String USAGE = "usage: bin/bot --server HOST:PORT[,HOST:PORT...] [--token TOKEN | --token-file PATH] "
            + "[--strategy random|heuristic] [--max-matches N] [--invalid-first] [--concurrency N] [--seed N]\n"
            + "the token: --token, else --token-file, else $ARENA_TOKEN "
            + "(the last two keep it off the command line)";
    /** The environment variables the token may come from, in order. */
    static final List<String> TOKEN_VARIABLES = List.of("ARENA_TOKEN", "ARENA_BOT_TOKEN");

    private Main() {}

    /** The parsed command line. */
    record Args(
            List<String> servers,
            Optional<String> token,
            Optional<String> tokenFile,
            String strategy,
            long maxMatches,
            boolean invalidFirst,
            int concurrency,
            Long seed) {}

    /** Reads the command line; throws IllegalArgumentException with the reason (empty for --help). */
    static Args parse(String[] argv) {
        List<String> servers = new ArrayList<>();
        String token = null;
        String tokenFile = null;
        String strategy = "heuristic";
        long maxMatches = Long.MAX_VALUE;
        boolean invalidFirst = false;
        int concurrency = 4;
        Long seed = null;
        for (int i = 0; i < argv.length; i++) {
            String flag = argv[i];
            String inline = null;
            if (flag.startsWith("--") && flag.contains("=")) {
                inline = flag.substring(flag.indexOf('=') + 1);
                flag = flag.substring(0, flag.indexOf('='));
            }
            if (flag.equals("--invalid-first")) {
                invalidFirst = true;
                continue;
            }
            if (flag.equals("-h") || flag.equals("--help")) {
                throw new IllegalArgumentException("");
            }
            if (!List.of("--server", "--token", "--token-file", "--strategy", "--max-matches", "--concurrency",
                    "--seed").contains(flag)) {
                throw new IllegalArgumentException("unknown argument '" + argv[i] + "'");
            }
            String value = inline;
            if (value == null) {
                if (i + 1 >= argv.length) {
                    throw new IllegalArgumentException(flag + " needs a value");
                }
                value = argv[++i];
            }
            switch (flag) {
                case "--server" -> {
                    for (String server : value.split(",")) {
                        if (!server.isBlank()) {
                            servers.add(server.trim());
                        }
                    }
                }
                case "--token" -> token = value;
                case "--token-file" -> tokenFile = value;
                case "--strategy" -> strategy = value;
                case "--max-matches" -> maxMatches = number(flag, value);
                case "--concurrency" -> concurrency = (int) Math.max(1, Math.min(1024, number(flag, value)));
                default -> seed = number(flag, value);
            }
        }
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("give the arena address with --server HOST:PORT");
        }
        if (!strategy.equals("random") && !strategy.equals("heuristic")) {
            throw new IllegalArgumentException("unknown strategy '" + strategy + "': use random or heuristic");
        }
        return new Args(servers, Optional.ofNullable(token), Optional.ofNullable(tokenFile), strategy, maxMatches,
                invalidFirst, concurrency, seed);
    }

    /** A token that cannot be had; the message is the one line to print. */
    static final class TokenException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        TokenException(String message) {
            super(message);
        }
    }

    /**
     * The token: {@code given} ({@code --token}), else the contents of the file at {@code path} ({@code --token-file}),
     * whitespace stripped, else the first non-empty variable of {@link #TOKEN_VARIABLES} in {@code env}. Throws
     * TokenException saying what is wrong: a missing or empty file, or no token anywhere.
     */
    static String tokenFrom(String given, String path, Map<String, String> env) {
        if (given != null && !given.isEmpty()) {
            return given;
        }
        if (path != null) {
            String token;
            try {
                token = Files.readString(Path.of(path)).strip();
            } catch (NoSuchFileException e) {
                throw new TokenException("cannot read the token file '" + path + "': No such file or directory");
            } catch (AccessDeniedException e) {
                throw new TokenException("cannot read the token file '" + path + "': Permission denied");
            } catch (IOException | InvalidPathException e) {
                throw new TokenException("cannot read the token file '" + path + "': " + e.getMessage());
            }
            if (token.isEmpty()) {
                throw new TokenException("the token file '" + path + "' is empty");
            }
            return token;
        }
        for (String variable : TOKEN_VARIABLES) {
            String value = env.get(variable);
            if (value != null && !value.isEmpty()) {
                return value;
            }
        }
        throw new TokenException("give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token");
    }

    private static long number(String flag, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + ": not a number: '" + value + "'");
        }
    }

    /** A starter bot that prints its events, and may answer its first request with an invalid action. */
    static final class CliBot implements Bot {
        private final Bot strategy;
        private final AtomicBoolean invalidFirst;
        private final PrintStream out;

        CliBot(Bot strategy, boolean invalidFirst, PrintStream out) {
            this.strategy = strategy;
            this.invalidFirst = new AtomicBoolean(invalidFirst);
            this.out = out;
        }

        @Override
        public String act(Turn turn) throws Exception {
            if (invalidFirst.getAndSet(false)) {
                return "Z9";
            }
            return strategy.act(turn);
        }

        @Override
        public void onEvent(Event event) {
            Log.event(event);
            String line = line(event);
            if (line != null) {
                synchronized (out) {
                    out.println(line);
                    out.flush();
                }
            }
        }

        static String line(Event event) {
            if (event instanceof Event.Connected e) {
                return "welcome " + e.welcome().getBotName();
            } else if (event instanceof Event.MatchStarted e) {
                return "started " + e.match().matchId() + " " + e.match().seat();
            } else if (event instanceof Event.Rejected e) {
                var r = e.rejection();
                return "rejected " + r.getMatchId() + " " + r.getSequence() + " " + Log.faultName(r.getFault());
            } else if (event instanceof Event.MatchEnded e) {
                var r = e.result();
                return "ended " + r.matchId() + " " + (r.placing().isPresent() ? r.placing().getAsInt() : "-");
            } else if (event instanceof Event.Reconnecting) {
                return "reconnecting";
            }
            return null;
        }
    }

    /** Entry point. */
    public static void main(String[] argv) {
        Args args;
        try {
            args = parse(argv);
        } catch (IllegalArgumentException e) {
            if (e.getMessage().isEmpty()) {
                System.out.println(USAGE);
                System.exit(0);
            }
            System.err.println("bin/bot: " + e.getMessage() + "\n" + USAGE);
            System.exit(2);
            return;
        }
        String token;
        try {
            token = tokenFrom(args.token().orElse(null), args.tokenFile().orElse(null), System.getenv());
        } catch (TokenException e) {
            System.err.println("bin/bot: " + e.getMessage());
            System.exit(2);
            return;
        }
        Bot strategy = args.strategy().equals("random") ? new RandomBot(args.seed()) : new HeuristicBot(args.seed());
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Client client = new Client(args.servers(), token)
                .maxConcurrentMatches(args.concurrency())
                .maxMatches(args.maxMatches());
        try {
            client.run(new CliBot(strategy, args.invalidFirst(), out));
        } catch (ArenaBotException e) {
            System.err.println("bin/bot: " + e.getMessage());
            System.exit(2);
        }
        System.exit(0);
    }
}
