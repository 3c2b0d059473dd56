package arena.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arena.v1.Bot.Action;
import arena.v1.Bot.ActionRequest;
import arena.v1.Bot.ConnectRequest;
import arena.v1.Bot.ConnectResponse;
import arena.v1.Bot.MatchEnded;
import arena.v1.Bot.MatchStarted;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The SDK's bookkeeping with no network: each "stream" is a queue the test reads. */
class RunnerTest {
    private final AtomicInteger calls = new AtomicInteger();
    private Client.Runner runner;

    @AfterEach
    void shutdown() {
        if (runner != null) {
            runner.shutdown();
        }
    }

    /** A bot that answers a request's only legal action, slowly for the {@code slow} sequences, counting calls. */
    private Client.Runner runner(Client client, Set<Long> slow) {
        runner = client.new Runner(turn -> {
            calls.incrementAndGet();
            if (slow.contains(turn.sequence())) {
                Thread.sleep(200);
            }
            return turn.legalActions().get(0);
        });
        return runner;
    }

    private static Client client() {
        return new Client(List.of("127.0.0.1:1"), "token");
    }

    private static BlockingQueue<ConnectRequest> attach(Client.Runner runner, long id) {
        BlockingQueue<ConnectRequest> sent = new LinkedBlockingQueue<>();
        runner.attach(new Client.Sender(id, new StreamObserver<>() {
            @Override
            public void onNext(ConnectRequest message) {
                sent.add(message);
            }

            @Override
            public void onError(Throwable error) {}

            @Override
            public void onCompleted() {}
        }));
        return sent;
    }

    private static ConnectResponse started() {
        return ConnectResponse.newBuilder()
                .setMatchStarted(MatchStarted.newBuilder().setMatchId("m").setGame("5211"))
                .build();
    }

    private static ConnectResponse request(long sequence) {
        return ConnectResponse.newBuilder()
                .setActionRequest(ActionRequest.newBuilder()
                        .setMatchId("m")
                        .setSequence(sequence)
                        .addLegalActions("G" + sequence))
                .build();
    }

    private static ConnectResponse startedAt(int seat) {
        return ConnectResponse.newBuilder()
                .setMatchStarted(MatchStarted.newBuilder().setMatchId("m").setGame("5211").setSeat(seat))
                .build();
    }

    private static ConnectResponse requestAt(int seat, long sequence) {
        return ConnectResponse.newBuilder()
                .setActionRequest(ActionRequest.newBuilder()
                        .setMatchId("m")
                        .setSeat(seat)
                        .setSequence(sequence)
                        .addLegalActions("G" + sequence + " S" + seat))
                .build();
    }

    /** The next Action sent, as "seat sequence text" ("-" for no seat). */
    private static String nextAnswer(BlockingQueue<ConnectRequest> sent) throws InterruptedException {
        ConnectRequest message = sent.poll(1, TimeUnit.SECONDS);
        assertNotNull(message, "no action sent");
        Action action = message.getAction();
        return (action.hasSeat() ? String.valueOf(action.getSeat()) : "-") + " " + action.getSequence() + " "
                + action.getText();
    }

    private static ConnectResponse endedAt(int seat) {
        return ConnectResponse.newBuilder()
                .setMatchEnded(MatchEnded.newBuilder().setMatchId("m").setSeat(seat))
                .build();
    }

    private static ConnectResponse ended(String matchId) {
        return ConnectResponse.newBuilder().setMatchEnded(MatchEnded.newBuilder().setMatchId(matchId)).build();
    }

    private static String nextAction(BlockingQueue<ConnectRequest> sent) throws InterruptedException {
        ConnectRequest message = sent.poll(1, TimeUnit.SECONDS);
        assertNotNull(message, "no action sent");
        Action action = message.getAction();
        assertEquals("m", action.getMatchId());
        return action.getSequence() + " " + action.getText();
    }

    private static void nothingSent(BlockingQueue<ConnectRequest> sent) throws InterruptedException {
        assertNull(sent.poll(300, TimeUnit.MILLISECONDS));
    }

    @Test
    void aSupersededRequestIsNeverAnsweredAndAStaleOneIsIgnored() throws Exception {
        Client.Runner r = runner(client(), Set.of(1L));
        BlockingQueue<ConnectRequest> sent = attach(r, 1);
        r.dispatch(started(), 1);
        r.dispatch(request(1), 1);
        r.dispatch(request(2), 1);
        assertEquals("2 G2", nextAction(sent));
        nothingSent(sent); // the slow answer to 1 is dropped
        r.dispatch(request(1), 1); // stale
        nothingSent(sent);
        assertEquals(2, calls.get());
    }

    @Test
    void aResentRequestIsAnsweredFromTheCacheOnTheNewStreamOnly() throws Exception {
        Client.Runner r = runner(client(), Set.of());
        BlockingQueue<ConnectRequest> first = attach(r, 1);
        r.dispatch(started(), 1);
        r.dispatch(request(1), 1);
        assertEquals("1 G1", nextAction(first));
        r.dispatch(request(1), 1); // a duplicate on the same stream: already answered there
        nothingSent(first);
        BlockingQueue<ConnectRequest> second = attach(r, 2);
        r.dispatch(started(), 2);
        r.dispatch(request(1), 2);
        assertEquals("1 G1", nextAction(second));
        assertEquals(1, calls.get());
    }

    @Test
    void aDecisionInFlightAcrossAReconnectGoesOutOnTheNewStream() throws Exception {
        Client.Runner r = runner(client(), Set.of(1L));
        BlockingQueue<ConnectRequest> old = attach(r, 1);
        r.dispatch(started(), 1);
        r.dispatch(request(1), 1);
        r.attach(null); // the stream drops while the bot thinks
        BlockingQueue<ConnectRequest> fresh = attach(r, 2);
        r.dispatch(request(1), 2); // resent: the running decision will answer it
        assertEquals("1 G1", nextAction(fresh));
        nothingSent(old);
        assertEquals(1, calls.get());
    }

    @Test
    void aFailingActAnswersTheFirstLegalAction() throws Exception {
        runner = client().new Runner(turn -> {
            throw new IllegalStateException("oops");
        });
        BlockingQueue<ConnectRequest> sent = attach(runner, 1);
        runner.dispatch(request(7), 1);
        assertEquals("7 G7", nextAction(sent));
    }

    @Test
    void eachSeatOfAMatchIsItsOwnDecisionAnsweredWithItsSeat() throws Exception {
        Client client = client().maxMatches(2);
        Client.Runner r = runner(client, Set.of());
        BlockingQueue<ConnectRequest> sent = attach(r, 1);
        r.dispatch(startedAt(0), 1);
        r.dispatch(startedAt(1), 1);
        // The same sequence for each seat: neither is a resend of the other.
        r.dispatch(requestAt(0, 1), 1);
        r.dispatch(requestAt(1, 1), 1);
        assertEquals(Set.of("0 1 G1 S0", "1 1 G1 S1"), Set.of(nextAnswer(sent), nextAnswer(sent)));
        nothingSent(sent);
        assertEquals(2, calls.get());
        // Each seat's end counts as one ended match.
        r.dispatch(endedAt(0), 1);
        assertFalse(client.isStopped());
        r.dispatch(endedAt(1), 1);
        assertTrue(client.isStopped());
    }

    @Test
    void aOneSeatAnswerEchoesItsSeat() throws Exception {
        Client.Runner r = runner(client(), Set.of());
        BlockingQueue<ConnectRequest> sent = attach(r, 1);
        r.dispatch(startedAt(2), 1);
        r.dispatch(requestAt(2, 4), 1);
        assertEquals("2 4 G4 S2", nextAnswer(sent));
    }

    @Test
    void maxMatchesCountsEachMatchOnceThenStops() throws Exception {
        Client client = client().maxMatches(2);
        Client.Runner r = runner(client, Set.of());
        r.dispatch(ended("a"), 1);
        r.dispatch(ended("a"), 1); // told again after a reconnect: counted once
        assertFalse(client.isStopped());
        r.dispatch(ended("b"), 1);
        assertTrue(client.isStopped());
        // Stopped: run returns at once, without dialling anything.
        client.run(turn -> "never");
    }
}
