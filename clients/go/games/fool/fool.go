// Package fool holds the FOOL! helpers: a turn's typed FOOL! observation and its legal actions, parsed.
//
//	view, err := fool.Observation(turn)      // *arenapb.FoolObservation: Hand, HandSizes, Trick, Totals...
//	cards, err := fool.LegalCards(turn)      // [{'R' 2} {'W' 1} ...]: the cards of your hand you may play
package fool

import (
	"fmt"
	"strconv"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
)

// Game is the game's registry name.
const Game = "fool"

// highest is each colour's highest value; the wild W1 is the one card of colour 'W'.
var highest = map[byte]int{'G': 27, 'R': 23, 'Y': 21, 'B': 15, 'W': 1}

// Card is one FOOL! card: Colour one of "GRYB", or 'W' for the wild W1; Value its face value.
type Card struct {
	Colour byte
	Value  int
}

// IsWild tells the wild W1.
func (c Card) IsWild() bool { return c.Colour == 'W' }

// String is the card's token, e.g. "G27" or "W1".
func (c Card) String() string { return fmt.Sprintf("%c%d", c.Colour, c.Value) }

// Observation is the seat's FOOL! observation; an error if the turn is of another game (or has none).
func Observation(turn *arenabot.Turn) (*arenapb.FoolObservation, error) {
	view := turn.Observation.GetGameFool()
	if turn.Game != Game || view == nil {
		return nil, fmt.Errorf("match %s plays %q, not fool", turn.MatchID, turn.Game)
	}
	return view, nil
}

// ParseCard reads a card token: G2-G27, R2-R23, Y2-Y21, B2-B15 or the wild W1.
func ParseCard(text string) (Card, error) {
	if len(text) >= 2 {
		top, known := highest[text[0]]
		value, err := strconv.Atoi(text[1:])
		low := 2
		if text[0] == 'W' {
			low = 1
		}
		if known && err == nil && value >= low && value <= top && strconv.Itoa(value) == text[1:] {
			return Card{text[0], value}, nil
		}
	}
	return Card{}, fmt.Errorf("not a FOOL! card: %q", text)
}

// LegalCards are the legal actions, parsed: cards of the seat's own hand.
func LegalCards(turn *arenabot.Turn) ([]Card, error) {
	cards := make([]Card, len(turn.LegalActions))
	for i, text := range turn.LegalActions {
		card, err := ParseCard(text)
		if err != nil {
			return nil, err
		}
		cards[i] = card
	}
	return cards, nil
}
