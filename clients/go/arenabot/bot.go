// Package arenabot plays arena matches for a bot written as one function: give Run an ActFunc that
// picks an action for a Turn, and it does the protocol.
//
// What Run handles (see proto/arena/v1/bot.proto for the protocol itself):
//
//   - dials the arena, sends Hello with the token, the games and the concurrency you chose;
//   - calls your ActFunc for every ActionRequest, each in its own goroutine (so many matches run at
//     once), and sends the answer, echoing the match id, the seat and the sequence number (a match
//     may seat the same bot more than once: each seat is played on its own, and everything below is
//     kept per match and seat);
//   - drops the answer to a request that a newer one for the same seat has superseded, and cancels
//     that turn's context so long work can stop early;
//   - sends Ping at the server's keep-alive interval, and takes a stream silent for three intervals
//     for dead;
//   - logs rejections and protocol errors, and never stops on a message it does not expect;
//   - when the stream drops, reconnects with capped exponential backoff and jitter, trying each
//     address in turn, and says Hello again with the same token; the server then resends each
//     running match and its pending request, which is answered (from the cached answer when it was
//     already decided).
//
// Run returns nil after Config.MaxMatches ended matches, the context's error when the context ends,
// a *RefusedError when the server refuses the token or the Hello, and a *ReplacedError when a newer
// connection of the same bot takes over (status ABORTED): it must not reconnect then, or two copies
// of the bot would fight over its seats.
package arenabot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"arena/clients/go/arenapb"
)

const (
	// ClientName and ClientVersion are sent in Hello, for the server's logs.
	ClientName    = "arena-bot-go"
	ClientVersion = "0.1.0"
	// silentIntervals keep-alive intervals without a message make a stream count as dead.
	silentIntervals = 3
	// welcomeTimeout is how long to wait for the Welcome after Hello.
	welcomeTimeout = 30 * time.Second
)

// ActFunc is the author's one callback: return one of turn.LegalActions. Its context is cancelled
// when a newer request for the match supersedes this one, the match ends, or Run stops. If it returns
// an error or an empty action (or panics), the SDK logs it and answers the first legal action, unless
// Config.NoFallbackOnError is set.
type ActFunc func(ctx context.Context, turn *Turn) (string, error)

// Turn is one decision to make: everything an ActFunc needs.
type Turn struct {
	MatchID string
	// Sequence is the request's number; the SDK echoes it for you.
	Sequence uint64
	Seat     int
	// Game is the game's registry name, from the match's MatchStarted (else from the observation's envelope).
	Game string
	// Observation is the observation envelope: exactly what this seat may know, in the field of its
	// `oneof game` that its game sets (none for a game this build does not know; nil when the request
	// carried none). The typed helpers of each game, in games/<game> (e.g. g5211.Observation(turn)),
	// read it for you.
	Observation *arenapb.Observation
	// LegalActions lists every legal action now, in the game's notation, e.g. "G3 Y1" in 5211 or
	// "take 2" in Coloretto.
	LegalActions []string
	// ActionHint says in one line what an action looks like.
	ActionHint string
	// Match is the match as MatchStarted told it (nil if that message was missed).
	Match *MatchInfo
	// Request is the raw ActionRequest.
	Request  *arenapb.ActionRequest
	received time.Time
}

// TimeLeft is the time before the action is late: allowance plus time bank, less the time taken so far.
func (t *Turn) TimeLeft() time.Duration {
	return max(0, t.Request.GetAllowance().AsDuration()+t.Request.GetTimeBank().AsDuration()-time.Since(t.received))
}

// FreeTimeLeft is the time before the time bank starts being spent.
func (t *Turn) FreeTimeLeft() time.Duration {
	return max(0, t.Request.GetAllowance().AsDuration()-time.Since(t.received))
}

// GameOfEnvelope is the game an observation envelope is of, from the name of the field its
// `oneof game` sets (game_<name>); "" when none is set (nil, or a game this build does not know).
func GameOfEnvelope(observation *arenapb.Observation) string {
	if observation == nil {
		return ""
	}
	message := observation.ProtoReflect()
	field := message.WhichOneof(message.Descriptor().Oneofs().ByName("game"))
	if field == nil {
		return ""
	}
	return strings.TrimPrefix(string(field.Name()), "game_")
}

// MatchInfo is a match the bot plays in, as MatchStarted told it.
type MatchInfo struct {
	MatchID     string
	Game        string
	Seat        int
	NumPlayers  int
	BotNames    []string
	TimeControl *arenapb.TimeControl
	Options     map[string]string
}

// MatchResult is how a match ended for this bot.
type MatchResult struct {
	MatchID string
	Seat    int
	// Placing is 1 for a win (shared or not); forfeited seats come last.
	Placing int
	Score   int64
	Won     bool
	Outcome *arenapb.Outcome
	Match   *MatchInfo
	Message *arenapb.MatchEnded
}

// Hooks are optional callbacks, called one at a time from Run's goroutine; they must not block long.
type Hooks struct {
	OnWelcome        func(welcome *arenapb.Welcome, address string)
	OnMatchStart     func(match *MatchInfo)
	OnMatchEnd       func(result *MatchResult)
	OnActionRejected func(rejection *arenapb.ActionRejected)
	OnProtocolError  func(err *arenapb.ProtocolError)
	// OnReconnecting is called when the stream dropped (or a connection attempt failed) and another
	// attempt follows after delay.
	OnReconnecting func(delay time.Duration)
}

// Config says where to connect and how to play.
type Config struct {
	// Servers are host:port addresses, tried in turn when one fails.
	Servers []string
	// Token is the bot's secret token from RegistryService.RegisterBot.
	Token string
	// Games to play, by registry name (default: none named, so every game the bot is registered for).
	Games []string
	// MaxConcurrentMatches is how many matches to play at once (default 1).
	MaxConcurrentMatches int
	// MaxMatches makes Run return after this many ended matches, a match counted once per seat the bot
	// held in it (0: play until the context ends).
	MaxMatches int
	// Credentials for the channel (default: plaintext). credentials.NewTLS(nil) for TLS.
	Credentials credentials.TransportCredentials
	// InitialBackoff (default 500 ms) is doubled after each round of failed addresses, up to
	// MaxBackoff (default 30 s); each wait is jittered to [d/2, d].
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// NoFallbackOnError: when ActFunc fails, send nothing (the deadline passes) instead of the
	// first legal action.
	NoFallbackOnError bool
	Hooks             Hooks
	// Logger (default: slog.Default()).
	Logger *slog.Logger
}

// RefusedError means the server refused the connection for good (bad token, unknown game).
type RefusedError struct {
	Code    codes.Code
	Details string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the arena refused the connection: %s: %s", e.Code, e.Details)
}

// ReplacedError means another connection with the same token took over (status ABORTED).
type ReplacedError struct{ Details string }

func (e *ReplacedError) Error() string {
	return "another connection of this bot took over: " + e.Details
}

// Jittered is a reconnect delay: d scaled by a random factor in [0.5, 1].
func Jittered(d time.Duration, random func() float64) time.Duration {
	return time.Duration(float64(d) * (0.5 + 0.5*random()))
}

// Run connects and plays, reconnecting as needed, until it stops (see the package comment).
func Run(ctx context.Context, act ActFunc, cfg Config) error {
	if len(cfg.Servers) == 0 {
		return errors.New("arenabot: give at least one arena address (host:port)")
	}
	cfg.MaxConcurrentMatches = max(1, cfg.MaxConcurrentMatches)
	if cfg.InitialBackoff <= 0 {
		cfg.InitialBackoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.Credentials == nil {
		cfg.Credentials = insecure.NewCredentials()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	r := &runner{
		act:       act,
		cfg:       cfg,
		log:       cfg.Logger,
		ctx:       runCtx,
		stop:      stop,
		matches:   map[seatKey]*MatchInfo{},
		latest:    map[seatKey]uint64{},
		decisions: map[seatKey]*decision{},
		answers:   map[seatKey]answer{},
	}
	return r.run(ctx)
}

// seatKey is one seat the bot plays: everything per match is kept per seat, since a match may seat
// the bot more than once.
type seatKey struct {
	matchID string
	seat    uint32
}

type decision struct {
	sequence uint64
	cancel   context.CancelFunc
}

type answer struct {
	sequence uint64
	text     string
	// sentOn is the stream it went out on (nil: not sent), so a resent request is answered again.
	sentOn *liveStream
}

type liveStream struct {
	mu     sync.Mutex // grpc-go streams take one sender at a time
	stream grpc.BidiStreamingClient[arenapb.ConnectRequest, arenapb.ConnectResponse]
}

func (s *liveStream) send(request *arenapb.ConnectRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stream.Send(request)
}

type runner struct {
	act  ActFunc
	cfg  Config
	log  *slog.Logger
	ctx  context.Context
	stop context.CancelFunc

	mu        sync.Mutex
	live      *liveStream
	matches   map[seatKey]*MatchInfo
	latest    map[seatKey]uint64 // the newest request sequence seen per seat
	decisions map[seatKey]*decision
	answers   map[seatKey]answer
	ended     int
	finished  bool // MaxMatches reached
}

func (r *runner) run(parent context.Context) error {
	defer func() {
		r.mu.Lock()
		for _, d := range r.decisions {
			d.cancel()
		}
		r.mu.Unlock()
	}()
	index := 0
	backoff := r.cfg.InitialBackoff
	for {
		welcomed, err := r.session(r.cfg.Servers[index])
		if err != nil {
			return err
		}
		if r.ctx.Err() != nil {
			r.mu.Lock()
			finished := r.finished
			r.mu.Unlock()
			if finished {
				return nil
			}
			return parent.Err()
		}
		var delay time.Duration
		if welcomed {
			// The connection worked: come back to the same address, quickly.
			backoff = r.cfg.InitialBackoff
			delay = Jittered(r.cfg.InitialBackoff, rand.Float64)
		} else {
			index = (index + 1) % len(r.cfg.Servers)
			if index == 0 {
				// Every address failed once more: wait longer each round.
				delay = Jittered(backoff, rand.Float64)
				backoff = min(r.cfg.MaxBackoff, 2*backoff)
			}
		}
		r.log.Info("reconnecting", "in", delay.Round(time.Millisecond))
		if hook := r.cfg.Hooks.OnReconnecting; hook != nil {
			r.hook(func() { hook(delay) })
		}
		select {
		case <-r.ctx.Done():
		case <-time.After(delay):
		}
	}
}

type received struct {
	message *arenapb.ConnectResponse
	err     error
}

// session runs one stream from Hello until it ends; it reports whether the server welcomed us, and
// an error only when reconnecting must not happen.
func (r *runner) session(address string) (welcomed bool, fatal error) {
	conn, err := grpc.NewClient(address, grpc.WithTransportCredentials(r.cfg.Credentials))
	if err != nil {
		r.log.Warn("bad address", "address", address, "error", err)
		return false, nil
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	r.log.Info("connecting", "address", address)
	stream, err := arenapb.NewBotServiceClient(conn).Connect(ctx)
	if err != nil {
		r.log.Warn("could not open the stream", "address", address, "error", err)
		return false, nil
	}
	live := &liveStream{stream: stream}
	r.mu.Lock()
	r.live = live
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		if r.live == live {
			r.live = nil
		}
		r.mu.Unlock()
	}()

	incoming := make(chan received, 64)
	go func() {
		for {
			message, err := stream.Recv()
			select {
			case incoming <- received{message, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	hello := &arenapb.Hello{
		Token:                r.cfg.Token,
		Games:                r.cfg.Games,
		MaxConcurrentMatches: uint32(r.cfg.MaxConcurrentMatches),
		ClientName:           ClientName,
		ClientVersion:        ClientVersion,
	}
	if err := live.send(&arenapb.ConnectRequest{Kind: &arenapb.ConnectRequest_Hello{Hello: hello}}); err != nil {
		r.log.Debug("could not send Hello", "error", err)
	}

	silence := welcomeTimeout
	silenceTimer := time.NewTimer(silence)
	defer silenceTimer.Stop()
	var pings <-chan time.Time
	for {
		select {
		case <-r.ctx.Done():
			return welcomed, nil
		case <-silenceTimer.C:
			r.log.Warn("nothing heard; reconnecting", "address", address, "for", silence)
			return welcomed, nil
		case <-pings:
			ping := &arenapb.Ping{ClientTime: timestamppb.Now()}
			if err := live.send(&arenapb.ConnectRequest{Kind: &arenapb.ConnectRequest_Ping{Ping: ping}}); err != nil {
				r.log.Debug("could not send a ping", "error", err)
			}
		case in := <-incoming:
			if in.err != nil {
				return welcomed, r.streamEnded(address, in.err)
			}
			silenceTimer.Reset(silence)
			if w := in.message.GetWelcome(); w != nil {
				welcomed = true
				if interval := w.GetKeepAliveInterval().AsDuration(); interval > 0 {
					silence = silentIntervals * interval
					silenceTimer.Reset(silence)
					if pings == nil {
						ticker := time.NewTicker(interval)
						defer ticker.Stop()
						pings = ticker.C
					}
				}
				r.log.Info("connected", "address", address, "bot", w.GetBotName(), "games", w.GetGames())
				if hook := r.cfg.Hooks.OnWelcome; hook != nil {
					r.hook(func() { hook(w, address) })
				}
				continue
			}
			r.dispatch(in.message)
		}
	}
}

// streamEnded classifies how a stream ended: a fatal error, or nil to reconnect.
func (r *runner) streamEnded(address string, err error) error {
	if errors.Is(err, io.EOF) {
		r.log.Warn("the server ended the stream", "address", address)
		return nil
	}
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Aborted:
		return &ReplacedError{Details: st.Message()}
	case codes.Unauthenticated, codes.PermissionDenied, codes.InvalidArgument:
		return &RefusedError{Code: st.Code(), Details: st.Message()}
	case codes.Canceled:
		if r.ctx.Err() != nil {
			return nil // we are stopping
		}
	}
	r.log.Warn("stream failed", "address", address, "code", st.Code(), "details", st.Message())
	return nil
}

func (r *runner) dispatch(message *arenapb.ConnectResponse) {
	defer func() {
		// A message we cannot make sense of must not take the bot down.
		if p := recover(); p != nil {
			r.log.Error("could not handle a server message", "panic", p)
		}
	}()
	switch kind := message.GetKind().(type) {
	case *arenapb.ConnectResponse_MatchStarted:
		r.onMatchStarted(kind.MatchStarted)
	case *arenapb.ConnectResponse_ActionRequest:
		r.onRequest(kind.ActionRequest)
	case *arenapb.ConnectResponse_ActionRejected:
		rej := kind.ActionRejected
		r.log.Warn("action rejected", "match", rej.GetMatchId(), "sequence", rej.GetSequence(),
			"fault", rej.GetFault(), "reason", rej.GetReason(), "fallback", rej.GetFallbackAction(),
			"strikes", rej.GetStrikes(), "limit", rej.GetStrikeLimit())
		if hook := r.cfg.Hooks.OnActionRejected; hook != nil {
			r.hook(func() { hook(rej) })
		}
	case *arenapb.ConnectResponse_MatchEnded:
		r.onMatchEnded(kind.MatchEnded)
	case *arenapb.ConnectResponse_Error:
		e := kind.Error
		r.log.Warn("protocol error", "match", e.GetMatchId(), "sequence", e.GetSequence(), "reason", e.GetReason())
		if hook := r.cfg.Hooks.OnProtocolError; hook != nil {
			r.hook(func() { hook(e) })
		}
	case *arenapb.ConnectResponse_KeepAlive:
	default:
		r.log.Debug("ignoring a server message of an unknown kind (newer server?)")
	}
}

func (r *runner) onMatchStarted(m *arenapb.MatchStarted) {
	info := &MatchInfo{
		MatchID:     m.GetMatchId(),
		Game:        m.GetGame(),
		Seat:        int(m.GetSeat()),
		NumPlayers:  int(m.GetNumPlayers()),
		BotNames:    m.GetBotNames(),
		TimeControl: m.GetTimeControl(),
		Options:     m.GetOptions(),
	}
	key := seatKey{info.MatchID, m.GetSeat()}
	r.mu.Lock()
	_, known := r.matches[key]
	r.matches[key] = info
	r.mu.Unlock()
	if !known {
		r.log.Info("match started", "match", info.MatchID, "game", info.Game, "seat", info.Seat, "bots", info.BotNames)
		if hook := r.cfg.Hooks.OnMatchStart; hook != nil {
			r.hook(func() { hook(info) })
		}
	}
}

func (r *runner) onRequest(request *arenapb.ActionRequest) {
	matchID, sequence := request.GetMatchId(), request.GetSequence()
	key := seatKey{matchID, request.GetSeat()}
	r.mu.Lock()
	defer r.mu.Unlock()
	latest, seen := r.latest[key]
	if seen && sequence < latest {
		r.log.Debug("ignoring a stale request", "match", matchID, "sequence", sequence, "latest", latest)
		return
	}
	if seen && sequence == latest {
		// The server resent the request (after a reconnect): answer again, or let the running
		// decision answer on the live stream when it is done.
		if a, ok := r.answers[key]; ok && a.sequence == sequence {
			if a.sentOn != r.live {
				go r.answer(key, sequence, a.text)
			}
			return
		}
		if d, ok := r.decisions[key]; ok && d.sequence == sequence {
			return
		}
	}
	r.latest[key] = sequence
	if previous, ok := r.decisions[key]; ok {
		r.log.Debug("request supersedes the previous one", "match", matchID, "sequence", sequence, "previous", previous.sequence)
		previous.cancel()
	}
	ctx, cancel := context.WithCancel(r.ctx)
	d := &decision{sequence: sequence, cancel: cancel}
	r.decisions[key] = d
	match := r.matches[key]
	game := GameOfEnvelope(request.GetObservation())
	if match != nil {
		game = match.Game
	}
	turn := &Turn{
		MatchID:      matchID,
		Sequence:     sequence,
		Seat:         int(request.GetSeat()),
		Game:         game,
		Observation:  request.GetObservation(),
		LegalActions: request.GetLegalActions(),
		ActionHint:   request.GetActionHint(),
		Match:        match,
		Request:      request,
		received:     time.Now(),
	}
	go r.decide(ctx, d, turn)
}

func (r *runner) decide(ctx context.Context, d *decision, turn *Turn) {
	text, err := r.safeAct(ctx, turn)
	if err == nil && text == "" {
		err = errors.New("act returned an empty action")
	}
	key := seatKey{turn.MatchID, uint32(turn.Seat)}
	r.mu.Lock()
	if r.decisions[key] == d {
		delete(r.decisions, key)
	}
	superseded := ctx.Err() != nil || r.latest[key] != turn.Sequence
	r.mu.Unlock()
	d.cancel()
	if superseded {
		r.log.Debug("dropping the answer to a superseded request", "match", turn.MatchID, "sequence", turn.Sequence)
		return
	}
	if err != nil {
		r.log.Error("act failed", "match", turn.MatchID, "sequence", turn.Sequence, "error", err)
		if r.cfg.NoFallbackOnError || len(turn.LegalActions) == 0 {
			return
		}
		text = turn.LegalActions[0]
		r.log.Warn("answering the first legal action instead", "match", turn.MatchID, "action", text)
	}
	r.answer(key, turn.Sequence, text)
}

func (r *runner) safeAct(ctx context.Context, turn *Turn) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("act panicked: %v", p)
		}
	}()
	return r.act(ctx, turn)
}

// answer sends an answer (echoing the match, the seat and the sequence) and remembers it (and where
// it went) for a resent request.
func (r *runner) answer(key seatKey, sequence uint64, text string) {
	r.mu.Lock()
	live := r.live
	r.answers[key] = answer{sequence: sequence, text: text}
	r.mu.Unlock()
	action := &arenapb.Action{MatchId: key.matchID, Seat: proto.Uint32(key.seat), Sequence: sequence, Text: text}
	var sentOn *liveStream
	if live != nil {
		if err := live.send(&arenapb.ConnectRequest{Kind: &arenapb.ConnectRequest_Action{Action: action}}); err == nil {
			sentOn = live
		} else {
			r.log.Debug("could not send an action", "error", err)
		}
	}
	r.mu.Lock()
	if a, ok := r.answers[key]; ok && a.sequence == sequence {
		r.answers[key] = answer{sequence: sequence, text: text, sentOn: sentOn}
	}
	r.mu.Unlock()
	if sentOn == nil {
		r.log.Info("answer kept for the reconnect", "match", key.matchID, "seat", key.seat, "sequence", sequence)
	}
}

func (r *runner) onMatchEnded(m *arenapb.MatchEnded) {
	matchID := m.GetMatchId()
	key := seatKey{matchID, m.GetSeat()}
	r.mu.Lock()
	if d, ok := r.decisions[key]; ok {
		d.cancel()
		delete(r.decisions, key)
	}
	delete(r.latest, key)
	delete(r.answers, key)
	match := r.matches[key]
	delete(r.matches, key)
	r.mu.Unlock()
	seat := int(m.GetSeat())
	outcome := m.GetOutcome()
	result := &MatchResult{MatchID: matchID, Seat: seat, Outcome: outcome, Match: match, Message: m}
	if placings := outcome.GetPlacings(); seat < len(placings) {
		result.Placing = int(placings[seat])
	}
	if scores := outcome.GetScores(); seat < len(scores) {
		result.Score = scores[seat]
	}
	for _, winner := range outcome.GetWinners() {
		result.Won = result.Won || int(winner) == seat
	}
	r.log.Info("match ended", "match", matchID, "placing", result.Placing, "score", result.Score)
	if hook := r.cfg.Hooks.OnMatchEnd; hook != nil {
		r.hook(func() { hook(result) })
	}
	r.mu.Lock()
	r.ended++
	done := r.cfg.MaxMatches > 0 && r.ended >= r.cfg.MaxMatches
	if done {
		r.finished = true
	}
	r.mu.Unlock()
	if done {
		r.log.Info("played enough matches; stopping", "matches", r.ended)
		r.stop()
	}
}

func (r *runner) hook(call func()) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("a hook panicked", "panic", p)
		}
	}()
	call()
}
