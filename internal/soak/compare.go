package soak

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// tally counts what a comparison of served objects with the table found.
type tally struct {
	Checks  int `json:"checks"`  // comparisons made
	Objects int `json:"objects"` // objects compared
	Lost    int `json:"lost"`    // rows of the table not served
	Ghost   int `json:"ghost"`   // served objects that are no row of the table
	Differs int `json:"differs"` // served objects that differ from their row
	// Wrong counts answers (gets, searches, aggregations, links) that
	// differ from what the table's rows give.
	Wrong      int         `json:"wrong"`
	Violations []violation `json:"violations,omitempty"` // the first few
}

const maxSamples = 20

func (t *tally) add(v violation) {
	switch v.Kind {
	case vLost:
		t.Lost++
	case vExtra, vGhost:
		t.Ghost++
	case vDiffers:
		t.Differs++
	default:
		t.Wrong++
	}
	if len(t.Violations) < maxSamples {
		t.Violations = append(t.Violations, v)
	}
}

func (t *tally) ok() bool { return t.Lost+t.Ghost+t.Differs+t.Wrong == 0 }

// compareObjects compares served objects of a type with the rows they
// must be (by key): what is missing, extra or different.
func compareObjects(t *tally, what, typ string, want map[int64]map[string]string, got []map[string]string) {
	t.Checks++
	t.Objects += len(got)
	seen := map[int64]bool{}
	for _, o := range got {
		k, err := strconv.ParseInt(keyOf(typ, o), 10, 64)
		if err != nil {
			t.add(violationf(vExtra, "%s: a %s without a key: %v", what, typ, o))
			continue
		}
		if seen[k] {
			t.add(violationf(vExtra, "%s: %s %d served twice", what, typ, k))
			continue
		}
		seen[k] = true
		w, ok := want[k]
		switch {
		case !ok:
			t.add(violationf(vExtra, "%s: %s %d is no row of the table: %v", what, typ, k, o))
		default:
			if d := diffObject(o, w); d != "" {
				t.add(violationf(vDiffers, "%s: %s %d: %s", what, typ, k, d))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if !seen[k] {
			t.add(violationf(vLost, "%s: %s %d is not served: %v", what, typ, k, want[k]))
		}
	}
}

// expect records a wrong answer when got differs from want.
func expect[T comparable](t *tally, what string, got, want T) {
	t.Checks++
	if got != want {
		t.add(violationf(vPage, "%s: got %v, want %v", what, got, want))
	}
}

func idsOf(typ string, objs []map[string]string) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = keyOf(typ, o)
	}
	return out
}

func fmtIDs(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprint(id)
	}
	return out
}
