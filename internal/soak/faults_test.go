package soak

import (
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
)

func TestBuildText(t *testing.T) {
	tests := []struct {
		name string
		b    indexer.BuildSummary
		want string
	}{
		{"incremental, no reason", indexer.BuildSummary{Kind: indexer.KindIncremental}, "incremental"},
		{"full with its reason", indexer.BuildSummary{Kind: indexer.KindFull, Reason: "the table was recreated"}, "full (the table was recreated)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildText(&tt.b); got != tt.want {
				t.Errorf("buildText = %q, want %q", got, tt.want)
			}
		})
	}
}
