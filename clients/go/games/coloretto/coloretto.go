// Package coloretto holds the Coloretto helpers: a turn's typed Coloretto observation and its legal
// actions, parsed.
//
//	view, err := coloretto.Observation(turn) // *arenapb.ColorettoObservation: Rows, Collections, Drawn...
//	moves, err := coloretto.LegalMoves(turn) // [{Draw -1} {Take 2} ...]
package coloretto

import (
	"fmt"
	"strconv"
	"strings"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
)

// Game is the game's registry name.
const Game = "coloretto"

// Kind is one of Coloretto's three decisions.
type Kind int

const (
	// Draw draws the next card from the pile.
	Draw Kind = iota
	// Place puts the drawn card in a row.
	Place
	// Take takes a row and sits out the rest of the round.
	Take
)

// Move is one Coloretto action: Draw (Row -1), or Place or Take with a 0-based row.
type Move struct {
	Kind Kind
	Row  int
}

// Observation is the seat's Coloretto observation; an error if the turn is of another game (or has none).
func Observation(turn *arenabot.Turn) (*arenapb.ColorettoObservation, error) {
	view := turn.Observation.GetGameColoretto()
	if turn.Game != Game || view == nil {
		return nil, fmt.Errorf("match %s plays %q, not coloretto", turn.MatchID, turn.Game)
	}
	return view, nil
}

// ParseMove reads an action in the contract's notation: "draw", "place r" or "take r".
func ParseMove(text string) (Move, error) {
	fields := strings.Fields(text)
	switch {
	case len(fields) == 1 && fields[0] == "draw":
		return Move{Kind: Draw, Row: -1}, nil
	case len(fields) == 2 && (fields[0] == "place" || fields[0] == "take"):
		row, err := strconv.Atoi(fields[1])
		if err == nil && row >= 0 && row <= 9 {
			kind := Place
			if fields[0] == "take" {
				kind = Take
			}
			return Move{Kind: kind, Row: row}, nil
		}
	}
	return Move{}, fmt.Errorf("not a Coloretto action: %q", text)
}

// LegalMoves are the legal actions, parsed.
func LegalMoves(turn *arenabot.Turn) ([]Move, error) {
	moves := make([]Move, len(turn.LegalActions))
	for i, action := range turn.LegalActions {
		move, err := ParseMove(action)
		if err != nil {
			return nil, err
		}
		moves[i] = move
	}
	return moves, nil
}
