package main

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/cli"
)

// openRequest is what a command asks of openIndex.
type openRequest struct {
	command    string // the command's name, for messages
	configPath string // --config
	objectType string // --type, checked against the config when set
	progress   func(indexer.Progress)
	// openFailed is the exit code for an index that does not open: check
	// counts that as a config error, the other commands as a failure.
	openFailed int
}

// openIndex loads the config, checks the object type against it and opens
// the index, reporting any failure; it returns the exit code when the
// command must stop.
func openIndex(ctx context.Context, env *Env, req openRequest) (*indexer.Indexer, int, bool) {
	cfg, code, ok := loadConfig(env, req.command, req.configPath)
	if !ok {
		return nil, code, false
	}
	if !checkType(env, req.command, cfg, req.objectType) {
		return nil, exitUsage, false
	}
	log := cli.Logger(env)
	setMemoryLimit(cfg, log)
	ix, err := indexer.Open(ctx, cfg, indexer.Options{Logger: log, Progress: req.progress})
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer %s: %v\n", req.command, err)
		return nil, req.openFailed, false
	}
	return ix, 0, true
}
