package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func parse(t *testing.T, args ...string) *options {
	t.Helper()
	flags := flag.NewFlagSet("bot", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	o, err := parseArgs(flags, args)
	if err != nil {
		t.Fatalf("parseArgs(%q): %v", args, err)
	}
	return o
}

func TestATokenMayStartWithADashInEitherForm(t *testing.T) {
	if got := parse(t, "--server", "a:1", "--token=-x_Y").token; got != "-x_Y" {
		t.Errorf("--token=-x_Y gave %q", got)
	}
	if got := parse(t, "--token", "-x_Y", "--server", "a:1").token; got != "-x_Y" {
		t.Errorf("--token -x_Y gave %q", got)
	}
	if got := parse(t, "--token-file=-f").tokenFile; got != "-f" {
		t.Errorf("--token-file=-f gave %q", got)
	}
}

func environment(values map[string]string) func(string) string {
	return func(name string) string { return values[name] }
}

func TestTheTokenComesFromTheFlagThenTheFileThenTheEnvironment(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("  -from_file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := environment(map[string]string{"ARENA_TOKEN": "from_env", "ARENA_BOT_TOKEN": "older"})
	cases := []struct {
		given, path string
		env         func(string) string
		want        string
	}{
		{"-flag", file, env, "-flag"},
		{"", file, env, "-from_file"},
		{"", "", env, "from_env"},
		{"", "", environment(map[string]string{"ARENA_BOT_TOKEN": "older"}), "older"},
	}
	for _, c := range cases {
		got, err := tokenFrom(c.given, c.path, c.env)
		if err != nil || got != c.want {
			t.Errorf("tokenFrom(%q, %q) = %q, %v; want %q", c.given, c.path, got, err, c.want)
		}
	}
	_, err := tokenFrom("", "", environment(nil))
	if err == nil || err.Error() != "give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token" {
		t.Errorf("no token anywhere: %v", err)
	}
}

func TestAMissingOrEmptyTokenFileIsAnErrorNamingIt(t *testing.T) {
	folder := t.TempDir()
	empty := filepath.Join(folder, "empty")
	if err := os.WriteFile(empty, []byte(" \n\t"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(folder, "missing")
	env := environment(map[string]string{"ARENA_TOKEN": "from_env"})
	want := map[string]string{
		missing: `cannot read the token file "` + missing + `": no such file or directory`,
		empty:   `the token file "` + empty + `" is empty`,
	}
	for path, message := range want {
		if _, err := tokenFrom("", path, env); err == nil || err.Error() != message {
			t.Errorf("tokenFrom(%q) error = %v; want %q", path, err, message)
		}
	}
}
