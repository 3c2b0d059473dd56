package arena.bot.games;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import arena.bot.games.Game5211.Card;
import arena.v1.Game5211.Game5211Cards;
import arena.v1.Game5211.Game5211Observation;
import java.util.List;
import org.junit.jupiter.api.Test;

class Game5211Test {
    private static List<Card> cards(String text) {
        return Game5211.parseCards(text);
    }

    @Test
    void cardsParseAndPrint() {
        assertEquals(new Card(1, 3), Card.parse("G3"));
        assertEquals("Y6", Card.parse("Y6").toString());
        for (String bad : List.of("Z9", "G7", "G0", "G", "", "G33", "g3")) {
            assertNull(Card.parse(bad), bad);
        }
        assertEquals(2, cards("B1 O2").size());
    }

    @Test
    void theMajorityColourBelowTheLimitScores() {
        // Two players: limit 5. Green 3, blue 2: green wins.
        assertArrayEquals(new int[] {7, 2}, Game5211.roundPoints(List.of(cards("G3 G4 B1 O2"), cards("G2 B5 V2 Y2"))));
    }

    @Test
    void aColourAtTheLimitIsDeadAndTiesAreRemoved() {
        // Green 5 is dead at the limit of 5; blue, orange and violet tie at 1: nobody scores.
        assertEquals(-1, Game5211.winningColour(new int[] {1, 5, 1, 1, 0}, 5));
        assertArrayEquals(new int[] {0, 0}, Game5211.roundPoints(List.of(cards("G3 G4 G2 B2"), cards("G5 G6 O2 V3"))));
        // Green 2 and blue 2 tie; orange 1 alone wins.
        assertEquals(2, Game5211.winningColour(new int[] {2, 2, 1, 0, 0}, 5));
        assertEquals(3, Game5211.winningColour(new int[] {1, 3, 3, 2, 0}, 5));
    }

    @Test
    void exactlyPPlusTwoKododosScoreAlone() {
        assertArrayEquals(new int[] {2, 2}, Game5211.roundPoints(List.of(cards("G1 B1 G6 G5"), cards("O1 V1 G4 G3"))));
    }

    @Test
    void unseenCardsExcludeHandAndLaidCardsOfThisDeck() {
        Game5211Observation observation = Game5211Observation.newBuilder()
                .setNumPlayers(2)
                .setRound(1)
                .setRoundsPerDeck(11)
                .addAllHandCards(List.of("G6", "B1"))
                .addLaidCards(Game5211Cards.getDefaultInstance())
                .addLaidCards(Game5211Cards.newBuilder().addCards("Y5"))
                .build();
        List<Card> unseen = Game5211.unseenCards(observation);
        assertEquals(97, unseen.size());
        assertFalse(unseen.contains(Card.parse("G6")));
        assertFalse(unseen.contains(Card.parse("Y5")));
        assertEquals(4, unseen.stream().filter(c -> c.equals(Card.parse("B1"))).count());
    }
}
