// Command deploycheck checks the arena's deploy files offline, with the parsers the real tools use,
// and prints what it found as JSON for tests/test_deploy_files.py to assert on.
//
//	deploycheck compose [-env KEY=VALUE]... [-name PROJECT] FILE
//	deploycheck dockerfile [-context DIR] [-probe PATH]... FILE
//	deploycheck kustomize DIR
//
// compose loads a Compose file with the Compose specification's Go loader (compose-go, the library
// `docker compose` itself uses): YAML (anchors, merge keys), interpolation, JSON-schema validation,
// normalisation and the consistency checks, as `docker compose config` does. It prints the resolved
// project.
//
// dockerfile runs BuildKit's Dockerfile frontend in lint mode (what `docker build --check` runs),
// with base images answered by a stand-in so nothing is pulled, then parses the instructions and
// checks every COPY/ADD source against the build context and its .dockerignore (BuildKit's own
// pattern matcher). It prints the stages and the final image's settings.
//
// kustomize builds a kustomization with kustomize's own library (what `kubectl apply -k` runs) and
// prints the rendered objects, for the test to validate against the Kubernetes schemas.
//
// Exit status: 0 with the JSON on stdout; 1 with the reasons on stderr; 2 for a usage error.
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var (
		result any
		err    error
	)
	switch os.Args[1] {
	case "compose":
		result, err = composeMain(os.Args[2:])
	case "dockerfile":
		result, err = dockerfileMain(os.Args[2:])
	case "kustomize":
		result, err = kustomizeMain(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "deploycheck %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	out, err := json.MarshalIndent(result, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "deploycheck:", err)
		os.Exit(1)
	}
	fmt.Println(string(out))
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: deploycheck compose [-env KEY=VALUE]... [-name PROJECT] FILE")
	fmt.Fprintln(os.Stderr, "       deploycheck dockerfile [-context DIR] [-probe PATH]... FILE")
	fmt.Fprintln(os.Stderr, "       deploycheck kustomize DIR")
	os.Exit(2)
}
