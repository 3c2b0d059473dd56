package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
	digest "github.com/opencontainers/go-digest"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"
)

// offlineImages answers BuildKit's questions about base images without a registry: every image
// has the environment of the official Python images (the linter checks $VARS against it).
type offlineImages struct{}

func (offlineImages) ResolveImageConfig(
	_ context.Context, ref string, _ sourceresolver.Opt,
) (string, digest.Digest, []byte, error) {
	config, err := json.Marshal(ocispecs.Image{
		Platform: ocispecs.Platform{OS: "linux", Architecture: "amd64"},
		Config: ocispecs.ImageConfig{Env: []string{
			"PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin",
			"LANG=C.UTF-8",
			"PYTHON_VERSION=3.11",
		}},
		RootFS: ocispecs.RootFS{Type: "layers"},
	})
	return ref, digest.FromBytes(config), config, err
}

// Copy is one COPY or ADD.
type Copy struct {
	Instruction string   `json:"instruction"`
	From        string   `json:"from"` // a stage or image; "" for the build context
	Sources     []string `json:"sources"`
	Dest        string   `json:"dest"`
	Chmod       string   `json:"chmod"`
	// Files under each context source that the .dockerignore lets into the context.
	ContextFiles map[string]int `json:"context_files,omitempty"`
}

// Stage is one FROM and what follows it.
type Stage struct {
	Name   string   `json:"name"`
	Base   string   `json:"base"`
	Args   []string `json:"args"`
	Copies []Copy   `json:"copies"`
	Runs   []string `json:"runs"`
}

// Image is what the final stage leaves in the image's config.
type Image struct {
	User        string            `json:"user"`
	Workdir     string            `json:"workdir"`
	Entrypoint  []string          `json:"entrypoint"`
	Cmd         []string          `json:"cmd"`
	ShellForm   []string          `json:"shell_form"` // ENTRYPOINT/CMD given as a string, not JSON
	Expose      []string          `json:"expose"`
	Env         map[string]string `json:"env"`
	Healthcheck []string          `json:"healthcheck"`
}

// DockerfileReport is what `deploycheck dockerfile` prints.
type DockerfileReport struct {
	Stages []Stage          `json:"stages"`
	Final  Image            `json:"final"`
	Probes map[string]bool  `json:"probes"` // path -> whether it would be sent in the build context
	Lint   []map[string]any `json:"lint"`   // always empty on success
}

func dockerfileMain(args []string) (any, error) {
	flags := flag.NewFlagSet("dockerfile", flag.ExitOnError)
	contextDir := flags.String("context", ".", "the build context (its .dockerignore applies)")
	var probes []string
	flags.Func("probe", "a context path to report as sent or not (repeatable)", func(p string) error {
		probes = append(probes, p)
		return nil
	})
	if err := flags.Parse(args); err != nil {
		return nil, err
	}
	if flags.NArg() != 1 {
		return nil, errors.New("give one Dockerfile")
	}
	source, err := os.ReadFile(flags.Arg(0))
	if err != nil {
		return nil, err
	}
	if err := lint(source, flags.Arg(0)); err != nil {
		return nil, err
	}
	report, err := describe(source)
	if err != nil {
		return nil, err
	}
	matcher, err := dockerignore(*contextDir)
	if err != nil {
		return nil, err
	}
	if err := checkContext(report, *contextDir, matcher); err != nil {
		return nil, err
	}
	report.Probes = map[string]bool{}
	for _, p := range probes {
		excluded, err := matcher.MatchesOrParentMatches(filepath.ToSlash(filepath.Clean(p)))
		if err != nil {
			return nil, err
		}
		report.Probes[p] = !excluded
	}
	report.Lint = []map[string]any{}
	return report, nil
}

// lint runs BuildKit's Dockerfile frontend in lint mode over every stage; any warning fails.
func lint(source []byte, name string) error {
	sourceMap := llb.NewSourceMap(nil, filepath.Base(name), "Dockerfile", source)
	sourceMap.Definition = &llb.Definition{}
	platform := ocispecs.Platform{OS: "linux", Architecture: "amd64"}
	results, err := dockerfile2llb.DockerfileLint(context.Background(), source, dockerfile2llb.ConvertOpt{
		SourceMap:      sourceMap,
		MetaResolver:   offlineImages{},
		TargetPlatform: &platform,
	})
	if err != nil {
		return err
	}
	var problems []string
	if results.Error != nil {
		problems = append(problems, "build error: "+results.Error.Message)
	}
	for _, warning := range results.Warnings {
		line := 0
		if warning.Location != nil && len(warning.Location.Ranges) > 0 {
			line = int(warning.Location.Ranges[0].Start.Line)
		}
		problems = append(problems, fmt.Sprintf("line %d: %s: %s", line, warning.RuleName, warning.Detail))
	}
	if len(problems) > 0 {
		return fmt.Errorf("BuildKit's checks failed:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

func describe(source []byte) (*DockerfileReport, error) {
	parsed, err := parser.Parse(bytes.NewReader(source))
	if err != nil {
		return nil, err
	}
	stages, _, err := instructions.Parse(parsed.AST, linter.New(&linter.Config{}))
	if err != nil {
		return nil, err
	}
	if len(stages) == 0 {
		return nil, errors.New("no stage")
	}
	report := &DockerfileReport{}
	final := Image{Env: map[string]string{}, Entrypoint: []string{}, Cmd: []string{}, Expose: []string{}, ShellForm: []string{}}
	for i, stage := range stages {
		s := Stage{Name: stage.Name, Base: stage.BaseName, Args: []string{}, Copies: []Copy{}, Runs: []string{}}
		last := i == len(stages)-1
		for _, command := range stage.Commands {
			switch c := command.(type) {
			case *instructions.CopyCommand:
				s.Copies = append(s.Copies, Copy{"COPY", c.From, c.SourcePaths, c.DestPath, c.Chmod, nil})
			case *instructions.AddCommand:
				s.Copies = append(s.Copies, Copy{"ADD", "", c.SourcePaths, c.DestPath, c.Chmod, nil})
			case *instructions.RunCommand:
				s.Runs = append(s.Runs, strings.Join(c.CmdLine, " "))
			case *instructions.ArgCommand:
				for _, arg := range c.Args {
					s.Args = append(s.Args, arg.Key)
				}
			}
			if !last {
				continue
			}
			switch c := command.(type) {
			case *instructions.UserCommand:
				final.User = c.User
			case *instructions.WorkdirCommand:
				final.Workdir = c.Path
			case *instructions.EntrypointCommand:
				final.Entrypoint = c.CmdLine
				final.Cmd = []string{} // as in Docker: a new ENTRYPOINT resets an inherited CMD
				if c.PrependShell {
					final.ShellForm = append(final.ShellForm, "ENTRYPOINT")
				}
			case *instructions.CmdCommand:
				final.Cmd = c.CmdLine
				if c.PrependShell {
					final.ShellForm = append(final.ShellForm, "CMD")
				}
			case *instructions.ExposeCommand:
				final.Expose = append(final.Expose, c.Ports...)
			case *instructions.EnvCommand:
				for _, kv := range c.Env {
					final.Env[kv.Key] = kv.Value
				}
			case *instructions.HealthCheckCommand:
				final.Healthcheck = c.Health.Test
			}
		}
		report.Stages = append(report.Stages, s)
	}
	report.Final = final
	return report, nil
}

func dockerignore(contextDir string) (*patternmatcher.PatternMatcher, error) {
	var patterns []string
	f, err := os.Open(filepath.Join(contextDir, ".dockerignore"))
	switch {
	case err == nil:
		defer f.Close()
		if patterns, err = ignorefile.ReadAll(f); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return patternmatcher.New(patterns)
}

// checkContext fails unless every COPY/ADD source taken from the build context exists and has at
// least one file that the .dockerignore lets into the context; it records how many.
func checkContext(report *DockerfileReport, contextDir string, matcher *patternmatcher.PatternMatcher) error {
	stageNames := map[string]bool{}
	var problems []string
	for si := range report.Stages {
		stage := &report.Stages[si]
		for ci := range stage.Copies {
			c := &stage.Copies[ci]
			if c.From != "" {
				if !stageNames[c.From] {
					problems = append(problems, fmt.Sprintf("%s --from=%s: no earlier stage of that name", c.Instruction, c.From))
				}
				continue
			}
			c.ContextFiles = map[string]int{}
			for _, source := range c.Sources {
				if strings.Contains(source, "://") {
					problems = append(problems, fmt.Sprintf("%s %s: a remote source", c.Instruction, source))
					continue
				}
				n, err := sentFiles(contextDir, source, matcher)
				if err != nil {
					return err
				}
				c.ContextFiles[source] = n
				if n == 0 {
					problems = append(problems, fmt.Sprintf(
						"%s %s: nothing in the build context (missing, or excluded by .dockerignore)", c.Instruction, source))
				}
			}
		}
		if stage.Name != "" {
			stageNames[stage.Name] = true
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the build context does not fit the Dockerfile:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// sentFiles counts the regular files matched by a COPY source (a path or a glob, relative to the
// context) that the .dockerignore does not exclude.
func sentFiles(contextDir, source string, matcher *patternmatcher.PatternMatcher) (int, error) {
	matches, err := filepath.Glob(filepath.Join(contextDir, filepath.FromSlash(source)))
	if err != nil {
		return 0, err
	}
	count := 0
	for _, match := range matches {
		err := filepath.WalkDir(match, func(path string, entry fs.DirEntry, err error) error {
			if err != nil || entry.IsDir() {
				return err
			}
			rel, err := filepath.Rel(contextDir, path)
			if err != nil {
				return err
			}
			excluded, err := matcher.MatchesOrParentMatches(filepath.ToSlash(rel))
			if err == nil && !excluded {
				count++
			}
			return err
		})
		if err != nil {
			return 0, err
		}
	}
	return count, nil
}
