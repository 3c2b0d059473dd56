package main

import (
	"errors"
	"flag"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomizeMain builds a kustomization directory with kustomize's own library (what
// `kubectl apply -k` and `kustomize build` run) and returns the rendered objects, as a list.
func kustomizeMain(args []string) (any, error) {
	flags := flag.NewFlagSet("kustomize", flag.ExitOnError)
	if err := flags.Parse(args); err != nil {
		return nil, err
	}
	if flags.NArg() != 1 {
		return nil, errors.New("give one kustomization directory")
	}
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), flags.Arg(0))
	if err != nil {
		return nil, err
	}
	objects := []map[string]any{}
	for _, resource := range resources.Resources() {
		object, err := resource.Map()
		if err != nil {
			return nil, err
		}
		objects = append(objects, object)
	}
	return objects, nil
}
