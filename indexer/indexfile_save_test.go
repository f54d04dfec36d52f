package indexer

import (
	"testing"

	"github.com/ontoindex/ontoindex/indexer/index"
)

// TestGeneration_saved checks the count of documents changed since the
// index file when commits land while the file is written.
func TestGeneration_saved(t *testing.T) {
	snap := func(version uint64) *index.Snapshot { return index.NewBuilder(fullDocsType()).Finish(version) }
	commit := func(g *generation, version uint64, changed int) {
		g.stage(snap(version))
		g.promote(true, changed)
	}
	tests := []struct {
		name      string
		noFile    bool
		dirty     int // before the save
		during    []int
		wantDirty int
	}{
		{"first file, no commit during the write", true, 0, nil, 0},
		{"first file, commits during the write", true, 0, []int{3, 2}, 5},
		{"a later file, commits during the write", false, saveEvery + 7, []int{1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &generation{cur: snap(1), dirty: tt.dirty, noFile: tt.noFile}
			s, changed, ok := g.needsSave()
			if !ok || s == nil {
				t.Fatalf("needsSave = %v, %v; want a save", s, ok)
			}
			for i, n := range tt.during {
				commit(g, uint64(i+2), n)
			}
			g.saved(changed)
			if g.dirty != tt.wantDirty || g.noFile {
				t.Fatalf("after the save: dirty %d, noFile %v; want %d, false", g.dirty, g.noFile, tt.wantDirty)
			}
			if _, _, again := g.needsSave(); again {
				t.Fatal("a few commits during the write ask for another save at once")
			}
		})
	}
}
