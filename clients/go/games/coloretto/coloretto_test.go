package coloretto

import (
	"slices"
	"testing"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
)

func TestObservationAndLegalMovesOfAColorettoTurn(t *testing.T) {
	view := &arenapb.ColorettoObservation{PileSize: 60}
	turn := &arenabot.Turn{
		MatchID: "m", Game: "coloretto", LegalActions: []string{"draw", "place 1", "take 2"},
		Observation: &arenapb.Observation{Game: &arenapb.Observation_GameColoretto{GameColoretto: view}},
	}
	got, err := Observation(turn)
	if err != nil || got.GetPileSize() != 60 {
		t.Fatalf("%v, %v", got, err)
	}
	moves, err := LegalMoves(turn)
	if err != nil || !slices.Equal(moves, []Move{{Draw, -1}, {Place, 1}, {Take, 2}}) {
		t.Fatalf("%v, %v", moves, err)
	}
}

func TestAnotherGamesTurnOrAnUnknownActionIsAnError(t *testing.T) {
	turn := &arenabot.Turn{MatchID: "m", Game: "5211", Observation: &arenapb.Observation{}}
	if _, err := Observation(turn); err == nil || err.Error() != `match m plays "5211", not coloretto` {
		t.Fatalf("error %v", err)
	}
	for _, text := range []string{"", "take", "take x", "draw 1", "G3 Y1"} {
		if _, err := ParseMove(text); err == nil {
			t.Errorf("ParseMove(%q) is no error", text)
		}
	}
}
