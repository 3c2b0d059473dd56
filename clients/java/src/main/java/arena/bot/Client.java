package arena.bot;

import arena.v1.Bot.Action;
import arena.v1.Bot.ActionRequest;
import arena.v1.Bot.ConnectRequest;
import arena.v1.Bot.ConnectResponse;
import arena.v1.Bot.Hello;
import arena.v1.Bot.MatchEnded;
import arena.v1.Bot.Ping;
import arena.v1.BotServiceGrpc;
import com.google.protobuf.Timestamp;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connects a {@link Bot} to the arena and plays until stopped.
 *
 * <pre>{@code
 * new Client(List.of("localhost:50051"), token).maxConcurrentMatches(4).run(turn -> turn.legalActions().get(0));
 * }</pre>
 *
 * <p>What {@link #run} does (see proto/arena/v1/bot.proto for the protocol): it dials the arena, says Hello with the
 * token, the games and the concurrency, answers every ActionRequest by calling the bot on a thread of its own (so many
 * matches run at once), echoes the match id, seat and sequence (a match may seat the bot more than once: each seat is
 * played on its own, its state kept per match and seat), drops answers to superseded requests, pings at the
 * server's keep-alive interval and treats a silent stream as dead, logs rejections and protocol errors, and
 * reconnects with capped exponential backoff and jitter over the addresses in turn. After a reconnect the server
 * resends each running match and its pending request, which is answered (from the cached answer when it was already
 * computed). It never reconnects after ABORTED (another connection of the same bot took over).
 */
public final class Client {
    /** Sent in Hello as the client's name, for the server's logs. */
    public static final String CLIENT_NAME = "arena-bot-java";
    /** Sent in Hello as the client's version. */
    public static final String CLIENT_VERSION = "0.1.0";

    private static final int SILENT_INTERVALS = 3;
    private static final Duration WELCOME_TIMEOUT = Duration.ofSeconds(30);
    private static final Object STOP = new Object();

    private final List<String> addresses;
    private final String token;
    private List<String> games = List.of();
    private int maxConcurrentMatches = 1;
    private long maxMatches = Long.MAX_VALUE;
    private Duration initialBackoff = Duration.ofMillis(500);
    private Duration maxBackoff = Duration.ofSeconds(30);
    private boolean tls;

    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile BlockingQueue<Object> inbox;

    /** A client for {@code addresses} ({@code host:port}, tried in turn) with the bot's secret token. */
    public Client(List<String> addresses, String token) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("give at least one arena address (host:port)");
        }
        this.addresses = List.copyOf(addresses);
        this.token = token;
    }

    /** The games this connection plays, by registry name (default none: every game the bot is registered for). */
    public Client games(List<String> games) {
        this.games = List.copyOf(games);
        return this;
    }

    /** How many matches to play at once (default 1). */
    public Client maxConcurrentMatches(int n) {
        this.maxConcurrentMatches = Math.max(1, n);
        return this;
    }

    /**
     * Return from {@link #run} after this many matches have ended, a match counted once per seat the bot held in it
     * (default: play until stopped).
     */
    public Client maxMatches(long n) {
        this.maxMatches = n;
        return this;
    }

    /** The reconnect backoff: the first wait and the cap (default 0.5 s and 30 s). */
    public Client backoff(Duration initial, Duration max) {
        this.initialBackoff = initial;
        this.maxBackoff = max.compareTo(initial) < 0 ? initial : max;
        return this;
    }

    /** Whether to connect with TLS, trusting the JVM's root certificates (default: plain TCP). */
    public Client tls(boolean enabled) {
        this.tls = enabled;
        return this;
    }

    /** Asks a running client to disconnect and return from {@link #run}; safe from any thread. */
    public void stop() {
        stopped.countDown();
        BlockingQueue<Object> current = inbox;
        if (current != null) {
            current.offer(STOP);
        }
    }

    boolean isStopped() {
        return stopped.getCount() == 0;
    }

    /**
     * Connects and plays, reconnecting as needed, until {@link #stop} is called or {@code maxMatches} matches have
     * ended (then it returns), or the server refuses the bot or another connection takes over (then it throws).
     */
    public void run(Bot bot) throws ArenaBotException {
        Runner runner = new Runner(bot);
        try {
            runner.loop();
        } finally {
            runner.shutdown();
        }
    }

    /** A gRPC target for {@code host:port} (an {@code http://} prefix is dropped). */
    static String target(String address) {
        return address.startsWith("http://") ? address.substring("http://".length()) : address;
    }

    /** The next backoff wait: {@code backoff} times a random factor in [0.5, 1). */
    static Duration jitter(Duration backoff) {
        return Duration.ofNanos((long) (backoff.toNanos() * ThreadLocalRandom.current().nextDouble(0.5, 1.0)));
    }

    /** Whether a stream's end status means: do not reconnect. */
    static ArenaBotException fatal(Status status) {
        String details = status.getDescription() == null ? "" : status.getDescription();
        return switch (status.getCode()) {
            case ABORTED -> new ArenaBotException.Replaced(details);
            case UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT -> new ArenaBotException.Refused(
                    status.getCode(), details);
            default -> null;
        };
    }

    private static ThreadFactory daemons(String name) {
        AtomicLong count = new AtomicLong();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** How one stream ended, when it was not fatal. */
    private record SessionEnd(boolean welcomed, String reason) {}

    /** The stream's end, as its response observer saw it. */
    private record End(Status status) {}

    /** One seat the bot plays; everything per match is kept per seat, since a match may seat the bot more than once. */
    private record SeatKey(String matchId, int seat) {}

    /** Per-seat bookkeeping (one per match the bot holds one seat in); guarded by the runner's lock. */
    private static final class MatchState {
        MatchInfo info;
        final AtomicLong latest = new AtomicLong(-1);
        boolean hasRequest;
        long working = -1;
        /** The last answer, its sequence, and the stream it went out on (0: not sent yet). */
        String answer;
        long answered = -1;
        long sentOn;
    }

    /** One outgoing half of a stream; gRPC's StreamObserver is not thread-safe, so sends are serialised. */
    static final class Sender {
        final long id;
        private final StreamObserver<ConnectRequest> out;
        private boolean closed;

        Sender(long id, StreamObserver<ConnectRequest> out) {
            this.id = id;
            this.out = out;
        }

        synchronized boolean send(ConnectRequest message) {
            if (closed) {
                return false;
            }
            try {
                out.onNext(message);
                return true;
            } catch (RuntimeException e) {
                Log.debug("could not send " + message.getKindCase() + ": " + e);
                closed = true;
                return false;
            }
        }

        synchronized void close() {
            if (!closed) {
                closed = true;
                try {
                    if (out instanceof ClientCallStreamObserver<ConnectRequest> call) {
                        call.cancel("client closed the stream", null);
                    } else {
                        out.onCompleted();
                    }
                } catch (RuntimeException e) {
                    Log.debug("closing the stream: " + e);
                }
            }
        }
    }

    /** The state of one {@link #run}: the live stream, the matches, the pending decisions. */
    final class Runner {
        private final Bot bot;
        private final ExecutorService deciders = Executors.newCachedThreadPool(daemons("arena-bot-act"));
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
                daemons("arena-bot-ping"));
        private final Object lock = new Object();
        private final Map<SeatKey, MatchState> matches = new HashMap<>();
        /** Seats of matches already told as ended (a resent end is not counted twice). */
        private final Set<SeatKey> ended = new HashSet<>();
        private Sender live;
        private long nextStreamId;

        Runner(Bot bot) {
            this.bot = bot;
        }

        void loop() throws ArenaBotException {
            int index = 0;
            Duration backoff = initialBackoff;
            while (!isStopped()) {
                SessionEnd end = session(addresses.get(index));
                if (isStopped()) {
                    return;
                }
                Duration delay;
                if (end.welcomed()) {
                    // The connection worked: come back to the same address, quickly.
                    backoff = initialBackoff;
                    delay = jitter(initialBackoff);
                } else {
                    index = (index + 1) % addresses.size();
                    delay = Duration.ZERO;
                    if (index == 0) {
                        // Every address failed once more: wait longer each round.
                        delay = jitter(backoff);
                        backoff = backoff.multipliedBy(2).compareTo(maxBackoff) > 0 ? maxBackoff : backoff.multipliedBy(2);
                    }
                }
                bot.onEvent(new Event.Reconnecting(end.reason(), addresses.get(index), delay));
                try {
                    if (stopped.await(delay.toNanos(), TimeUnit.NANOSECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        /** Makes {@code sender} the live stream (null: none), as a Welcome does. */
        void attach(Sender sender) {
            synchronized (lock) {
                live = sender;
            }
        }

        void shutdown() {
            deciders.shutdownNow();
            timer.shutdownNow();
        }

        /** One stream, from Hello until it ends. Throws only for what must not be retried. */
        private SessionEnd session(String address) throws ArenaBotException {
            BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
            inbox = queue;
            if (isStopped()) {
                return new SessionEnd(false, "stopped");
            }
            ChannelCredentials credentials =
                    tls ? TlsChannelCredentials.create() : InsecureChannelCredentials.create();
            ManagedChannel channel = Grpc.newChannelBuilder(target(address), credentials)
                    .maxInboundMessageSize(16 * 1024 * 1024)
                    .build();
            Sender sender;
            synchronized (lock) {
                sender = new Sender(++nextStreamId, BotServiceGrpc.newStub(channel).connect(new StreamObserver<>() {
                    @Override
                    public void onNext(ConnectResponse message) {
                        queue.offer(message);
                    }

                    @Override
                    public void onError(Throwable error) {
                        queue.offer(new End(Status.fromThrowable(error)));
                    }

                    @Override
                    public void onCompleted() {
                        queue.offer(new End(Status.OK));
                    }
                }));
            }
            ScheduledFuture<?> pinger = null;
            boolean welcomed = false;
            long silence = WELCOME_TIMEOUT.toNanos();
            try {
                sender.send(ConnectRequest.newBuilder().setHello(hello()).build());
                while (true) {
                    Object item = queue.poll(silence, TimeUnit.NANOSECONDS);
                    if (item == null) {
                        return new SessionEnd(welcomed, address + ": nothing heard for "
                                + Duration.ofNanos(silence).toMillis() + " ms");
                    }
                    if (item == STOP) {
                        return new SessionEnd(welcomed, "stopped");
                    }
                    if (item instanceof End end) {
                        ArenaBotException fatal = fatal(end.status());
                        if (fatal != null) {
                            throw fatal;
                        }
                        return new SessionEnd(welcomed, end.status().isOk()
                                ? address + ": the server ended the stream"
                                : address + ": stream failed: " + end.status().getCode() + " "
                                        + end.status().getDescription());
                    }
                    ConnectResponse message = (ConnectResponse) item;
                    if (message.hasWelcome()) {
                        welcomed = true;
                        Duration interval = Turn.duration(message.getWelcome().getKeepAliveInterval());
                        silence = interval.isZero() ? TimeUnit.HOURS.toNanos(1) : interval.toNanos() * SILENT_INTERVALS;
                        attach(sender);
                        if (pinger == null && !interval.isZero()) {
                            pinger = timer.scheduleAtFixedRate(
                                    () -> sender.send(ping()), interval.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
                        }
                    }
                    dispatch(message, sender.id);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stop();
                return new SessionEnd(welcomed, "interrupted");
            } finally {
                if (pinger != null) {
                    pinger.cancel(false);
                }
                synchronized (lock) {
                    if (live == sender) {
                        live = null;
                    }
                }
                sender.close();
                channel.shutdownNow();
            }
        }

        private Hello hello() {
            return Hello.newBuilder()
                    .setToken(token)
                    .addAllGames(games)
                    .setMaxConcurrentMatches(maxConcurrentMatches)
                    .setClientName(CLIENT_NAME)
                    .setClientVersion(CLIENT_VERSION)
                    .build();
        }

        private ConnectRequest ping() {
            Instant now = Instant.now();
            Timestamp time = Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()).build();
            return ConnectRequest.newBuilder().setPing(Ping.newBuilder().setClientTime(time)).build();
        }

        void dispatch(ConnectResponse message, long streamId) {
            switch (message.getKindCase()) {
                case WELCOME -> bot.onEvent(new Event.Connected(message.getWelcome()));
                case MATCH_STARTED -> {
                    MatchInfo info = MatchInfo.fromProto(message.getMatchStarted());
                    boolean first;
                    synchronized (lock) {
                        MatchState state = matches.computeIfAbsent(new SeatKey(info.matchId(), info.seat()),
                                k -> new MatchState());
                        first = state.info == null;
                        state.info = info;
                    }
                    if (first) {
                        bot.onEvent(new Event.MatchStarted(info));
                    }
                }
                case ACTION_REQUEST -> onRequest(message.getActionRequest(), streamId);
                case ACTION_REJECTED -> bot.onEvent(new Event.Rejected(message.getActionRejected()));
                case MATCH_ENDED -> onEnd(message.getMatchEnded());
                case ERROR -> bot.onEvent(new Event.ProtocolErrorReceived(message.getError()));
                case KEEP_ALIVE -> { }
                default -> Log.debug("ignoring a server message of unknown kind (newer server?)");
            }
        }

        private void onRequest(ActionRequest request, long streamId) {
            String matchId = request.getMatchId();
            int seat = request.getSeat();
            long sequence = request.getSequence();
            Turn turn;
            synchronized (lock) {
                MatchState state = matches.computeIfAbsent(new SeatKey(matchId, seat), k -> new MatchState());
                if (state.hasRequest) {
                    long latest = state.latest.get();
                    if (sequence < latest) {
                        Log.debug("match " + matchId + ": ignoring stale request " + sequence + " (have " + latest + ")");
                        return;
                    }
                    if (sequence == latest) {
                        // The server resent the request (after a reconnect): answer again from the cached answer,
                        // or let the running decision answer when it is done.
                        if (state.answered == sequence) {
                            if (state.sentOn != streamId) {
                                state.sentOn = send(action(matchId, seat, sequence, state.answer));
                            }
                            return;
                        }
                        if (state.working == sequence) {
                            return;
                        }
                    }
                }
                state.hasRequest = true;
                state.latest.set(sequence);
                state.working = sequence;
                turn = new Turn(request, state.info, state.latest);
            }
            deciders.execute(() -> decide(turn));
        }

        private void decide(Turn turn) {
            String text;
            try {
                text = bot.act(turn);
                if (text == null) {
                    throw new IllegalStateException("act returned null");
                }
            } catch (Exception e) {
                Log.warn("match " + turn.matchId() + ", request " + turn.sequence() + ": act failed: " + e);
                if (turn.legalActions().isEmpty()) {
                    return;
                }
                text = turn.legalActions().get(0);
            }
            answer(turn, text);
        }

        /** Sends a decision unless it was superseded, and remembers it for a resent request. */
        private void answer(Turn turn, String text) {
            synchronized (lock) {
                MatchState state = matches.get(new SeatKey(turn.matchId(), turn.seat()));
                if (state == null) {
                    return; // the match ended meanwhile
                }
                if (state.working == turn.sequence()) {
                    state.working = -1;
                }
                if (turn.isSuperseded()) {
                    Log.debug("match " + turn.matchId() + ": dropping the answer to superseded request "
                            + turn.sequence());
                    return;
                }
                state.answer = text;
                state.answered = turn.sequence();
                state.sentOn = send(action(turn.matchId(), turn.seat(), turn.sequence(), text));
                if (state.sentOn == 0) {
                    Log.debug("match " + turn.matchId() + ": answer to " + turn.sequence() + " kept for the reconnect");
                }
            }
        }

        /** Sends on the live stream; returns that stream's id, or 0 when there is none. Holds the lock. */
        private long send(ConnectRequest message) {
            return live != null && live.send(message) ? live.id : 0;
        }

        /** An answer, echoing the request's match, seat and sequence. */
        private ConnectRequest action(String matchId, int seat, long sequence, String text) {
            return ConnectRequest.newBuilder()
                    .setAction(Action.newBuilder()
                            .setMatchId(matchId)
                            .setSeat(seat)
                            .setSequence(sequence)
                            .setText(text))
                    .build();
        }

        private void onEnd(MatchEnded message) {
            MatchInfo info;
            int count;
            synchronized (lock) {
                SeatKey key = new SeatKey(message.getMatchId(), message.getSeat());
                MatchState state = matches.remove(key);
                info = state == null ? null : state.info;
                if (!ended.add(key)) {
                    return;
                }
                count = ended.size();
            }
            bot.onEvent(new Event.MatchEnded(MatchResult.fromProto(message, info)));
            if (count >= maxMatches) {
                Log.info("played " + count + " matches; stopping");
                stop();
            }
        }
    }
}
