package fool

import (
	"encoding/hex"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
)

// midTrick is the server's Observation of seat 7 of an 8-player match in a trick of round 1
// (arena.catalogue.observation_to_proto of the engine's observation, serialized).
const midTrick = "22fe03080710081a0247321a0247331a0247341a0247351a0247361a0247371a0247381a0247391a034731301a034731311a034731321a034731331a034731341a034731351a034731361a034731371a034731381a034731391a034732301a034732311a034732321a034732331a034732341a034732351a034732361a034732371a0252321a0252331a0252341a0252351a0252361a0252371a0252381a0252391a035231301a035231311a035231321a035231331a035231341a035231351a035231361a035231371a035231381a035231391a035232301a035232311a035232321a035232331a0259321a0259331a0259341a0259351a0259361a0259371a0259381a0259391a035931301a035931311a035931321a035931331a035931341a035931351a035931361a035931371a035931381a035931391a035932301a035932311a0242321a0242331a0242341a0242351a0242361a0242371a0242381a0242391a034231301a034231311a034231321a034231331a034231341a034231351a0257311a0257311a0257311a0257311a0257311a025731200b28023005380140054a0247394a034732354a0252324a0252384a035231304a035232324a0259334a0259344a0242384a0257314a02573152080b0b0b0b0b0b0a0b58066a0708061203523137700278079a01080000000000000000a201080000000000000000"

func TestObservationAndLegalCardsOfAFoolTurn(t *testing.T) {
	raw, _ := hex.DecodeString(midTrick)
	envelope := &arenapb.Observation{}
	if err := proto.Unmarshal(raw, envelope); err != nil {
		t.Fatal(err)
	}
	turn := &arenabot.Turn{MatchID: "m", Game: "fool", Observation: envelope, LegalActions: []string{"R2", "R8", "R10", "R22", "W1"}}
	view, err := Observation(turn)
	if err != nil || view.GetNumPlayers() != 8 || view.GetSeat() != 7 || len(view.GetTrick()) == 0 || !slices.Contains(view.GetHand(), "R22") {
		t.Fatalf("%v, %v", view, err)
	}
	cards, err := LegalCards(turn)
	if err != nil || !slices.Equal(cards, []Card{{'R', 2}, {'R', 8}, {'R', 10}, {'R', 22}, {'W', 1}}) || !cards[4].IsWild() {
		t.Fatalf("%v, %v", cards, err)
	}
	for i, card := range cards {
		if card.String() != turn.LegalActions[i] {
			t.Errorf("%v prints as %q", card, card.String())
		}
	}
}

func TestAnotherGamesTurnOrAnUnknownCardIsAnError(t *testing.T) {
	turn := &arenabot.Turn{MatchID: "m", Game: "azul", Observation: &arenapb.Observation{}}
	if _, err := Observation(turn); err == nil || err.Error() != `match m plays "azul", not fool` {
		t.Fatalf("error %v", err)
	}
	for _, text := range []string{"", "G", "G1", "G28", "B16", "W2", "R02", "X5", "g5", "R 5"} {
		if _, err := ParseCard(text); err == nil {
			t.Errorf("ParseCard(%q) is no error", text)
		}
	}
}
