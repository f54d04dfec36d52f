package main

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/api/typescript"
	"github.com/ontoindex/ontoindex/objects"
)

// runOSDKTypes writes the TypeScript definitions @osdk/client 2.22.0
// applications import (api/typescript) for the object types, interfaces
// and links of the config. Each object type is resolved as the engine
// resolves it: as of its checkpoint when it was built, else against the
// current schema of its table, so the data types are the ones the server
// answers with.
func runOSDKTypes(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "osdk-types", "--config F --out DIR")
	cfgPath := fs.String("config", "", "config file")
	out := fs.String("out", "", "directory to write the definitions into (index.ts, OntologyMetadata.ts, ontology/...); created when missing (required)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *out == "" {
		fmt.Fprintln(env.Stderr, "indexer osdk-types: --out is required")
		return exitUsage
	}
	ix, code, ok := openIndex(ctx, env, openRequest{command: "osdk-types", configPath: *cfgPath, openFailed: exitFailed})
	if !ok {
		return code
	}
	defer ix.Close()
	cfg := ix.Config()
	set := cfg.InterfaceSet()
	var types []*objects.Type
	failed := false
	for _, spec := range cfg.ObjectTypes {
		t, err := ix.ObjectType(ctx, spec.APIName)
		if err == nil && set != nil {
			// A mapped property whose type is not the interface's would make
			// the definitions promise what the server does not answer.
			err = set.CheckType(t)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "indexer osdk-types: %s\n", typeMessage(spec.APIName, err.Error()))
			failed = true
			continue
		}
		types = append(types, t)
	}
	if failed {
		return exitFailed
	}
	files, err := typescript.Generate(typescript.Ontology{RID: cfg.Ontology.RID, ObjectTypes: types, Links: cfg.Links(),
		Interfaces: set, UserAgent: "ontoindex-osdk-types/" + version})
	if err == nil {
		err = typescript.Write(*out, files)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer osdk-types: %v\n", err)
		return exitFailed
	}
	interfaces := 0
	if set != nil {
		interfaces = len(set.Names())
	}
	fmt.Fprintf(env.Stdout, "wrote the definitions of %d object types and %d interfaces to %s\n", len(types), interfaces, *out)
	return exitOK
}
