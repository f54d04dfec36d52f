package searchbench

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b result
		want string // "" for no difference, else a part of it
	}{
		{"same ids", result{ids: []int64{1, 2, 3}}, result{ids: []int64{1, 2, 3}}, ""},
		{"both empty", result{}, result{}, ""},
		{"order", result{ids: []int64{1, 3, 2}}, result{ids: []int64{1, 2, 3}}, "from position 1"},
		{"shorter", result{ids: []int64{1, 2}}, result{ids: []int64{1, 2, 3}}, "ontoindex 2 ids [], PostgreSQL 3 ids [3]"},
		{"same counts", result{counts: map[string]int64{"Oslo": 3, "Rome": 4}}, result{counts: map[string]int64{"Rome": 4, "Oslo": 3}}, ""},
		{"counts", result{counts: map[string]int64{"": 3}}, result{counts: map[string]int64{"": 4}}, "counts differ"},
		{"missing group", result{counts: map[string]int64{"Oslo": 3}}, result{counts: map[string]int64{"Oslo": 3, "Rome": 0}}, "counts differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diff(tt.a, tt.b)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("diff = %q, want %q", got, tt.want)
			}
		})
	}
}
