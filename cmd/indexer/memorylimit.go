package main

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/memorylimit"
)

// setMemoryLimit sets the runtime's soft memory limit from the config's
// memoryLimit, unless the environment set GOMEMLIMIT (which the runtime
// read as it started), and returns it (0 when it set none). A limit that
// cannot be worked out is not set: the process runs as without one, and
// says why.
func setMemoryLimit(cfg *config.Config, log *slog.Logger) int64 {
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		log.Info("memory limit from GOMEMLIMIT", "GOMEMLIMIT", v)
		return 0
	}
	spec, err := memorylimit.Parse(cfg.MemoryLimit)
	if err != nil || spec.Off() {
		return 0 // (Validate reported a bad one)
	}
	available, source, err := memorylimit.Available(os.DirFS("/"))
	if err != nil {
		log.Warn("memoryLimit not set", "memoryLimit", cfg.MemoryLimit, "error", err)
		return 0
	}
	limit := spec.Limit(available)
	debug.SetMemoryLimit(limit)
	log.Info("memory limit", "bytes", limit, "memoryLimit", cfg.MemoryLimit, "available", available, "from", source)
	return limit
}
