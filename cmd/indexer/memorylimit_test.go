package main

import (
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
)

func TestSetMemoryLimit(t *testing.T) {
	const before = 7 << 30
	tests := []struct {
		name, spec, env string
		want            int64
	}{
		{"a size", "1GiB", "", 1 << 30},
		{"off", "off", "", before},
		{"GOMEMLIMIT wins", "1GiB", "3GiB", before},
		{"a share of the memory available", "50%", "", -1}, // checked against the machine below
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", tt.env)
			old := debug.SetMemoryLimit(before)
			t.Cleanup(func() { debug.SetMemoryLimit(old) })
			cfg := config.Default()
			cfg.MemoryLimit = tt.spec
			setMemoryLimit(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			got := debug.SetMemoryLimit(-1)
			if tt.want >= 0 && got != tt.want {
				t.Fatalf("memory limit %d, want %d", got, tt.want)
			}
			if tt.want < 0 && (got == before || got == math.MaxInt64 || got <= 0) {
				t.Fatalf("memory limit %d: a share of the machine's memory was not set", got)
			}
		})
	}
}
