package serverconfig_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/config"
)

func TestTemporaryObjectSets_validate(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		field string // "" for a valid config
	}{
		{"set values", "server: {temporaryObjectSets: {expiry: 5m, maxSets: 3, maxBytes: 4096}}", ""},
		{"negative expiry", "server: {temporaryObjectSets: {expiry: -1s}}", "server.temporaryObjectSets.expiry"},
		{"negative bound", "server: {temporaryObjectSets: {maxSets: -1}}", "server.temporaryObjectSets.maxSets"},
		{"negative bytes", "server: {temporaryObjectSets: {maxBytes: -1}}", "server.temporaryObjectSets.maxBytes"},
		{"unknown key", "server: {temporaryObjectSets: {ttl: 5m}}", "ttl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(serverBase+tt.yaml+"\n"), t.TempDir())
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := cfg.Server.TemporaryObjectSets; got.Expiry != 5*time.Minute || got.MaxSets != 3 || got.MaxBytes != 4096 {
					t.Fatalf("got %+v", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("err = %v, want one naming %s", err, tt.field)
			}
		})
	}
}
