// Package azul holds the Azul helpers: a turn's typed Azul observation and its legal actions, parsed.
//
//	view, err := azul.Observation(turn)         // *arenapb.AzulObservation: Factories, CentreTiles, Boards...
//	actions, err := azul.LegalActions(turn)     // takes "3 R 4", "C K F"; grey-wall tilings "2:4 5:1"
package azul

import (
	"fmt"
	"strings"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
)

// Game is the game's registry name.
const Game = "azul"

// Centre is the Source of a take from the centre; Floor the Target of a take to the floor line, and
// the Column of a tiling's line that has no legal column.
const (
	Centre = -1
	Floor  = 0
)

// Take takes every tile of Colour (one of "BYRKW") from Source (a factory index or Centre) to Target
// (a pattern line 1-5 or Floor).
type Take struct {
	Source int
	Colour byte
	Target int
}

// Placement puts a grey-wall tiling's full Line (1-5) in Column (1-5, or Floor for none).
type Placement struct {
	Line   int
	Column int
}

// Action is one Azul action: a Take in the factory offer, or a grey-wall Tiling (one Placement per
// full line, top to bottom); Tiling is nil for a take.
type Action struct {
	Take   Take
	Tiling []Placement
}

// IsTiling tells a tiling from a take.
func (a Action) IsTiling() bool { return a.Tiling != nil }

// String is the action in the contract's notation.
func (a Action) String() string {
	if a.IsTiling() {
		parts := make([]string, len(a.Tiling))
		for i, p := range a.Tiling {
			parts[i] = fmt.Sprintf("%d:%s", p.Line, number(p.Column, Floor, "F"))
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprintf("%s %c %s", number(a.Take.Source, Centre, "C"), a.Take.Colour, number(a.Take.Target, Floor, "F"))
}

func number(n, special int, letter string) string {
	if n == special {
		return letter
	}
	return fmt.Sprint(n)
}

// Observation is the seat's Azul observation; an error if the turn is of another game (or has none).
func Observation(turn *arenabot.Turn) (*arenapb.AzulObservation, error) {
	view := turn.Observation.GetGameAzul()
	if turn.Game != Game || view == nil {
		return nil, fmt.Errorf("match %s plays %q, not azul", turn.MatchID, turn.Game)
	}
	return view, nil
}

// ParseAction reads an action in the contract's notation: a take "source colour target" ("3 R 4",
// "C K F") or a grey-wall tiling "line:column ..." ("2:4 5:1", "1:F").
func ParseAction(text string) (Action, error) {
	fields := strings.Fields(text)
	bad := fmt.Errorf("not an Azul action: %q", text)
	if strings.Contains(text, ":") {
		if len(fields) == 0 || len(fields) > 5 {
			return Action{}, bad
		}
		tiling := make([]Placement, len(fields))
		for i, field := range fields {
			if len(field) != 3 || field[1] != ':' || field[0] < '1' || field[0] > '5' {
				return Action{}, bad
			}
			line := int(field[0] - '0')
			if i > 0 && line <= tiling[i-1].Line {
				return Action{}, bad
			}
			switch c := field[2]; {
			case c == 'F':
				tiling[i] = Placement{line, Floor}
			case c >= '1' && c <= '5':
				tiling[i] = Placement{line, int(c - '0')}
			default:
				return Action{}, bad
			}
		}
		return Action{Tiling: tiling}, nil
	}
	if len(fields) != 3 || len(fields[0]) != 1 || len(fields[1]) != 1 || len(fields[2]) != 1 {
		return Action{}, bad
	}
	take := Take{Colour: fields[1][0]}
	switch s := fields[0][0]; {
	case s == 'C':
		take.Source = Centre
	case s >= '0' && s <= '8':
		take.Source = int(s - '0')
	default:
		return Action{}, bad
	}
	if !strings.Contains("BYRKW", fields[1]) {
		return Action{}, bad
	}
	switch t := fields[2][0]; {
	case t == 'F':
		take.Target = Floor
	case t >= '1' && t <= '5':
		take.Target = int(t - '0')
	default:
		return Action{}, bad
	}
	return Action{Take: take}, nil
}

// LegalActions are the legal actions, parsed.
func LegalActions(turn *arenabot.Turn) ([]Action, error) {
	actions := make([]Action, len(turn.LegalActions))
	for i, text := range turn.LegalActions {
		action, err := ParseAction(text)
		if err != nil {
			return nil, err
		}
		actions[i] = action
	}
	return actions, nil
}
