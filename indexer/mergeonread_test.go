package indexer_test

import (
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/objects"
)

// morSpec is the Customer type with mergeOnRead: index.
func morSpec() *objects.TypeSpec {
	return &objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers", MergeOnRead: objects.MergeOnReadIndex}
}

func TestIndexer_Check_mergeOnRead(t *testing.T) {
	tests := []struct {
		name        string
		spec        *objects.TypeSpec
		wantVerdict cowguard.Verdict
		wantMessage string
	}{
		{"refuse", nil, cowguard.VerdictFail, "incremental indexing is blocked"},
		{"index", morSpec(), cowguard.VerdictOK, "indexed with merge-on-read (mergeOnRead: index)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustFixture(t, iceberg.Properties{"format-version": "2", cowguard.DeleteModeKey: cowguard.MergeOnRead}, 2, tt.spec)
			if err := f.tb.Delete(f.ctx, id(4)); err != nil {
				t.Fatal(err)
			}
			r, err := f.ix.Check(f.ctx, f.name)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tt.wantVerdict || !strings.Contains(r.Message, tt.wantMessage) || r.LiveDeleteFiles.Position != 1 {
				t.Errorf("check = %s %q (%+v), want %s %q", r.Verdict, r.Message, r.LiveDeleteFiles, tt.wantVerdict, tt.wantMessage)
			}
			st, err := f.ix.Status(f.name)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]objects.MergeOnReadPolicy{true: objects.MergeOnReadIndex}[tt.spec != nil]; st.MergeOnRead != want {
				t.Errorf("status mergeOnRead = %q, want %q", st.MergeOnRead, want)
			}
		})
	}
}
