// Command loadbots runs many simulated load-test bots in one process, as arena.cli.loadtest_bots does,
// at a fraction of its CPU per decision (so a benchmark's bots leave the cores to the arena):
//
//	bin/loadbots TOKENS_FILE --server HOST:PORT [--capacity N] [--per-channel K]
//
// TOKENS_FILE has one "name token" line per bot. Each bot opens its own Connect stream (K bots share
// one gRPC connection; --per-channel 1 gives each bot its own), says Hello with --capacity as its
// max_concurrent_matches, and answers every ActionRequest at once with a uniformly random legal
// action, echoing the request's match id, sequence and seat.
//
// On stdout: "ready" once every bot is welcomed (or its stream has failed), "ended <match_id>
// <termination>" (the Termination enum's name) per MatchEnded, and, when standard input closes or on
// SIGTERM/SIGINT, one final line "stats {json}" with the counters decisions, rejections,
// protocol_errors, stream_errors, matches_ended and abnormal_ends; then it exits 0. A bad command
// line or tokens file is one line on stderr and exit status 2.
//
// To cost little CPU a decision it runs on one core (GOMAXPROCS 1: no scheduler spinning, no thread
// wake-ups between goroutines) and collects garbage less often (GOGC 400), unless $GOMAXPROCS or $GOGC
// say otherwise, and its connections have a static 1 MiB flow-control window: no BDP pings, which
// would cost a write and a read on both sides for most messages of such small, spaced streams.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"arena/clients/go/arenapb"
)

// botsPerChannel is the default of --per-channel, as in arena.cli.loadtest_bots.
const botsPerChannel = 50

// window is each connection's and each stream's static flow-control window.
const window = 1 << 20

// stats is what this process saw; the JSON keys are those of arena.cli.loadtest_bots.
type stats struct {
	decisions, rejections, protocolErrors, streamErrors, matchesEnded, abnormalEnds atomic.Int64
}

// line is the final "stats {json}" line, formatted as Python's json.dumps formats it.
func (s *stats) line() string {
	return fmt.Sprintf(
		`stats {"decisions": %d, "rejections": %d, "protocol_errors": %d, "stream_errors": %d, "matches_ended": %d, "abnormal_ends": %d}`,
		s.decisions.Load(), s.rejections.Load(), s.protocolErrors.Load(), s.streamErrors.Load(),
		s.matchesEnded.Load(), s.abnormalEnds.Load(),
	)
}

// output writes whole lines to stdout, one at a time.
type output struct {
	mu sync.Mutex
	w  io.Writer
}

func (o *output) say(text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = io.WriteString(o.w, text+"\n")
}

// bot is one simulated bot.
type bot struct {
	name, token string
}

// errBadFlag is a flag the flag package refused (and has already said why, with the usage).
type errBadFlag struct{ error }

func (e errBadFlag) Unwrap() error { return e.error }

// options is the parsed command line.
type options struct {
	tokensFile string
	server     string
	capacity   int
	perChannel int
}

// parseArgs parses the command line; the one positional argument (TOKENS_FILE) may stand before,
// between or after the flags, as with Python's argparse.
func parseArgs(flags *flag.FlagSet, args []string) (*options, error) {
	o := &options{}
	flags.StringVar(&o.server, "server", "", "the arena's address HOST:PORT (required)")
	flags.IntVar(&o.capacity, "capacity", 8, "matches each bot takes at once (Hello.max_concurrent_matches)")
	flags.IntVar(&o.perChannel, "per-channel", botsPerChannel, "bots sharing one gRPC connection")
	var positional []string
	for {
		if err := flags.Parse(args); err != nil {
			return nil, errBadFlag{err}
		}
		if flags.NArg() == 0 {
			break
		}
		positional = append(positional, flags.Arg(0))
		args = flags.Args()[1:]
	}
	switch {
	case len(positional) != 1:
		return nil, fmt.Errorf("give exactly one TOKENS_FILE (got %d arguments)", len(positional))
	case o.server == "":
		return nil, errors.New("--server HOST:PORT is required")
	case o.capacity < 1:
		return nil, fmt.Errorf("--capacity must be at least 1 (got %d)", o.capacity)
	}
	o.tokensFile = positional[0]
	o.perChannel = max(1, o.perChannel)
	return o, nil
}

// readBots reads the "name token" lines of path (blank lines are skipped).
func readBots(path string) ([]bot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the tokens file: %w", err)
	}
	var found []bot
	for number, text := range strings.Split(string(data), "\n") {
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			shown := text
			if len(shown) > 40 {
				shown = shown[:40] + "..."
			}
			return nil, fmt.Errorf("%s line %d is not \"name token\": %q", path, number+1, shown)
		}
		found = append(found, bot{fields[0], fields[1]})
	}
	return found, nil
}

// play runs one bot's stream until it ends or ctx is cancelled; ready is called once it is
// welcomed or its stream has failed (or ended).
func play(ctx context.Context, client arenapb.BotServiceClient, b bot, capacity int, seed uint64, s *stats, out *output, ready func()) {
	defer ready()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	stream, err := client.Connect(ctx)
	if err == nil {
		err = stream.Send(&arenapb.ConnectRequest{Kind: &arenapb.ConnectRequest_Hello{Hello: &arenapb.Hello{
			Token: b.token, MaxConcurrentMatches: uint32(capacity), ClientName: "loadtest",
		}}})
	}
	for err == nil {
		var response *arenapb.ConnectResponse
		if response, err = stream.Recv(); err != nil {
			break
		}
		switch kind := response.GetKind().(type) {
		case *arenapb.ConnectResponse_ActionRequest:
			request := kind.ActionRequest
			s.decisions.Add(1)
			legal := request.GetLegalActions()
			if len(legal) == 0 {
				continue // never sent by the arena; nothing legal to answer with
			}
			// A failed Send ends the stream: the next Recv returns why.
			_ = stream.Send(&arenapb.ConnectRequest{Kind: &arenapb.ConnectRequest_Action{Action: &arenapb.Action{
				MatchId:  request.GetMatchId(),
				Sequence: request.GetSequence(),
				Seat:     proto.Uint32(request.GetSeat()),
				Text:     legal[rng.IntN(len(legal))],
			}}})
		case *arenapb.ConnectResponse_MatchEnded:
			ended := kind.MatchEnded
			s.matchesEnded.Add(1)
			termination := ended.GetOutcome().GetTermination()
			if termination != arenapb.Termination_TERMINATION_NORMAL {
				s.abnormalEnds.Add(1)
			}
			out.say("ended " + ended.GetMatchId() + " " + termination.String())
		case *arenapb.ConnectResponse_Welcome:
			ready()
		case *arenapb.ConnectResponse_ActionRejected:
			s.rejections.Add(1)
		case *arenapb.ConnectResponse_Error:
			s.protocolErrors.Add(1)
		}
	}
	// The stream's end when this process stops (ctx cancelled) or the server closed it (io.EOF) is no error.
	if ctx.Err() == nil && !errors.Is(err, io.EOF) {
		s.streamErrors.Add(1)
	}
}

// stopped is closed on the first of: standard input at its end, SIGTERM, SIGINT.
func stopped() <-chan struct{} {
	done := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(done) }) }
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		stop()
	}()
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		stop()
	}()
	return done
}

func run(o *options, bots []bot, out *output, stop <-chan struct{}) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conns := make([]*grpc.ClientConn, max(1, (len(bots)+o.perChannel-1)/o.perChannel))
	for i := range conns {
		conn, err := grpc.NewClient(o.server, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithStaticConnWindowSize(window), grpc.WithStaticStreamWindowSize(window))
		if err != nil {
			return fmt.Errorf("cannot connect to %q: %w", o.server, err)
		}
		defer conn.Close()
		conns[i] = conn
	}
	var s stats
	var playing, welcomed sync.WaitGroup
	welcomed.Add(len(bots))
	for i, b := range bots {
		client := arenapb.NewBotServiceClient(conns[i/o.perChannel])
		playing.Go(func() { play(ctx, client, b, o.capacity, uint64(i), &s, out, sync.OnceFunc(welcomed.Done)) })
	}
	allReady := make(chan struct{})
	go func() {
		welcomed.Wait()
		close(allReady)
	}()
	select {
	case <-allReady:
		out.say("ready")
		<-stop
	case <-stop:
	}
	cancel()
	playing.Wait()
	out.say(s.line())
	return nil
}

func main() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	flags := flag.NewFlagSet("loadbots", flag.ContinueOnError)
	o, err := parseArgs(flags, os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if errors.As(err, new(errBadFlag)) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbots:", err)
		os.Exit(2)
	}
	bots, err := readBots(o.tokensFile)
	if err == nil {
		err = run(o, bots, &output{w: os.Stdout}, stopped())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbots:", err)
		os.Exit(2)
	}
}
