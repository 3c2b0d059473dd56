package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/sirupsen/logrus"
)

// loaderWarnings collects what the Compose loader logs at warning level or above: a variable
// without a default, an obsolete attribute. Each is an error here.
type loaderWarnings struct{ messages []string }

func (w *loaderWarnings) Levels() []logrus.Level {
	return []logrus.Level{logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel, logrus.WarnLevel}
}

func (w *loaderWarnings) Fire(entry *logrus.Entry) error {
	w.messages = append(w.messages, entry.Message)
	return nil
}

type keyValues []string

func (kv *keyValues) String() string { return strings.Join(*kv, ",") }

func (kv *keyValues) Set(value string) error {
	if !strings.Contains(value, "=") {
		return fmt.Errorf("want KEY=VALUE, got %q", value)
	}
	*kv = append(*kv, value)
	return nil
}

// composeMain loads FILE as `docker compose config` would, with an environment made of the -env
// pairs alone (not the OS environment), so every ${VAR} in the file must carry its own default.
func composeMain(args []string) (any, error) {
	flags := flag.NewFlagSet("compose", flag.ExitOnError)
	var env keyValues
	flags.Var(&env, "env", "KEY=VALUE for interpolation (repeatable)")
	name := flags.String("name", "arena", "the project name")
	if err := flags.Parse(args); err != nil {
		return nil, err
	}
	if flags.NArg() != 1 {
		return nil, fmt.Errorf("give one Compose file")
	}

	warnings := &loaderWarnings{}
	logrus.AddHook(warnings)
	logrus.SetOutput(os.Stderr)

	path, err := filepath.Abs(flags.Arg(0))
	if err != nil {
		return nil, err
	}
	options, err := cli.NewProjectOptions(
		[]string{path},
		cli.WithName(*name),
		cli.WithWorkingDirectory(filepath.Dir(path)),
		cli.WithEnv(env),
		cli.WithInterpolation(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		return nil, err
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		return nil, err
	}
	if len(warnings.messages) > 0 {
		return nil, fmt.Errorf("the loader warned:\n  %s", strings.Join(warnings.messages, "\n  "))
	}
	out, err := project.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(out), nil
}
