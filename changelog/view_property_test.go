package changelog

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// TestView_Property builds random histories of appends, copy-on-write
// updates (some to the same values), deletes and compactions on a table
// keyed by id, and checks every view of random ranges with checkViews:
// among others, that previous + changelog(ids), applied as upserts and
// deletes, is current.
func TestView_Property(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 0x71e3))
			tbl := randomViewHistory(t, rng, 10)
			chain := snapshotChain(tbl.T)
			pairs := [][2]int{{0, len(chain) - 1}}
			for range 5 {
				a := rng.IntN(len(chain) - 1)
				pairs = append(pairs, [2]int{a, a + 1 + rng.IntN(len(chain)-1-a)})
			}
			for _, p := range pairs {
				from, to := chain[p[0]], chain[p[1]]
				t.Run(rangeName(from, to), func(t *testing.T) { checkViews(t, tbl.T, from, to, []string{"id"}) })
			}
		})
	}
}

// randomViewHistory commits snapshots random edits to a fresh table whose
// ids stay unique.
func randomViewHistory(t *testing.T, rng *rand.Rand, snapshots int) *icebergtest.Table {
	ctx := context.Background()
	tbl := replayTable(t, propertySchema(), nil)
	live := map[int32]bool{}
	next := int32(0)
	value := func(id int32) icebergtest.Row {
		r := icebergtest.Row{"id": id}
		if d := rng.IntN(4); d < 3 {
			r["data"] = string(rune('a' + d))
		}
		if n := rng.IntN(3); n < 2 {
			r["n"] = n
		}
		return r
	}
	pick := func() []int32 {
		ids := slices.Sorted(maps.Keys(live))
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		return ids[:min(len(ids), 1+rng.IntN(3))]
	}
	var ops []string
	for len(ops) < snapshots {
		var err error
		switch op := rng.IntN(10); {
		case op < 3 || len(live) == 0:
			var rs []icebergtest.Row
			for range 1 + rng.IntN(4) {
				id := next
				if rng.IntN(3) == 0 && next > 0 {
					id = rng.Int32N(next) // an id deleted before comes back
				}
				if id == next {
					next++
				}
				if !live[id] {
					live[id] = true
					rs = append(rs, value(id))
				}
			}
			ops = append(ops, fmt.Sprintf("append %d", len(rs)))
			err = tbl.Append(ctx, rs)
		case op < 6:
			ids := pick()
			var rs []icebergtest.Row
			for _, id := range ids {
				rs = append(rs, value(id)) // at times the same values again
			}
			ops = append(ops, fmt.Sprintf("update %v", ids))
			err = tbl.Overwrite(ctx, iceberg.IsIn(iceberg.Reference("id"), ids...), rs)
		case op < 8:
			ids := pick()
			for _, id := range ids {
				delete(live, id)
			}
			ops = append(ops, fmt.Sprintf("delete %v", ids))
			err = tbl.Delete(ctx, iceberg.IsIn(iceberg.Reference("id"), ids...))
		default:
			ops = append(ops, "compact")
			err = tbl.Compact(ctx)
		}
		if err != nil {
			t.Fatalf("after %v: %v", ops, err)
		}
	}
	t.Logf("history: %v", ops)
	return tbl
}
