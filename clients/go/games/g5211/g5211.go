// Package g5211 holds the 5211 helpers: a turn's typed 5211 observation and its legal plays as cards.
//
//	view, err := g5211.Observation(turn) // *arenapb.Game5211Observation: HandCards, LaidCards, Points...
//	plays := g5211.LegalPlays(turn)      // [["G3" "Y1"] ...]
package g5211

import (
	"fmt"
	"strings"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
)

// Game is the game's registry name.
const Game = "5211"

// Colours are the five colour letters of 5211.
const Colours = "BGOVY"

// Observation is the seat's 5211 observation; an error if the turn is of another game (or has none).
func Observation(turn *arenabot.Turn) (*arenapb.Game5211Observation, error) {
	view := turn.Observation.GetGame_5211()
	if turn.Game != Game || view == nil {
		return nil, fmt.Errorf("match %s plays %q, not 5211", turn.MatchID, turn.Game)
	}
	return view, nil
}

// LegalPlays are the legal plays, each the cards it lays ("G3 Y1" is ["G3" "Y1"]).
func LegalPlays(turn *arenabot.Turn) [][]string {
	plays := make([][]string, len(turn.LegalActions))
	for i, action := range turn.LegalActions {
		plays[i] = strings.Fields(action)
	}
	return plays
}

// ParseCard splits a card such as "G3" into its colour letter and value.
func ParseCard(card string) (colour byte, value int) {
	if len(card) < 2 {
		return 0, 0
	}
	return card[0], int(card[1] - '0')
}
