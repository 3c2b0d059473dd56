// Command bot runs a starter bot against an arena:
//
//	bin/bot --server HOST:PORT[,HOST:PORT...] --token TOKEN [--strategy random|heuristic]
//	        [--max-matches N] [--invalid-first] [--concurrency N] [--tls] [--verbose]
//
// It plays until killed, or until it has finished N matches (then exits 0). One line per event on
// stdout: "welcome <bot_name>", "started <match_id> <seat>", "rejected <match_id> <sequence> <fault>"
// (the Fault enum's name, e.g. FAULT_INVALID_ACTION), "ended <match_id> <placing>", "reconnecting".
// Logs go to stderr. Exit status 2: the server refused the token, or another connection took over.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc/credentials"

	"arena/clients/go/arenabot"
	"arena/clients/go/arenapb"
	"arena/clients/go/bots"
)

// serverList is a repeatable, comma-separated --server flag.
type serverList []string

func (s *serverList) String() string { return strings.Join(*s, ",") }

func (s *serverList) Set(value string) error {
	for _, address := range strings.Split(value, ",") {
		if address = strings.TrimSpace(address); address != "" {
			*s = append(*s, address)
		}
	}
	return nil
}

// say prints one event line on stdout (unbuffered: each line is written at once).
func say(format string, args ...any) {
	fmt.Fprintf(os.Stdout, format+"\n", args...)
}

func main() {
	os.Exit(run())
}

func run() int {
	var servers serverList
	flags := flag.NewFlagSet("bot", flag.ContinueOnError)
	flags.Var(&servers, "server", "arena address HOST:PORT; comma-separated or repeated for fallbacks")
	token := flags.String("token", os.Getenv("ARENA_TOKEN"), "the bot's token (default $ARENA_TOKEN)")
	strategy := flags.String("strategy", "heuristic", "random or heuristic")
	maxMatches := flags.Int("max-matches", 0, "exit 0 after this many finished matches (0: play until killed)")
	invalidFirst := flags.Bool("invalid-first", false, `answer the very first request with the invalid action "Z9"`)
	concurrency := flags.Int("concurrency", 4, "matches to play at once")
	useTLS := flags.Bool("tls", false, "connect with TLS (system root certificates)")
	verbose := flags.Bool("verbose", false, "log every message")
	if err := flags.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 64
	}
	usage := func(message string) int {
		fmt.Fprintln(os.Stderr, message)
		flags.Usage()
		return 64
	}
	if len(servers) == 0 {
		return usage("give the arena address with --server HOST:PORT")
	}
	if *token == "" {
		return usage("give the bot token with --token (or ARENA_TOKEN)")
	}
	makeBot, ok := bots.Strategies[*strategy]
	if !ok {
		return usage(fmt.Sprintf("unknown strategy %q: random or heuristic", *strategy))
	}
	if *maxMatches < 0 || *concurrency < 1 {
		return usage("--max-matches must be >= 0 and --concurrency >= 1")
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	act := makeBot()
	if *invalidFirst {
		play := act
		var answered atomic.Bool
		act = func(ctx context.Context, turn *arenabot.Turn) (string, error) {
			if answered.CompareAndSwap(false, true) {
				return "Z9", nil // not a card: the server rejects it (FAULT_INVALID_ACTION) and plays a fallback
			}
			return play(ctx, turn)
		}
	}
	config := arenabot.Config{
		Servers:              servers,
		Token:                *token,
		MaxConcurrentMatches: *concurrency,
		MaxMatches:           *maxMatches,
		Logger:               logger,
		Hooks: arenabot.Hooks{
			OnWelcome:    func(w *arenapb.Welcome, _ string) { say("welcome %s", w.GetBotName()) },
			OnMatchStart: func(m *arenabot.MatchInfo) { say("started %s %d", m.MatchID, m.Seat) },
			OnActionRejected: func(r *arenapb.ActionRejected) {
				say("rejected %s %d %s", r.GetMatchId(), r.GetSequence(), r.GetFault())
			},
			OnMatchEnd:     func(r *arenabot.MatchResult) { say("ended %s %d", r.MatchID, r.Placing) },
			OnReconnecting: func(time.Duration) { say("reconnecting") },
		},
	}
	if *useTLS {
		config.Credentials = credentials.NewTLS(nil)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := arenabot.Run(ctx, act, config)
	var refused *arenabot.RefusedError
	var replaced *arenabot.ReplacedError
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return 0
	case errors.As(err, &refused), errors.As(err, &replaced):
		fmt.Fprintln(os.Stderr, err)
		return 2
	default:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
}
