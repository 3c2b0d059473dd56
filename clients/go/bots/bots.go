// Package bots holds the starter bots: a uniformly random one that plays every game from the legal
// actions alone, and a heuristic one that plays 5211 far better than random and any other game at random.
//
// The 5211 heuristic ("colour fit") scores each legal play by the points its seat's cards of this round
// are expected to score once the play is laid: each colour gets a weight, the chance that it wins
// the round, from how far it leads the other live colours and how likely the cards still to come
// push it to the limit; high values in a likely winner score most. Spending a card costs a little
// (it could score in a later round), except in the deck's last round, when unplayed cards are lost.
// The TypeScript kit's heuristic is the same algorithm.
package bots

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
	"arena/clients/go/games/g5211"
)

// Colours are the five colour letters of 5211.
const Colours = g5211.Colours

// leftToLay is the number of cards each seat lays from the start of turn 1, 2 or 3 to the round's end.
var leftToLay = [4]int{0, 4, 2, 1}

// spendCost is what a card in hand is worth, per point of value, for a later round.
const spendCost = 0.3

// Random is the random bot: a uniformly random legal action, in any game. rng may be nil (then a seeded-at-random
// generator is used); it is locked, since turns of several matches run at once.
func Random(rng *rand.Rand) arenabot.ActFunc {
	if rng == nil {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	var mu sync.Mutex
	return func(_ context.Context, turn *arenabot.Turn) (string, error) {
		if len(turn.LegalActions) == 0 {
			return "", errors.New("no legal actions listed: " + turn.ActionHint)
		}
		mu.Lock()
		defer mu.Unlock()
		return turn.LegalActions[rng.IntN(len(turn.LegalActions))], nil
	}
}

// Heuristic is the heuristic bot: in 5211, the legal play with the best colour-fit score; in a game it
// has no heuristic for (or a 5211 turn without an observation), the random bot's choice (rng as Random's).
func Heuristic(rng *rand.Rand) arenabot.ActFunc {
	fallback := Random(rng)
	return func(ctx context.Context, turn *arenabot.Turn) (string, error) {
		if len(turn.LegalActions) == 0 {
			return "", errors.New("no legal actions listed: " + turn.ActionHint)
		}
		view, err := g5211.Observation(turn)
		if err != nil {
			return fallback(ctx, turn)
		}
		best, bestScore := turn.LegalActions[0], math.Inf(-1)
		for i, cards := range g5211.LegalPlays(turn) {
			if score := ScorePlay(view, cards); score > bestScore {
				best, bestScore = turn.LegalActions[i], score
			}
		}
		return best, nil
	}
}

// ScorePlay is the colour-fit score of laying cards now (higher is better).
func ScorePlay(obs *arenapb.Game5211Observation, cards []string) float64 {
	players := int(obs.GetNumPlayers())
	limit := players + 3
	me := int(obs.GetSeat())
	counts := map[byte]int{}
	for _, laid := range obs.GetLaidCards() {
		for _, card := range laid.GetCards() {
			counts[card[0]]++
		}
	}
	for _, card := range cards {
		counts[card[0]]++
	}
	// Cards the other seats still lay this round, from this turn on; their colours are unknown.
	turn := int(obs.GetTurn())
	unknown := 0
	if turn >= 1 && turn <= 3 {
		unknown = (players - 1) * leftToLay[turn]
	}
	weight := map[byte]float64{}
	for i := range len(Colours) {
		colour := Colours[i]
		count := counts[colour]
		if count >= limit {
			continue // dead: it cannot win this round
		}
		rival := 0
		for j := range len(Colours) {
			if n := counts[Colours[j]]; j != i && n < limit {
				rival = max(rival, n)
			}
		}
		alive := BinomialBelow(unknown, 0.2, limit-count)
		weight[colour] = alive / (1 + math.Exp(-float64(count-rival)))
	}
	var mine []string
	if laid := obs.GetLaidCards(); me < len(laid) {
		mine = append(mine, laid[me].GetCards()...)
	}
	mine = append(mine, cards...)
	score := 0.0
	for _, card := range mine {
		colour, value := g5211.ParseCard(card)
		score += float64(value) * weight[colour]
	}
	if lastRound := obs.GetDrawPileSize() == 0; !lastRound {
		for _, card := range cards {
			_, value := g5211.ParseCard(card)
			score -= spendCost * float64(value)
		}
	}
	return score
}

// BinomialBelow is P(X < k) for X ~ Binomial(n, p).
func BinomialBelow(n int, p float64, k int) float64 {
	total := 0.0
	term := math.Pow(1-p, float64(n)) // P(X = 0)
	for i := 0; i < k && i <= n; i++ {
		total += term
		term *= float64(n-i) / float64(i+1) * p / (1 - p)
	}
	return min(1, total)
}

// Strategies are the starter bots by the name the command line knows them by.
var Strategies = map[string]func() arenabot.ActFunc{
	"random":    func() arenabot.ActFunc { return Random(nil) },
	"heuristic": func() arenabot.ActFunc { return Heuristic(nil) },
}
