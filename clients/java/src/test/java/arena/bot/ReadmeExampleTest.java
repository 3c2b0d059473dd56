package arena.bot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import arena.v1.Bot.ActionRequest;
import java.util.Comparator;
import org.junit.jupiter.api.Test;

/** The README's complete bot, line for line (but for the run call): it compiles and chooses the highest cards. */
class ReadmeExampleTest {
    @Test
    void theReadmeBotLaysTheHighestCards() throws Exception {
        Comparator<String> byValue =
                Comparator.comparingInt(a -> a.chars().filter(Character::isDigit).map(c -> c - '0').sum());
        Bot greedy = turn -> turn.legalActions().stream().max(byValue).orElseThrow();
        Turn turn = Turn.fromRequest(
                ActionRequest.newBuilder().addLegalActions("G1 B2").addLegalActions("Y6 O1").build(), null);
        assertEquals("Y6 O1", greedy.act(turn));
    }
}
