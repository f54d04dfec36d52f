package changelog

import (
	"slices"
	"testing"
)

func TestClassify(t *testing.T) {
	live := func(p string) bool { return p == "live.parquet" || p == "new.parquet" }
	tests := []struct {
		name     string
		prevFile string
		prevHash uint64
		found    bool
		want     ChangeType
	}{
		{"new key", "", 0, false, Insert},
		{"moved unchanged", "gone.parquet", 7, true, CarryOver},
		{"moved changed", "gone.parquet", 8, true, UpdateAfter},
		{"twice in the same file", "new.parquet", 7, true, ""},
		{"also in another live file", "live.parquet", 7, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(RowSource{File: "new.parquet", Hash: 7}, RowSource{File: tt.prevFile, Hash: tt.prevHash}, tt.found, live); got != tt.want {
				t.Errorf("Classify = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPlanDiff(t *testing.T) {
	manifests := []Manifest{
		{Path: "m1", Known: true, Files: []DataFile{{Path: "a"}, {Path: "b"}}},
		{Path: "m2", Files: []DataFile{{Path: "c", Records: 3}, {Path: "d", Records: 4}}},
		// A rewritten manifest listing a baseline file: not added again.
		{Path: "m3", Files: []DataFile{{Path: "e"}}},
	}
	base := func(yield func(string) bool) {
		for _, p := range []string{"a", "b", "e", "x", "y"} {
			if !yield(p) {
				return
			}
		}
	}
	p, err := PlanDiff(manifests, base)
	if err != nil {
		t.Fatal(err)
	}
	var added []string
	for _, f := range p.Added {
		added = append(added, f.Path)
	}
	if !slices.Equal(added, []string{"c", "d"}) || !slices.Equal(p.Removed, []string{"x", "y"}) || p.TotalRecords() != 7 || len(p.Live) != 5 {
		t.Errorf("plan = added %v removed %v live %v", added, p.Removed, p.Live)
	}
	if _, err := PlanDiff([]Manifest{{Path: "m", Files: []DataFile{{Path: "a"}, {Path: "a"}}}}, base); err == nil {
		t.Error("a file live twice was accepted")
	}
}
