package arena.bot;

import arena.bot.bots.HeuristicBot;
import arena.bot.bots.RandomBot;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code bin/bot}: runs a starter bot against an arena and prints one line per event on stdout.
 *
 * <pre>
 * bin/bot --server HOST:PORT[,HOST:PORT...] --token TOKEN [--strategy random|heuristic]
 *         [--max-matches N] [--invalid-first] [--concurrency N] [--seed N]
 * </pre>
 *
 * <p>stdout lines: {@code welcome <bot_name>}, {@code started <match_id> <seat>},
 * {@code rejected <match_id> <sequence> <fault>}, {@code ended <match_id> <placing>}, {@code reconnecting}. Logs go
 * to stderr. Exit status: 0 after N matches, 2 on a usage error, a refused token or when another connection of the
 * bot took over.
 */
public final class Main {
    static final String USAGE = "usage: bin/bot --server HOST:PORT[,HOST:PORT...] --token TOKEN "
            + "[--strategy random|heuristic] [--max-matches N] [--invalid-first] [--concurrency N] [--seed N]";

    private Main() {}

    /** The parsed command line. */
    record Args(
            List<String> servers,
            String token,
            String strategy,
            long maxMatches,
            boolean invalidFirst,
            int concurrency,
            Long seed) {}

    /** Reads the command line; throws IllegalArgumentException with the reason (empty for --help). */
    static Args parse(String[] argv) {
        List<String> servers = new ArrayList<>();
        String token = System.getenv().getOrDefault("ARENA_TOKEN", "");
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
            if (!List.of("--server", "--token", "--strategy", "--max-matches", "--concurrency", "--seed")
                    .contains(flag)) {
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
                case "--strategy" -> strategy = value;
                case "--max-matches" -> maxMatches = number(flag, value);
                case "--concurrency" -> concurrency = (int) Math.max(1, Math.min(1024, number(flag, value)));
                default -> seed = number(flag, value);
            }
        }
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("give the arena address with --server HOST:PORT");
        }
        if (token.isEmpty()) {
            throw new IllegalArgumentException("give the bot's token with --token (or ARENA_TOKEN)");
        }
        if (!strategy.equals("random") && !strategy.equals("heuristic")) {
            throw new IllegalArgumentException("unknown strategy '" + strategy + "': use random or heuristic");
        }
        return new Args(servers, token, strategy, maxMatches, invalidFirst, concurrency, seed);
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
        Bot strategy = args.strategy().equals("random") ? new RandomBot(args.seed()) : new HeuristicBot(args.seed());
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Client client = new Client(args.servers(), args.token())
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
