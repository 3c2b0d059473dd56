package azul

import (
	"encoding/hex"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
)

// greyTiling is the server's Observation of seat 0 of a 3-player grey-wall match in round 2's tiling
// (arena.catalogue.observation_to_proto of the engine's observation, serialized).
const greyTiling = "1ad80308001003180220642802300242030001024a004a004a004a004a004a004a0060026a7012030a015712030a015212090a01570a01570a015712090a014b0a014b0a014b12060a014b0a014b1a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201592201592201592201596a6812030a015212030a015712060a01570a015712030a014b12060a01570a01571a0b0a000a000a000a01590a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201522201422201422201426a7112030a014b120012030a014212090a014b0a014b0a014b12060a01420a01421a0a0a000a000a000a000a001a0b0a01420a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a0022015322015922015222015222015222015222015272050c070809087a01427a01597a01597a01597a01597a01597a01597a01597a01527a01527a01527a01527a014b7a01577a01577a015782012e08011a001a03313a341a03323a31220022080a0608011004180122080a060802100118012a03060e013203000000"

func TestObservationAndLegalActionsOfAGreyWallTilingTurn(t *testing.T) {
	raw, _ := hex.DecodeString(greyTiling)
	envelope := &arenapb.Observation{}
	if err := proto.Unmarshal(raw, envelope); err != nil {
		t.Fatal(err)
	}
	turn := &arenabot.Turn{MatchID: "m", Game: "azul", Observation: envelope, LegalActions: []string{"1:1 3:2", "1:5 3:4"}}
	view, err := Observation(turn)
	if err != nil || view.GetWallSide() != arenapb.AzulObservation_WALL_SIDE_GREY ||
		view.GetPhase() != arenapb.AzulObservation_PHASE_TILING || view.GetNumPlayers() != 3 || len(view.GetBoards()) != 3 {
		t.Fatalf("%v, %v", view, err)
	}
	actions, err := LegalActions(turn)
	if err != nil || len(actions) != 2 || !slices.Equal(actions[1].Tiling, []Placement{{1, 5}, {3, 4}}) {
		t.Fatalf("%v, %v", actions, err)
	}
	for i, action := range actions {
		if action.String() != turn.LegalActions[i] || !action.IsTiling() {
			t.Errorf("%v prints as %q", action, action.String())
		}
	}
}

func TestTakesParseAndPrint(t *testing.T) {
	for text, take := range map[string]Take{"3 R 4": {3, 'R', 4}, "C K F": {Centre, 'K', Floor}, "0 W 1": {0, 'W', 1}} {
		action, err := ParseAction(text)
		if err != nil || action.IsTiling() || action.Take != take || action.String() != text {
			t.Errorf("ParseAction(%q) = %v, %v", text, action, err)
		}
	}
	tiling, err := ParseAction("2:4 5:F")
	if err != nil || !slices.Equal(tiling.Tiling, []Placement{{2, 4}, {5, Floor}}) {
		t.Errorf("%v, %v", tiling, err)
	}
}

func TestAnotherGamesTurnOrAnUnknownActionIsAnError(t *testing.T) {
	turn := &arenabot.Turn{MatchID: "m", Game: "coloretto", Observation: &arenapb.Observation{}}
	if _, err := Observation(turn); err == nil || err.Error() != `match m plays "coloretto", not azul` {
		t.Fatalf("error %v", err)
	}
	for _, text := range []string{"", "3 R", "9 R 4", "3 G 4", "3 R 6", "C K F F", "2:6", "3:1 2:4", "2:4:1", "take 1"} {
		if _, err := ParseAction(text); err == nil {
			t.Errorf("ParseAction(%q) is no error", text)
		}
	}
}
