package arena.bot.bots;

import arena.bot.Bot;
import arena.bot.Turn;
import arena.bot.games.Game5211;
import arena.bot.games.Game5211.Card;
import arena.v1.Game5211.Game5211Observation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * 5211: for each legal play, samples what the other seats may still lay this round from the cards this seat has not
 * seen, scores the round by the rules, and lays the play with the best expected points, less a small cost for spending
 * high cards (they may score in a later round). In a game it has no heuristic for, it plays a uniformly random legal
 * action.
 */
public final class HeuristicBot implements Bot {
    /** Cards each seat lays from the start of turn 1, 2 and 3 to the end of the round. */
    private static final int[] LEFT_TO_LAY = {4, 2, 1};

    private final Random random;
    private final RandomBot fallback;
    private final int samples;
    private final double spendCost;

    /** A heuristic bot with 24 samples per decision. */
    public HeuristicBot(Long seed) {
        this.random = seed == null ? new Random() : new Random(seed);
        this.fallback = new RandomBot(seed == null ? null : seed ^ 0x5eed);
        this.samples = 24;
        this.spendCost = 0.35;
    }

    @Override
    public String act(Turn turn) {
        if (!Game5211.GAME.equals(turn.game()) || !turn.observation().hasGame5211()) {
            return fallback.act(turn);
        }
        return turn.legalActions().get(choose(turn, Game5211.observation(turn)));
    }

    /** The index of the best legal play (0 when there is nothing to judge). */
    int choose(Turn turn, Game5211Observation observation) {
        List<String> actions = turn.legalActions();
        if (actions.size() < 2 || observation.getTurn() < 1 || observation.getTurn() > 3) {
            return 0;
        }
        int players = observation.getNumPlayers();
        int me = observation.hasSeat() ? observation.getSeat() : turn.seat();
        if (me >= players) {
            return 0;
        }
        List<List<Card>> laid = new ArrayList<>();
        for (int seat = 0; seat < players; seat++) {
            laid.add(seat < observation.getLaidCardsCount()
                    ? Game5211.parseCards(observation.getLaidCards(seat).getCardsList())
                    : List.of());
        }
        // Sample the others' remaining cards this round once, and judge every play on the same samples.
        List<Card> unseen = Game5211.unseenCards(observation);
        int perSeat = LEFT_TO_LAY[observation.getTurn() - 1];
        int wanted = Math.min(perSeat * (players - 1), unseen.size());
        List<List<List<Card>>> sampled = new ArrayList<>();
        synchronized (random) {
            for (int s = 0; s < samples; s++) {
                // A partial Fisher-Yates shuffle: the first `wanted` cards are a uniform sample.
                for (int i = 0; i < wanted; i++) {
                    Collections.swap(unseen, i, i + random.nextInt(unseen.size() - i));
                }
                List<List<Card>> round = new ArrayList<>();
                int next = 0;
                for (int seat = 0; seat < players; seat++) {
                    List<Card> cards = new ArrayList<>(laid.get(seat));
                    if (seat != me) {
                        int end = Math.min(next + perSeat, wanted);
                        cards.addAll(unseen.subList(next, end));
                        next = end;
                    }
                    round.add(cards);
                }
                sampled.add(round);
            }
        }
        int best = 0;
        double bestValue = Double.NEGATIVE_INFINITY;
        List<List<Card>> plays = Game5211.legalPlays(turn);
        for (int index = 0; index < plays.size(); index++) {
            List<Card> play = plays.get(index);
            int total = 0;
            for (List<List<Card>> sample : sampled) {
                List<List<Card>> round = new ArrayList<>(sample);
                List<Card> mine = new ArrayList<>(sample.get(me));
                mine.addAll(play);
                round.set(me, mine);
                total += Game5211.roundPoints(round)[me];
            }
            int spent = play.stream().mapToInt(Card::value).sum();
            double value = (double) total / sampled.size() - spendCost * spent;
            if (value > bestValue) {
                best = index;
                bestValue = value;
            }
        }
        return best;
    }
}
