package api

import (
	"fmt"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// TestGroupID checks that the kinds groupID spells without fmt are spelled
// as the general form spells them, so that every kind keeps one identity.
func TestGroupID(t *testing.T) {
	for _, v := range []any{"Quito", "", "a\x00b", int64(-42), int64(0), true, false} {
		t.Run(fmt.Sprintf("%T %v", v, v), func(t *testing.T) {
			want := fmt.Sprintf("v%T:%s", v, objects.TextOf(v))
			if got := groupID(query.Exact, query.GroupKey{Value: v}); got != want {
				t.Errorf("groupID = %q, want %q", got, want)
			}
		})
	}
	if a, b := groupID(query.Exact, query.GroupKey{Value: "1"}), groupID(query.Exact, query.GroupKey{Value: int64(1)}); a == b {
		t.Errorf("a string and a long of one spelling share the id %q", a)
	}
}
