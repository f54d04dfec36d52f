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
		{"same total", result{ids: []int64{1}, total: 7, counted: true}, result{ids: []int64{1}, total: 7, counted: true}, ""},
		{"total", result{ids: []int64{1}, total: 7, counted: true}, result{ids: []int64{1}, total: 8, counted: true}, "totalCount differs: ontoindex 7, PostgreSQL COUNT(*) 8"},
		{"total zero is a total", result{counted: true}, result{}, "ontoindex 0, PostgreSQL COUNT(*) none"},
		{"no total on ontoindex", result{ids: []int64{1}}, result{ids: []int64{1}, total: 1, counted: true}, "ontoindex none"},
		{"total and ids", result{ids: []int64{1}, total: 1, counted: true}, result{ids: []int64{2}, total: 2, counted: true}, "COUNT(*) 2; ids differ from position 0"},
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
