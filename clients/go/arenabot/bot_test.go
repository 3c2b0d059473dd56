package arenabot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"arena/clients/go/arenapb"
)

// The SDK against a scripted in-process gRPC server: the protocol rules of bot.proto, one by one.

type serverStream = grpc.BidiStreamingServer[arenapb.ConnectRequest, arenapb.ConnectResponse]

// script plays one connection (index 0 for the first); its error ends the stream with that status.
type script func(stream serverStream, index int) error

type fakeArena struct {
	arenapb.UnimplementedBotServiceServer
	script      script
	connections atomic.Int32
}

func (f *fakeArena) Connect(stream serverStream) error {
	return f.script(stream, int(f.connections.Add(1))-1)
}

func serve(t *testing.T, s script) (*fakeArena, string) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	fake := &fakeArena{script: s}
	arenapb.RegisterBotServiceServer(server, fake)
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	return fake, listener.Addr().String()
}

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func send(stream serverStream, messages ...*arenapb.ConnectResponse) error {
	for _, m := range messages {
		if err := stream.Send(m); err != nil {
			return err
		}
	}
	return nil
}

func welcome() *arenapb.ConnectResponse {
	return &arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_Welcome{Welcome: &arenapb.Welcome{
		BotName: "b", KeepAliveInterval: durationpb.New(time.Second), Games: []string{"5211"},
	}}}
}

func started(matchID string) *arenapb.ConnectResponse { return startedAt(matchID, 1) }

func startedAt(matchID string, seat uint32) *arenapb.ConnectResponse {
	return &arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_MatchStarted{MatchStarted: &arenapb.MatchStarted{
		MatchId: matchID, Game: "5211", Seat: seat, NumPlayers: 2, BotNames: []string{"a", "b"},
	}}}
}

func request(matchID string, sequence uint64) *arenapb.ConnectResponse {
	return requestAt(matchID, sequence, 1, "B1 G2", "O3 Y4")
}

func requestAt(matchID string, sequence uint64, seat uint32, legal ...string) *arenapb.ConnectResponse {
	return &arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_ActionRequest{ActionRequest: &arenapb.ActionRequest{
		MatchId:   matchID,
		Sequence:  sequence,
		Seat:      seat,
		Allowance: durationpb.New(time.Second),
		TimeBank:  durationpb.New(2 * time.Second),
		Observation: &arenapb.Observation{Game: &arenapb.Observation_Game_5211{Game_5211: &arenapb.Game5211Observation{
			Seat: proto.Uint32(seat), NumPlayers: 2, Turn: 1, CardsToLay: 2, HandCards: []string{"B1", "G2", "O3", "Y4"},
		}}},
		LegalActions: legal,
	}}}
}

func ended(matchID string) *arenapb.ConnectResponse { return endedAt(matchID, 1) }

func endedAt(matchID string, seat uint32) *arenapb.ConnectResponse {
	return &arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_MatchEnded{MatchEnded: &arenapb.MatchEnded{
		MatchId: matchID, Seat: seat, Outcome: &arenapb.Outcome{
			Termination: arenapb.Termination_TERMINATION_NORMAL, Scores: []int64{3, 7}, Placings: []uint32{2, 1}, Winners: []uint32{1},
		},
	}}}
}

// nextAction reads until an Action arrives (skipping pings).
func nextAction(stream serverStream) (*arenapb.Action, error) {
	for {
		message, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		if action := message.GetAction(); action != nil {
			return action, nil
		}
	}
}

func runWithin(t *testing.T, seconds int, act ActFunc, cfg Config) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second)
	defer cancel()
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	return Run(ctx, act, cfg)
}

func TestHelloFirstAnswersEchoAndASupersededRequestIsNeverAnswered(t *testing.T) {
	var hello *arenapb.Hello
	actions := make(chan *arenapb.Action, 4)
	_, address := serve(t, func(stream serverStream, _ int) error {
		first, err := stream.Recv()
		if err != nil {
			return err
		}
		hello = first.GetHello()
		if err := send(stream, welcome(), started("m1"), request("m1", 1), request("m1", 2)); err != nil {
			return err
		}
		action, err := nextAction(stream)
		if err != nil {
			return err
		}
		actions <- action
		if err := send(stream, ended("m1")); err != nil {
			return err
		}
		// Anything more (the superseded answer) would show up here.
		for {
			action, err := nextAction(stream)
			if err != nil {
				return nil
			}
			actions <- action
		}
	})
	var mu sync.Mutex
	var turns []*Turn
	var contexts []context.Context
	var placings []int
	err := runWithin(t, 10, func(ctx context.Context, turn *Turn) (string, error) {
		mu.Lock()
		turns = append(turns, turn)
		contexts = append(contexts, ctx)
		mu.Unlock()
		if turn.Sequence == 1 {
			<-ctx.Done() // superseded: the SDK cancels it
			return "B1 G2", nil
		}
		return "O3 Y4", nil
	}, Config{
		Servers: []string{address}, Token: "secret", MaxConcurrentMatches: 3, MaxMatches: 1,
		Hooks: Hooks{OnMatchEnd: func(r *MatchResult) { placings = append(placings, r.Placing) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if hello.GetToken() != "secret" || len(hello.GetGames()) != 0 || hello.GetMaxConcurrentMatches() != 3 {
		t.Errorf("hello = %v", hello)
	}
	close(actions)
	var got []string
	for a := range actions {
		got = append(got, a.GetMatchId()+"/"+a.GetText())
		if a.GetSequence() != 2 {
			t.Errorf("answered sequence %d, want only 2", a.GetSequence())
		}
		if a.Seat == nil || a.GetSeat() != 1 {
			t.Errorf("the answer does not echo seat 1: %v", a)
		}
	}
	if !slices.Equal(got, []string{"m1/O3 Y4"}) {
		t.Errorf("actions = %v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(turns) != 2 || contexts[0].Err() == nil {
		t.Errorf("the superseded turn's context should be cancelled (%d turns)", len(turns))
	}
	if !slices.Equal(turns[1].Observation.GetGame_5211().GetHandCards(), []string{"B1", "G2", "O3", "Y4"}) || turns[1].Match.Seat != 1 {
		t.Errorf("turn = %+v", turns[1])
	}
	if left := turns[1].TimeLeft(); left > 3*time.Second || left <= 0 {
		t.Errorf("time left %v", left)
	}
	if !slices.Equal(placings, []int{1}) {
		t.Errorf("placings = %v", placings)
	}
}

func TestTwoSeatsOfOneMatchAreEachAnsweredWithTheirSeat(t *testing.T) {
	answers := make(chan *arenapb.Action, 4)
	_, address := serve(t, func(stream serverStream, _ int) error {
		if _, err := stream.Recv(); err != nil {
			return err
		}
		// The same sequence for each seat: each is a decision of its own.
		if err := send(stream, welcome(), startedAt("m1", 0), startedAt("m1", 1),
			requestAt("m1", 1, 0, "B1 G2"), requestAt("m1", 1, 1, "O3 Y4")); err != nil {
			return err
		}
		for range 2 {
			action, err := nextAction(stream)
			if err != nil {
				return err
			}
			answers <- action
		}
		if err := send(stream, endedAt("m1", 0), endedAt("m1", 1)); err != nil {
			return err
		}
		_, _ = nextAction(stream)
		return nil
	})
	var mu sync.Mutex
	var starts, ends []int
	err := runWithin(t, 10, func(_ context.Context, turn *Turn) (string, error) {
		return turn.LegalActions[0], nil
	}, Config{
		Servers: []string{address}, Token: "t", MaxConcurrentMatches: 2, MaxMatches: 2,
		Hooks: Hooks{
			OnMatchStart: func(m *MatchInfo) { mu.Lock(); starts = append(starts, m.Seat); mu.Unlock() },
			OnMatchEnd:   func(r *MatchResult) { mu.Lock(); ends = append(ends, r.Seat); mu.Unlock() },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	close(answers)
	var got []string
	for a := range answers {
		if a.Seat == nil {
			t.Errorf("an answer without its seat: %v", a)
		}
		got = append(got, fmt.Sprintf("%s/%d/%d/%s", a.GetMatchId(), a.GetSeat(), a.GetSequence(), a.GetText()))
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"m1/0/1/B1 G2", "m1/1/1/O3 Y4"}) {
		t.Errorf("answers = %v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(starts, []int{0, 1}) || !slices.Equal(ends, []int{0, 1}) {
		t.Errorf("started seats %v, ended seats %v; want [0 1] each", starts, ends)
	}
}

func TestAfterADroppedStreamItReconnectsAndAnswersTheResentRequestFromItsCache(t *testing.T) {
	var mu sync.Mutex
	var answers []string
	record := func(index int, a *arenapb.Action) {
		mu.Lock()
		defer mu.Unlock()
		answers = append(answers, string(rune('0'+index))+":"+string(rune('0'+a.GetSequence()))+":"+a.GetText())
	}
	_, address := serve(t, func(stream serverStream, index int) error {
		if _, err := stream.Recv(); err != nil {
			return err
		}
		if err := send(stream, welcome(), started("m1"), request("m1", 5)); err != nil {
			return err
		}
		action, err := nextAction(stream)
		if err != nil {
			return err
		}
		record(index, action)
		if index == 0 {
			return nil // drop the stream after the first answer
		}
		if err := send(stream, request("m1", 6)); err != nil {
			return err
		}
		if action, err = nextAction(stream); err != nil {
			return err
		}
		record(index, action)
		if err := send(stream, ended("m1")); err != nil {
			return err
		}
		_, _ = nextAction(stream)
		return nil
	})
	var calls, starts, reconnects atomic.Int32
	err := runWithin(t, 10, func(_ context.Context, turn *Turn) (string, error) {
		calls.Add(1)
		return turn.LegalActions[0], nil
	}, Config{
		Servers: []string{address}, Token: "t", MaxMatches: 1, InitialBackoff: 20 * time.Millisecond,
		Hooks: Hooks{
			OnMatchStart:   func(*MatchInfo) { starts.Add(1) },
			OnReconnecting: func(time.Duration) { reconnects.Add(1) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:5:B1 G2", "1:5:B1 G2", "1:6:B1 G2"}; !slices.Equal(answers, want) {
		t.Errorf("answers = %v, want %v", answers, want)
	}
	if calls.Load() != 2 {
		t.Errorf("act called %d times: the resent request should be answered from the cache", calls.Load())
	}
	if starts.Load() != 1 || reconnects.Load() != 1 {
		t.Errorf("starts %d, reconnects %d; want 1 and 1", starts.Load(), reconnects.Load())
	}
}

func TestADeadAddressIsSkippedForTheNextOne(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := listener.Addr().String()
	listener.Close()
	_, address := serve(t, func(stream serverStream, _ int) error {
		if _, err := stream.Recv(); err != nil {
			return err
		}
		if err := send(stream, welcome()); err != nil {
			return err
		}
		<-stream.Context().Done()
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var welcomes []string
	err = Run(ctx, func(context.Context, *Turn) (string, error) { return "x", nil }, Config{
		Servers: []string{dead, address}, Token: "t", InitialBackoff: 20 * time.Millisecond, Logger: quiet(),
		Hooks: Hooks{OnWelcome: func(_ *arenapb.Welcome, a string) { welcomes = append(welcomes, a); cancel() }},
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if !slices.Equal(welcomes, []string{address}) {
		t.Errorf("welcomed by %v, want %v", welcomes, address)
	}
}

func TestAbortedEndsRunWithoutReconnecting(t *testing.T) {
	fake, address := serve(t, func(stream serverStream, _ int) error {
		if _, err := stream.Recv(); err != nil {
			return err
		}
		if err := send(stream, welcome()); err != nil {
			return err
		}
		return status.Error(codes.Aborted, "replaced by a newer connection")
	})
	err := runWithin(t, 10, func(context.Context, *Turn) (string, error) { return "x", nil },
		Config{Servers: []string{address}, Token: "t", InitialBackoff: 10 * time.Millisecond})
	var replaced *ReplacedError
	if !errors.As(err, &replaced) {
		t.Fatalf("Run = %v, want a ReplacedError", err)
	}
	time.Sleep(100 * time.Millisecond)
	if n := fake.connections.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

func TestARefusedTokenIsFinal(t *testing.T) {
	_, address := serve(t, func(stream serverStream, _ int) error {
		return status.Error(codes.Unauthenticated, "unknown token")
	})
	err := runWithin(t, 10, func(context.Context, *Turn) (string, error) { return "x", nil },
		Config{Servers: []string{address}, Token: "bad"})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Code != codes.Unauthenticated {
		t.Fatalf("Run = %v, want a RefusedError(Unauthenticated)", err)
	}
}

func TestOddMessagesRejectionsAndAFailingActDoNotStopTheBot(t *testing.T) {
	actions := make(chan *arenapb.Action, 2)
	_, address := serve(t, func(stream serverStream, _ int) error {
		if _, err := stream.Recv(); err != nil {
			return err
		}
		err := send(stream, welcome(),
			&arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_KeepAlive{KeepAlive: &arenapb.KeepAlive{}}},
			&arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_Error{Error: &arenapb.ProtocolError{MatchId: "zz", Sequence: 9}}},
			&arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_ActionRejected{ActionRejected: &arenapb.ActionRejected{
				MatchId: "zz", Sequence: 9, Fault: arenapb.Fault_FAULT_ILLEGAL_ACTION,
			}}},
			&arenapb.ConnectResponse{}, // no kind at all (a newer server's message)
			&arenapb.ConnectResponse{Kind: &arenapb.ConnectResponse_MatchEnded{MatchEnded: &arenapb.MatchEnded{MatchId: "never-started"}}},
			request("unannounced", 1),
		)
		if err != nil {
			return err
		}
		action, err := nextAction(stream)
		if err != nil {
			return err
		}
		actions <- action
		if err := send(stream, ended("unannounced")); err != nil {
			return err
		}
		_, _ = nextAction(stream)
		return nil
	})
	var faults []arenapb.Fault
	err := runWithin(t, 10, func(context.Context, *Turn) (string, error) { panic("bug in the bot") }, Config{
		Servers: []string{address}, Token: "t", MaxMatches: 2,
		Hooks: Hooks{OnActionRejected: func(r *arenapb.ActionRejected) { faults = append(faults, r.GetFault()) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(faults, []arenapb.Fault{arenapb.Fault_FAULT_ILLEGAL_ACTION}) {
		t.Errorf("faults = %v", faults)
	}
	if a := <-actions; a.GetMatchId() != "unannounced" || a.GetText() != "B1 G2" {
		t.Errorf("answered %v, want the first legal action", a)
	}
}

func TestReconnectDelaysAreJittered(t *testing.T) {
	if d := Jittered(time.Second, func() float64 { return 0 }); d != 500*time.Millisecond {
		t.Errorf("Jittered low = %v", d)
	}
	if d := Jittered(time.Second, func() float64 { return 1 }); d != time.Second {
		t.Errorf("Jittered high = %v", d)
	}
}
