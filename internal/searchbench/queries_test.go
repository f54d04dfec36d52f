package searchbench

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestSelectQueries(t *testing.T) {
	qs := queries(100_000, &deepPage{page: 10})
	all := make([]string, 0, len(qs))
	for _, q := range qs {
		all = append(all, q.id)
	}
	tests := []struct {
		name    string
		want    []string
		measure []string // sorted ids measured
		err     string
	}{
		{"none asked: all", nil, slices.Sorted(slices.Values(all)), ""},
		{"some", []string{"union", "get"}, []string{"get", "union"}, ""},
		{"repeated", []string{"get", "get"}, []string{"get"}, ""},
		{"unknown", []string{"get", "gets"}, nil, `unknown query "gets" (queries: get, sorted`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := selectQueries(qs, tt.want)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, tt.measure) {
				t.Fatalf("measures %v, want %v", ids, tt.measure)
			}
		})
	}
}
