package arena.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arena.v1.Bot.ActionRequest;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClientTest {
    @Test
    void addressesBecomeGrpcTargets() {
        assertEquals("localhost:50051", Client.target("localhost:50051"));
        assertEquals("10.0.0.1:1", Client.target("http://10.0.0.1:1"));
        assertThrows(IllegalArgumentException.class, () -> new Client(List.of(), "t"));
    }

    @Test
    void abortedIsReplacedAndAuthErrorsAreFatal() {
        assertInstanceOf(ArenaBotException.Replaced.class, Client.fatal(Status.ABORTED.withDescription("replaced")));
        ArenaBotException refused = Client.fatal(Status.UNAUTHENTICATED.withDescription("no"));
        assertInstanceOf(ArenaBotException.Refused.class, refused);
        assertEquals(Status.Code.UNAUTHENTICATED, ((ArenaBotException.Refused) refused).code());
        assertNull(Client.fatal(Status.UNAVAILABLE));
        assertNull(Client.fatal(Status.OK));
    }

    @Test
    void backoffJitterStaysBetweenHalfAndAll() {
        for (int i = 0; i < 1000; i++) {
            Duration d = Client.jitter(Duration.ofMillis(1000));
            assertTrue(d.toMillis() >= 500 && d.toMillis() < 1000, d.toString());
        }
    }

    @Test
    void aTurnKnowsItsTimeAndSupersession() {
        ActionRequest request = ActionRequest.newBuilder()
                .setMatchId("m")
                .setSequence(4)
                .setAllowance(com.google.protobuf.Duration.newBuilder().setSeconds(1))
                .setTimeBank(com.google.protobuf.Duration.newBuilder().setSeconds(2))
                .addLegalActions("G1 G2")
                .build();
        AtomicLong latest = new AtomicLong(4);
        Turn turn = new Turn(request, null, latest);
        assertTrue(turn.timeLeft().toMillis() > 2900 && turn.timeLeft().toMillis() <= 3000);
        assertTrue(turn.freeTimeLeft().toMillis() <= 1000);
        assertEquals("", turn.game());
        assertFalse(turn.isSuperseded());
        latest.set(5);
        assertTrue(turn.isSuperseded());
    }
}
