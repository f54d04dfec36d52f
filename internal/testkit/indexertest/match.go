package indexertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// MatchTable checks invariant 1: the objects of a type are exactly the rows
// of its checkpoint snapshot, read independently through iceberg-go's scan,
// projected by the mapping and keyed by primary key.
func MatchTable(tb testing.TB, ix *indexer.Indexer, name string, tbl *icebergtest.Table) {
	tb.Helper()
	if err := Match(ix, name, tbl); err != nil {
		tb.Fatal(err)
	}
}

// Match is MatchTable returning the difference as an error.
func Match(ix *indexer.Indexer, name string, tbl *icebergtest.Table) error {
	ctx := context.Background()
	cp, err := ix.Checkpoint(name)
	if err != nil {
		return err
	}
	if cp == nil {
		return fmt.Errorf("%s has no checkpoint", name)
	}
	if err := tbl.Refresh(ctx); err != nil {
		return err
	}
	want := map[string]map[string]string{}
	if cp.SnapshotID != 0 {
		rows, err := tbl.ReadRows(ctx, cp.SnapshotID)
		if err != nil {
			return fmt.Errorf("read table at snapshot %d: %w", cp.SnapshotID, err)
		}
		for _, r := range rows {
			obj := map[string]string{}
			for _, p := range cp.Type.Properties {
				if v, ok := r[p.Column]; ok && v != nil {
					obj[p.APIName] = Normalize(v)
				}
			}
			want[keyOf(cp.Type.PrimaryKey, obj)] = obj
		}
	}
	got := map[string]map[string]string{}
	v, err := ix.View(name)
	if err != nil {
		return err
	}
	defer v.Release()
	n := v.Count()
	exported := 0
	err = v.Scan(nil, func(_ []byte, o *objects.Object) bool {
		exported++
		obj := map[string]string{}
		for k, val := range v.Type().JSON(o) {
			if !strings.HasPrefix(k, "__") {
				obj[k] = Normalize(val)
			}
		}
		got[keyOf(cp.Type.PrimaryKey, obj)] = obj
		return true
	})
	if err != nil {
		return err
	}
	var diffs []string
	for _, k := range slices.Sorted(keys(want)) {
		g, ok := got[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("missing object %s: %v", k, want[k]))
		case !equalMaps(g, want[k]):
			diffs = append(diffs, fmt.Sprintf("object %s: got %v, want %v", k, g, want[k]))
		}
	}
	for _, k := range slices.Sorted(keys(got)) {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("extra object %s: %v", k, got[k]))
		}
	}
	if exported != len(got) {
		diffs = append(diffs, fmt.Sprintf("%d objects stored under %d distinct keys", exported, len(got)))
	}
	if n != int64(exported) {
		diffs = append(diffs, fmt.Sprintf("count says %d objects, scan found %d", n, exported))
	}
	if err := v.CheckIndex(context.Background()); err != nil {
		diffs = append(diffs, fmt.Sprintf("the served index is not the one the store makes: %v", err))
	}
	if len(diffs) > 0 {
		if len(diffs) > 10 {
			diffs = append(diffs[:10], fmt.Sprintf("... and %d more", len(diffs)-10))
		}
		return fmt.Errorf("%s at snapshot %d does not match the table (%d rows, %d objects):\n%s", name, cp.SnapshotID, len(want), len(got), strings.Join(diffs, "\n"))
	}
	return nil
}

func keys[M ~map[string]V, V any](m M) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func keyOf(pk []string, obj map[string]string) string {
	parts := make([]string, len(pk))
	for i, k := range pk {
		parts[i] = obj[k]
	}
	return strings.Join(parts, "|")
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Normalize renders a JSON-like value (arrow's JSON or the API's) as a
// canonical string: integers as digits, other numbers in shortest form.
func Normalize(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Normalize(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprint(v)
}
