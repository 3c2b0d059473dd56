package arenabot

import (
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"arena/clients/go/arenapb"
)

// The turn names no game: its game comes from MatchStarted and its observation is the envelope.

// playOne serves one match of game whose one request carries observation; the turn act saw and the
// answer it sent.
func playOne(t *testing.T, game string, observation *arenapb.Observation, legal []string) (*Turn, string) {
	t.Helper()
	answers := make(chan string, 1)
	_, address := serve(t, func(stream serverStream, _ int) error {
		if _, err := stream.Recv(); err != nil {
			return err
		}
		err := send(stream, welcome(),
			&arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_MatchStarted{MatchStarted: &arenapb.MatchStarted{
				MatchId: "m", Game: game, Seat: 0, NumPlayers: 3, BotNames: []string{"a", "b", "c"},
			}}},
			&arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_ActionRequest{ActionRequest: &arenapb.ActionRequest{
				MatchId: "m", Sequence: 1, Seat: 0, Allowance: durationpb.New(time.Second), Observation: observation, LegalActions: legal,
			}}})
		if err != nil {
			return err
		}
		action, err := nextAction(stream)
		if err != nil {
			return err
		}
		answers <- action.GetText()
		if err := send(stream, endedAt("m", 0)); err != nil {
			return err
		}
		<-stream.Context().Done()
		return nil
	})
	var seen *Turn
	act := func(_ context.Context, turn *Turn) (string, error) {
		seen = turn
		return turn.LegalActions[len(turn.LegalActions)-1], nil
	}
	if err := runWithin(t, 10, act, Config{Servers: []string{address}, Token: "t", MaxMatches: 1}); err != nil {
		t.Fatal(err)
	}
	return seen, <-answers
}

func TestAColorettoTurnCarriesItsGameAndTheColorettoObservation(t *testing.T) {
	view := &arenapb.ColorettoObservation{
		Seat: proto.Uint32(0), NumPlayers: 3, PileSize: 60,
		Rows: []*arenapb.ColorettoRow{{Cards: []string{"B", "J"}, Capacity: 3}, {Capacity: 3}},
	}
	envelope := &arenapb.Observation{Game: &arenapb.Observation_GameColoretto{GameColoretto: view}}
	turn, answer := playOne(t, "coloretto", envelope, []string{"draw", "take 0"})
	if turn.Game != "coloretto" || GameOfEnvelope(turn.Observation) != "coloretto" {
		t.Fatalf("game %q, envelope of %q", turn.Game, GameOfEnvelope(turn.Observation))
	}
	got := turn.Observation.GetGameColoretto()
	if got.GetPileSize() != 60 || !slices.Equal(got.GetRows()[0].GetCards(), []string{"B", "J"}) {
		t.Fatalf("observation = %v", got)
	}
	if turn.Observation.GetGame_5211() != nil || answer != "take 0" {
		t.Fatalf("a 5211 observation %v, answer %q", turn.Observation.GetGame_5211(), answer)
	}
}

func TestATurnOfAGameThisBuildDoesNotKnowStillHasItsLegalActions(t *testing.T) {
	// A game added after this build: its field of the oneof is unknown here (number 999).
	envelope := &arenapb.Observation{}
	unknown := protowire.AppendTag(nil, 999, protowire.BytesType)
	unknown = protowire.AppendBytes(unknown, []byte("whatever the new game says"))
	envelope.ProtoReflect().SetUnknown(unknown)
	turn, answer := playOne(t, "some-new-game", envelope, []string{"pass", "play 7"})
	if turn.Game != "some-new-game" || GameOfEnvelope(turn.Observation) != "" || turn.Observation.GetGame() != nil {
		t.Fatalf("game %q, envelope %v", turn.Game, turn.Observation)
	}
	if !slices.Equal(turn.LegalActions, []string{"pass", "play 7"}) || answer != "play 7" {
		t.Fatalf("legal %v, answer %q", turn.LegalActions, answer)
	}
}

func TestGameOfEnvelopeReadsTheSetField(t *testing.T) {
	for envelope, want := range map[*arenapb.Observation]string{
		nil: "",
		{}:  "",
		{Game: &arenapb.Observation_Game_5211{Game_5211: &arenapb.Game5211Observation{}}}:          "5211",
		{Game: &arenapb.Observation_GameColoretto{GameColoretto: &arenapb.ColorettoObservation{}}}: "coloretto",
	} {
		if got := GameOfEnvelope(envelope); got != want {
			t.Errorf("GameOfEnvelope(%v) = %q, want %q", envelope, got, want)
		}
	}
}
