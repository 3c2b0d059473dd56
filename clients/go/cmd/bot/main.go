// Command bot runs a starter bot against an arena:
//
//	bin/bot --server HOST:PORT[,HOST:PORT...] [--token TOKEN | --token-file PATH]
//	        [--strategy random|heuristic] [--max-matches N] [--invalid-first] [--concurrency N] [--tls] [--verbose]
//
// The token comes from --token, else from --token-file (the file's contents, whitespace stripped),
// else from $ARENA_TOKEN (or its older alias $ARENA_BOT_TOKEN). The last two keep it out of the process's
// command line, which other local users can read. A token may start with "-" (--token=-x, --token -x).
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
	"io/fs"
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

// tokenVariables are the environment variables the token may come from, in order.
var tokenVariables = []string{"ARENA_TOKEN", "ARENA_BOT_TOKEN"}

// tokenFrom is the token: given (--token), else the contents of the file at path (--token-file),
// whitespace stripped, else the first non-empty variable of tokenVariables. The error, one line,
// says what is wrong: a missing or empty file, or no token anywhere.
func tokenFrom(given, path string, getenv func(string) string) (string, error) {
	if given != "" {
		return given, nil
	}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			reason := err.Error()
			var pathErr *fs.PathError
			if errors.As(err, &pathErr) {
				reason = pathErr.Err.Error()
			}
			return "", fmt.Errorf("cannot read the token file %q: %s", path, reason)
		}
		token := strings.TrimSpace(string(data))
		if token == "" {
			return "", fmt.Errorf("the token file %q is empty", path)
		}
		return token, nil
	}
	for _, variable := range tokenVariables {
		if value := getenv(variable); value != "" {
			return value, nil
		}
	}
	return "", errors.New("give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token")
}

// options is the parsed command line.
type options struct {
	servers      serverList
	token        string
	tokenFile    string
	strategy     string
	maxMatches   int
	invalidFirst bool
	concurrency  int
	useTLS       bool
	verbose      bool
}

// parseArgs parses the command line (usage and errors go to flags' output, stderr by default). A
// flag's value may start with "-" in either form: the flag package takes the next argument as it is.
func parseArgs(flags *flag.FlagSet, args []string) (*options, error) {
	o := &options{}
	flags.Var(&o.servers, "server", "arena address HOST:PORT; comma-separated or repeated for fallbacks")
	flags.StringVar(&o.token, "token", "", "the bot's token (visible to local users: prefer $ARENA_TOKEN or --token-file)")
	flags.StringVar(&o.tokenFile, "token-file", "", "read the bot's token from this file")
	flags.StringVar(&o.strategy, "strategy", "heuristic", "random or heuristic")
	flags.IntVar(&o.maxMatches, "max-matches", 0, "exit 0 after this many finished matches (0: play until killed)")
	flags.BoolVar(&o.invalidFirst, "invalid-first", false, `answer the very first request with the invalid action "Z9"`)
	flags.IntVar(&o.concurrency, "concurrency", 4, "matches to play at once")
	flags.BoolVar(&o.useTLS, "tls", false, "connect with TLS (system root certificates)")
	flags.BoolVar(&o.verbose, "verbose", false, "log every message")
	if err := flags.Parse(args); err != nil {
		return nil, err
	}
	return o, nil
}

func main() {
	os.Exit(run())
}

func run() int {
	flags := flag.NewFlagSet("bot", flag.ContinueOnError)
	o, err := parseArgs(flags, os.Args[1:])
	if err != nil {
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
	if len(o.servers) == 0 {
		return usage("give the arena address with --server HOST:PORT")
	}
	token, err := tokenFrom(o.token, o.tokenFile, os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	makeBot, ok := bots.Strategies[o.strategy]
	if !ok {
		return usage(fmt.Sprintf("unknown strategy %q: random or heuristic", o.strategy))
	}
	if o.maxMatches < 0 || o.concurrency < 1 {
		return usage("--max-matches must be >= 0 and --concurrency >= 1")
	}
	level := slog.LevelInfo
	if o.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	act := makeBot()
	if o.invalidFirst {
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
		Servers:              o.servers,
		Token:                token,
		MaxConcurrentMatches: o.concurrency,
		MaxMatches:           o.maxMatches,
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
	if o.useTLS {
		config.Credentials = credentials.NewTLS(nil)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = arenabot.Run(ctx, act, config)
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
