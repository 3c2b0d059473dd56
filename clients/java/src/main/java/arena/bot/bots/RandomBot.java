package arena.bot.bots;

import arena.bot.Bot;
import arena.bot.Turn;
import java.util.Random;

/** Plays a uniformly random legal action, in any game: it reads nothing but the legal actions. */
public final class RandomBot implements Bot {
    private final Random random;

    /** A random bot; the same seed gives the same choices for the same requests. */
    public RandomBot(Long seed) {
        this.random = seed == null ? new Random() : new Random(seed);
    }

    @Override
    public String act(Turn turn) {
        synchronized (random) {
            return turn.legalActions().get(random.nextInt(turn.legalActions().size()));
        }
    }
}
