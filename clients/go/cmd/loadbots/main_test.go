package main

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func parse(t *testing.T, args ...string) (*options, error) {
	t.Helper()
	flags := flag.NewFlagSet("loadbots", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	return parseArgs(flags, args)
}

func TestTheTokensFileMayStandBeforeOrAfterTheFlags(t *testing.T) {
	for _, args := range [][]string{
		{"tokens.txt", "--server", "127.0.0.1:1", "--capacity", "2", "--per-channel", "1"},
		{"--server", "127.0.0.1:1", "--capacity", "2", "tokens.txt", "--per-channel", "1"},
		{"--server=127.0.0.1:1", "--capacity=2", "--per-channel=1", "tokens.txt"},
	} {
		o, err := parse(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		want := options{tokensFile: "tokens.txt", server: "127.0.0.1:1", capacity: 2, perChannel: 1}
		if *o != want {
			t.Errorf("%v: got %+v, want %+v", args, *o, want)
		}
	}
}

func TestDefaultsAndABadCommandLine(t *testing.T) {
	o, err := parse(t, "tokens.txt", "--server", "127.0.0.1:1", "--per-channel", "0")
	if err != nil || o.capacity != 8 || o.perChannel != 1 {
		t.Errorf("got %+v, %v; want capacity 8 and --per-channel 0 taken as 1", o, err)
	}
	if o, _ := parse(t, "tokens.txt", "--server", "x"); o.perChannel != botsPerChannel {
		t.Errorf("default --per-channel %d, want %d", o.perChannel, botsPerChannel)
	}
	for args, want := range map[string]string{
		"tokens.txt":                             "--server HOST:PORT is required",
		"--server x":                             "exactly one TOKENS_FILE (got 0",
		"a b --server x":                         "exactly one TOKENS_FILE (got 2",
		"tokens.txt --server x --capacity 0":     "--capacity must be at least 1 (got 0)",
		"tokens.txt --server x --capacity lots":  "invalid value",
		"tokens.txt --server x --unknown-option": "not defined",
	} {
		if _, err := parse(t, strings.Fields(args)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", args, err, want)
		}
	}
}

func TestTheTokensFileHasOneNameAndTokenALine(t *testing.T) {
	folder := t.TempDir()
	good := filepath.Join(folder, "good.txt")
	if err := os.WriteFile(good, []byte("a tok-a\n\n  b   -tok-b  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bots, err := readBots(good)
	if err != nil || len(bots) != 2 || bots[0] != (bot{"a", "tok-a"}) || bots[1] != (bot{"b", "-tok-b"}) {
		t.Errorf("got %v, %v", bots, err)
	}
	bad := filepath.Join(folder, "bad.txt")
	if err := os.WriteFile(bad, []byte("a tok-a\nonly-a-name\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readBots(bad); err == nil || !strings.Contains(err.Error(), `line 2 is not "name token": "only-a-name"`) {
		t.Errorf("got %v", err)
	}
	if _, err := readBots(filepath.Join(folder, "missing.txt")); err == nil || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("got %v", err)
	}
}

func TestTheStatsLineIsJSONWithThePythonKeys(t *testing.T) {
	var s stats
	s.decisions.Add(66)
	s.matchesEnded.Add(2)
	s.abnormalEnds.Add(1)
	text, found := strings.CutPrefix(s.line(), "stats ")
	var got map[string]int
	if err := json.Unmarshal([]byte(text), &got); !found || err != nil {
		t.Fatalf("%q: %v", s.line(), err)
	}
	want := map[string]int{
		"decisions": 66, "rejections": 0, "protocol_errors": 0, "stream_errors": 0, "matches_ended": 2, "abnormal_ends": 1,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for key, value := range want {
		if got[key] != value {
			t.Errorf("%s: got %d, want %d", key, got[key], value)
		}
	}
}
