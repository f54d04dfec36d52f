package config

import (
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

func TestConfig_PollInterval(t *testing.T) {
	cfg := &Config{Daemon: Daemon{PollInterval: 2 * time.Second},
		ObjectTypes: []objects.TypeSpec{{APIName: "Fast", PollInterval: 100 * time.Millisecond}, {APIName: "Plain"}}}
	tests := []struct {
		name string
		cfg  *Config
		typ  string
		want time.Duration
	}{
		{"its own", cfg, "Fast", 100 * time.Millisecond},
		{"the daemon's", cfg, "Plain", 2 * time.Second},
		{"not declared", cfg, "Nobody", 2 * time.Second},
		{"the default", &Config{}, "Nobody", DefaultPollInterval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.PollInterval(tt.typ); got != tt.want {
				t.Errorf("PollInterval(%s) = %s, want %s", tt.typ, got, tt.want)
			}
		})
	}
}
