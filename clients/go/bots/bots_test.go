package bots

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
)

func observation(turn uint32, seat0, seat1 []string) *arenapb.Game5211Observation {
	return &arenapb.Game5211Observation{
		Seat:         proto.Uint32(0),
		NumPlayers:   2,
		Round:        1,
		Turn:         turn,
		CardsToLay:   1,
		LaidCards:    []*arenapb.Game5211Cards{{Cards: seat0}, {Cards: seat1}},
		DrawPileSize: 70,
	}
}

func choose(t *testing.T, obs *arenapb.Game5211Observation, legal ...string) string {
	t.Helper()
	envelope := &arenapb.Observation{Game: &arenapb.Observation_Game_5211{Game_5211: obs}}
	action, err := Heuristic(nil)(context.Background(), &arenabot.Turn{Game: "5211", Observation: envelope, LegalActions: legal})
	if err != nil {
		t.Fatal(err)
	}
	return action
}

func TestBinomialBelowIsACumulativeDistribution(t *testing.T) {
	for _, c := range []struct {
		n, k int
		p    float64
		want float64
	}{{0, 1, 0.2, 1}, {5, 0, 0.2, 0}, {1, 1, 0.2, 0.8}, {2, 2, 0.5, 0.75}, {10, 11, 0.2, 1}} {
		if got := BinomialBelow(c.n, c.p, c.k); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("BinomialBelow(%d, %v, %d) = %v, want %v", c.n, c.p, c.k, got, c.want)
		}
	}
}

func TestRandomPlaysOnlyLegalActions(t *testing.T) {
	legal := []string{"B1 G2", "G2 Y6", "B1 Y6"}
	act := Random(nil)
	for range 50 {
		action, err := act(context.Background(), &arenabot.Turn{LegalActions: legal})
		if err != nil || !slices.Contains(legal, action) {
			t.Fatalf("random played %q (%v)", action, err)
		}
	}
	if _, err := act(context.Background(), &arenabot.Turn{}); err == nil {
		t.Error("no legal actions should be an error")
	}
}

func TestHeuristicJoinsTheLeadingColourWithItsHighestCard(t *testing.T) {
	obs := observation(3, []string{"G2", "O2", "G3"}, []string{"G1", "O3", "B2"})
	if got := choose(t, obs, "G6", "O5", "V1"); got != "G6" {
		t.Errorf("chose %s, want G6", got)
	}
}

func TestHeuristicDoesNotKillItsOwnColourAtTheLimit(t *testing.T) {
	// Green has 4 of the 5 that kill it in a 2-player round, and 3 of them are mine.
	obs := observation(3, []string{"G2", "G3", "G4"}, []string{"G1", "O2", "O3"})
	if got := choose(t, obs, "G6", "O5"); got != "O5" {
		t.Errorf("chose %s, want O5", got)
	}
}

func TestHeuristicKillsAColourThatWouldScoreForTheOthers(t *testing.T) {
	obs := observation(3, []string{"G2", "O2", "O3"}, []string{"G1", "G3", "G4"})
	if got := choose(t, obs, "B5", "G6"); got != "G6" {
		t.Errorf("chose %s, want G6", got)
	}
}

func TestHeuristicSpendsItsLowCardInADeadColourUnlessTheDeckEnds(t *testing.T) {
	obs := observation(3, []string{"Y1", "Y3", "B1"}, []string{"Y4", "Y5", "Y2"})
	if got := choose(t, obs, "Y2", "Y6"); got != "Y2" {
		t.Errorf("chose %s, want Y2", got)
	}
	obs.DrawPileSize = 0 // unplayed cards are lost: nothing to keep them for
	if a, b := ScorePlay(obs, []string{"Y2"}), ScorePlay(obs, []string{"Y6"}); a != b {
		t.Errorf("in the last round both should score the same, got %v and %v", a, b)
	}
}

func TestInAGameWithoutAHeuristicTheHeuristicPlaysARandomLegalAction(t *testing.T) {
	legal := []string{"draw", "take 0", "take 2"}
	turn := &arenabot.Turn{Game: "some-new-game", Observation: &arenapb.Observation{}, LegalActions: legal}
	heuristic := Heuristic(rand.New(rand.NewPCG(1, 2)))
	seen := map[string]bool{}
	for range 60 {
		action, err := heuristic(context.Background(), turn)
		if err != nil || !slices.Contains(legal, action) {
			t.Fatalf("%q, %v", action, err)
		}
		seen[action] = true
	}
	if len(seen) != len(legal) {
		t.Fatalf("played only %v of %v", seen, legal)
	}
}
