package indexer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/fixtures"
	"github.com/ontoindex/ontoindex/objects"
)

// TestRealFixture_AppendOnly builds the copy-on-write fixtures of other
// engines step by step with readMode appendOnly: a step of appends and
// compactions is incremental and reads only what was appended, a step
// with an overwrite or a delete builds in full and says which snapshot
// made it full, and after every step the objects are exactly the rows of
// the snapshot, read independently.
func TestRealFixture_AppendOnly(t *testing.T) {
	for _, tc := range fxCowFixtures() {
		t.Run(tc.name, func(t *testing.T) {
			tbl := fixtures.MustLoad(t, tc.name)
			spec := fxSpec(t, "Cow", tc.name, tc.key...)
			spec.ReadMode = objects.ReadModeAppendOnly
			ix := fxMustIndexer(t, spec)
			steps := fxMainHistory(t, tbl)
			if tc.refs != nil {
				steps = steps[:0]
				for _, ref := range tc.refs {
					steps = append(steps, *tbl.SnapshotByName(ref))
				}
			}
			var prevSnap *table.Snapshot
			for i, s := range steps {
				if tc.dupFrom != 0 && i+1 >= tc.dupFrom {
					break // the key is no longer unique: TestRealFixture_CopyOnWrite covers the refusal
				}
				res := fxBuild(t, ix, "Cow", s.SnapshotID)
				fxAssertIndexEqualsTable(t, ix, "Cow", tbl, s.SnapshotID)
				if res.ReadMode != objects.ReadModeAppendOnly {
					t.Errorf("step %d: read mode %q, want appendOnly", i+1, res.ReadMode)
				}
				op := s.Summary.Operation
				linear := prevSnap != nil && s.ParentSnapshotID != nil && *s.ParentSnapshotID == prevSnap.SnapshotID
				switch {
				case prevSnap == nil:
					if res.Kind != indexer.KindFull || res.Reason != "first build" {
						t.Errorf("step 1: %s build, reason %q; want full, first build", res.Kind, res.Reason)
					}
				case linear && (op == table.OpOverwrite || op == table.OpDelete):
					want := fmt.Sprintf("appendOnly saw %s snapshot %d", op, s.SnapshotID)
					if res.Kind != indexer.KindFull || !strings.Contains(res.Reason, want) {
						t.Errorf("step %d (%s): %s build, reason %q; want full, %q", i+1, op, res.Kind, res.Reason, want)
					}
				case linear && op == table.OpAppend && res.Reason == "the mapping changed":
					// Schema evolution (a rename, a promotion) rebuilds in
					// either read mode.
					if res.Kind != indexer.KindFull {
						t.Errorf("step %d: %s build for a changed mapping", i+1, res.Kind)
					}
				case linear && op == table.OpAppend:
					if res.Kind != indexer.KindIncremental || res.Deletes != 0 {
						t.Errorf("step %d (append): %s build (%q), %d deletes; want incremental, none", i+1, res.Kind, res.Reason, res.Deletes)
					}
					if added := fxSummaryInt(t, s, "added-data-files"); int64(res.FilesRead) != added {
						t.Errorf("step %d (append): read %d files, the commit added %d", i+1, res.FilesRead, added)
					}
				case linear && op == table.OpReplace:
					// Compacting rows indexed before: nothing to read. Compacting
					// rows appended since the checkpoint would be full, with a
					// reason; a step of one snapshot never has such rows.
					if res.Kind != indexer.KindIncremental || res.FilesRead != 0 || res.Upserts != 0 || res.Deletes != 0 {
						t.Errorf("step %d (replace): %s build (%q), %d files, %d upserts, %d deletes; want incremental, nothing read",
							i+1, res.Kind, res.Reason, res.FilesRead, res.Upserts, res.Deletes)
					}
				case res.Kind == indexer.KindFull && res.Reason == "":
					t.Errorf("step %d: a full build without a reason", i+1)
				}
				t.Logf("step %d: snapshot %d (%s): %s build (%s), %d files read", i+1, s.SnapshotID, op, res.Kind, res.Reason, res.FilesRead)
				prevSnap = &s
			}
		})
	}
}
