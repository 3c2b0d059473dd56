package arena.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arena.bot.bots.HeuristicBot;
import arena.bot.bots.RandomBot;
import arena.bot.games.Coloretto;
import arena.bot.games.Game5211;
import arena.v1.Bot.ActionRequest;
import arena.v1.Bot.ConnectRequest;
import arena.v1.Bot.ConnectResponse;
import arena.v1.Bot.MatchStarted;
import arena.v1.GameColoretto.ColorettoObservation;
import arena.v1.GameColoretto.ColorettoRow;
import arena.v1.ObservationOuterClass.Observation;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A turn names no game: its game comes from MatchStarted, its observation is the envelope (no network). */
class EnvelopeTest {
    private Client.Runner runner;
    private final List<Turn> turns = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutdown() {
        if (runner != null) {
            runner.shutdown();
        }
    }

    /** Plays one request of a match of {@code game} with {@code bot}: the answer it sent. */
    private String playOne(Bot bot, String game, ActionRequest request) throws InterruptedException {
        runner = new Client(List.of("127.0.0.1:1"), "token").new Runner(turn -> {
            turns.add(turn);
            return bot.act(turn);
        });
        BlockingQueue<ConnectRequest> sent = new LinkedBlockingQueue<>();
        runner.attach(new Client.Sender(1, new StreamObserver<>() {
            @Override
            public void onNext(ConnectRequest message) {
                sent.add(message);
            }

            @Override
            public void onError(Throwable error) {}

            @Override
            public void onCompleted() {}
        }));
        runner.dispatch(ConnectResponse.newBuilder()
                .setMatchStarted(MatchStarted.newBuilder().setMatchId("m").setGame(game).setNumPlayers(3))
                .build(), 1);
        runner.dispatch(ConnectResponse.newBuilder().setActionRequest(request).build(), 1);
        ConnectRequest answer = sent.poll(2, TimeUnit.SECONDS);
        assertNotNull(answer, "no action sent");
        runner.shutdown();
        runner = null;
        return answer.getAction().getText();
    }

    @Test
    void aColorettoTurnCarriesItsGameAndTheColorettoObservation() throws Exception {
        ColorettoObservation view = ColorettoObservation.newBuilder()
                .setNumPlayers(3)
                .setPileSize(60)
                .addRows(ColorettoRow.newBuilder().addCards("B").addCards("J").setCapacity(3))
                .build();
        ActionRequest request = ActionRequest.newBuilder()
                .setMatchId("m")
                .setSequence(1)
                .setObservation(Observation.newBuilder().setGameColoretto(view))
                .addLegalActions("draw")
                .addLegalActions("take 0")
                .build();
        String answer = playOne(new RandomBot(1L), "coloretto", request);
        assertTrue(List.of("draw", "take 0").contains(answer), answer);
        Turn turn = turns.get(0);
        assertEquals("coloretto", turn.game());
        assertEquals("coloretto", Turn.gameOf(turn.observation()));
        assertEquals(60, Coloretto.observation(turn).getPileSize());
        assertEquals(List.of("B", "J"), Coloretto.observation(turn).getRows(0).getCardsList());
        assertEquals(
                List.of(new Coloretto.Move(Coloretto.Kind.DRAW, -1), new Coloretto.Move(Coloretto.Kind.TAKE, 0)),
                Coloretto.legalMoves(turn));
        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class, () -> Game5211.observation(turn));
        assertEquals("match m plays \"coloretto\", not 5211", wrong.getMessage());
    }

    @Test
    void aTurnOfAGameThisBuildDoesNotKnowStillHasLegalActionsTheBotsAnswer() throws Exception {
        // The bytes of a newer arena's envelope: a oneof field (999) unknown to this build.
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeByteArray(999, new byte[] {0x08, 0x01});
        out.flush();
        Observation unknown = Observation.parseFrom(ByteString.copyFrom(bytes.toByteArray()));
        assertEquals(Observation.GameCase.GAME_NOT_SET, unknown.getGameCase());
        assertEquals("", Turn.gameOf(unknown));
        ActionRequest request = ActionRequest.newBuilder()
                .setMatchId("m")
                .setSequence(1)
                .setObservation(unknown)
                .addLegalActions("pass")
                .addLegalActions("play 7")
                .build();
        for (Bot bot : List.of(new RandomBot(2L), new HeuristicBot(2L))) {
            turns.clear();
            String answer = playOne(bot, "some-new-game", request);
            assertTrue(List.of("pass", "play 7").contains(answer), answer);
            Turn turn = turns.get(0);
            assertEquals("some-new-game", turn.game());
            assertEquals(List.of("pass", "play 7"), turn.legalActions());
            assertFalse(turn.observation().hasGame5211());
            assertThrows(IllegalArgumentException.class, () -> Game5211.observation(turn));
            assertThrows(IllegalArgumentException.class, () -> Coloretto.observation(turn));
        }
    }

    @Test
    void withoutAMatchStartedTheGameIsReadFromTheEnvelope() {
        Turn turn = Turn.fromRequest(
                ActionRequest.newBuilder()
                        .setObservation(Observation.newBuilder().setGameColoretto(ColorettoObservation.getDefaultInstance()))
                        .build(),
                null);
        assertEquals("coloretto", turn.game());
    }
}
