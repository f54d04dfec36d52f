package main

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/cli"
)

// openIndex loads --config, checks --type against it (when set) and opens
// the index, reporting any failure; it returns the exit code when the
// command must stop. openFailed is the code for an index that does not
// open: check counts that as a config error, the other commands as a
// failure.
func openIndex(ctx context.Context, env *Env, cmd, cfgPath, typ string, progress func(indexer.Progress), openFailed int) (*indexer.Indexer, int, bool) {
	cfg, code, ok := loadConfig(env, cmd, cfgPath)
	if !ok {
		return nil, code, false
	}
	if !checkType(env, cmd, cfg, typ) {
		return nil, exitUsage, false
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{Logger: cli.Logger(env), Progress: progress})
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer %s: %v\n", cmd, err)
		return nil, openFailed, false
	}
	return ix, 0, true
}
