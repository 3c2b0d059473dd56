package arena.bot.bots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arena.bot.Turn;
import arena.v1.Bot.ActionRequest;
import arena.v1.Game5211.Game5211Cards;
import arena.v1.Game5211.Game5211Observation;
import arena.v1.ObservationOuterClass.Observation;
import java.util.List;
import org.junit.jupiter.api.Test;

class BotsTest {
    private static Turn turn(List<String> hand, List<String> laidByOther, int turn, List<String> legal) {
        Game5211Observation observation = Game5211Observation.newBuilder()
                .setSeat(0)
                .setNumPlayers(2)
                .setRound(1)
                .setRoundsPerDeck(11)
                .setTurn(turn)
                .setCardsToLay(turn == 1 ? 2 : 1)
                .addAllHandCards(hand)
                .addLaidCards(Game5211Cards.getDefaultInstance())
                .addLaidCards(Game5211Cards.newBuilder().addAllCards(laidByOther))
                .build();
        return Turn.fromRequest(
                ActionRequest.newBuilder()
                        .setMatchId("m")
                        .setSequence(1)
                        .setObservation(Observation.newBuilder().setGame5211(observation))
                        .addAllLegalActions(legal)
                        .build(),
                null);
    }

    @Test
    void randomBotPlaysOnlyLegalActions() {
        RandomBot bot = new RandomBot(1L);
        Turn t = turn(List.of("B1", "G2"), List.of(), 2, List.of("B1", "G2"));
        for (int i = 0; i < 50; i++) {
            assertTrue(t.legalActions().contains(bot.act(t)));
        }
    }

    @Test
    void heuristicBotJoinsTheColourThatCanWin() {
        // The other seat laid two yellows; with one card to lay each in the last turn, a yellow 6 makes yellow 3 of
        // 5 (below the limit of 5, and a clear majority): it should score.
        List<String> legal = List.of("B2", "G3", "O2", "V2", "Y6");
        assertEquals("Y6", new HeuristicBot(3L).act(turn(legal, List.of("Y2", "Y3"), 3, legal)));
    }

    @Test
    void heuristicBotFallsBackToALegalActionWithoutAnObservation() {
        Turn t = Turn.fromRequest(ActionRequest.newBuilder().setMatchId("m").addLegalActions("G1").build(), null);
        assertEquals("G1", new HeuristicBot(null).act(t));
    }
}
