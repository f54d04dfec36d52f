package serverconfig_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer/config"
)

func TestSnapshotListings_validate(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		want  serverconfig.SnapshotListings
		field string // "" for a valid config
	}{
		{"set values", "server: {snapshotListings: {retention: 30s, maxListings: 7}}", serverconfig.SnapshotListings{Retention: 30 * time.Second, MaxListings: 7}, ""},
		{"negative retention", "server: {snapshotListings: {retention: -1s}}", serverconfig.SnapshotListings{}, "server.snapshotListings.retention"},
		{"negative bound", "server: {snapshotListings: {maxListings: -1}}", serverconfig.SnapshotListings{}, "server.snapshotListings.maxListings"},
		{"unknown key", "server: {snapshotListings: {expiry: 5m}}", serverconfig.SnapshotListings{}, "expiry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(serverBase+tt.yaml+"\n"), t.TempDir())
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := cfg.Server.SnapshotListings; got != tt.want {
					t.Fatalf("got %+v, want %+v", got, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("err = %v, want one naming %s", err, tt.field)
			}
		})
	}
}
