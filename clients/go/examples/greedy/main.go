// A complete bot (README.md): lay the highest cards I hold. Run: ARENA_TOKEN=... go run ./examples/greedy HOST:PORT
package main

import (
	"context"
	"log"
	"os"
	"strings"

	"arena/clients/go/arenabot"
)

func points(action string) (sum int) {
	for _, card := range strings.Fields(action) {
		sum += int(card[1] - '0')
	}
	return sum
}

func act(_ context.Context, turn *arenabot.Turn) (string, error) {
	best := turn.LegalActions[0]
	for _, action := range turn.LegalActions {
		if points(action) > points(best) {
			best = action
		}
	}
	return best, nil
}

func main() {
	if len(os.Args) != 2 || os.Getenv("ARENA_TOKEN") == "" {
		log.Fatal("usage: ARENA_TOKEN=... greedy HOST:PORT")
	}
	err := arenabot.Run(context.Background(), act, arenabot.Config{Servers: os.Args[1:2], Token: os.Getenv("ARENA_TOKEN")})
	log.Fatal(err)
}
