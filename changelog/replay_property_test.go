package changelog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// TestReplay_Property builds random histories of appends, copy-on-write
// updates (some of them changing nothing), deletes, compactions and
// manifest rewrites on a small keyed table, and checks for ranges of each:
//   - identifier-latest changes applied to the from state give the to
//     state;
//   - net changes are the multiset difference of the two states;
//   - raw changes, and changes with update images, turn the from state
//     into the to state, and update images pair by identifier.
//
// Every replay also runs in each of replayVariants, which must agree.
func TestReplay_Property(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			checkRandomHistory(t, seed)
		})
	}
}

func propertySchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		iceberg.NestedField{ID: 2, Name: "data", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "n", Type: iceberg.PrimitiveTypes.Int64})
}

func checkRandomHistory(t *testing.T, seed uint64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	tbl := replayTable(t, propertySchema(), nil)
	live := map[int32]bool{}
	nextID := int32(0)
	value := func(id int32) icebergtest.Row {
		r := icebergtest.Row{"id": id}
		if d := rng.IntN(4); d < 3 {
			r["data"] = string(rune('a' + d))
		}
		if n := rng.IntN(4); n < 3 {
			r["n"] = n
		}
		return r
	}
	pickLive := func(max int) []int32 {
		ids := slices.Sorted(maps.Keys(live))
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		return ids[:min(len(ids), 1+rng.IntN(max))]
	}
	chain := []int64{0} // the empty table, then every snapshot
	var ops []string
	for len(chain) < 14 {
		var err error
		op := rng.IntN(10)
		switch {
		case op < 3 || len(live) == 0: // append new ids, or ids deleted before
			var rs []icebergtest.Row
			for range 1 + rng.IntN(4) {
				id := nextID
				if rng.IntN(3) == 0 && int(nextID) > len(live) {
					for cand := range nextID {
						if !live[cand] {
							id = cand
							break
						}
					}
				}
				if id == nextID {
					nextID++
				}
				if live[id] {
					continue
				}
				live[id] = true
				rs = append(rs, value(id))
			}
			ops = append(ops, fmt.Sprintf("append %d", len(rs)))
			err = tbl.Append(ctx, rs)
		case op < 6: // copy-on-write update, sometimes to the same values
			ids := pickLive(3)
			cur, rerr := tbl.ReadRows(ctx, 0)
			if rerr != nil {
				t.Fatal(rerr)
			}
			var rs []icebergtest.Row
			for _, id := range ids {
				if rng.IntN(4) == 0 {
					for _, r := range cur {
						if fmt.Sprint(r["id"]) == fmt.Sprint(id) {
							rs = append(rs, icebergtest.Row{"id": id, "data": r["data"], "n": r["n"]})
						}
					}
				} else {
					rs = append(rs, value(id))
				}
			}
			ops = append(ops, fmt.Sprintf("update %v", ids))
			err = tbl.Overwrite(ctx, iceberg.IsIn(iceberg.Reference("id"), ids...), rs)
		case op < 8:
			ids := pickLive(3)
			for _, id := range ids {
				delete(live, id)
			}
			ops = append(ops, fmt.Sprintf("delete %v", ids))
			err = tbl.Delete(ctx, iceberg.IsIn(iceberg.Reference("id"), ids...))
		case op < 9:
			if len(live) == 0 {
				continue
			}
			ops = append(ops, "compact")
			err = tbl.Compact(ctx)
		default:
			ops = append(ops, "rewrite manifests")
			if err = tbl.RewriteManifests(ctx); errors.Is(err, icebergtest.ErrNoOp) {
				ops[len(ops)-1] += " (nothing to do)"
				err = nil
			}
		}
		if err != nil {
			t.Fatalf("after %v: %v", ops, err)
		}
		if s := tbl.Snapshot(); s != chain[len(chain)-1] {
			chain = append(chain, s)
		}
	}
	t.Logf("history: %s", strings.Join(ops, "; "))

	states := make([]map[string]int, len(chain))
	states[0] = map[string]int{}
	for i := 1; i < len(chain); i++ {
		rows, err := tbl.ReadRows(ctx, chain[i])
		if err != nil {
			t.Fatal(err)
		}
		states[i] = map[string]int{}
		for _, r := range rows {
			states[i][propertyRow(r)]++
		}
	}
	pairs := [][2]int{{0, len(chain) - 1}, {1, len(chain) - 1}}
	for range 4 {
		a := rng.IntN(len(chain) - 1)
		pairs = append(pairs, [2]int{a, a + 1 + rng.IntN(len(chain)-1-a)})
	}
	for _, p := range pairs {
		from, to := states[p[0]], states[p[1]]
		opts := Options{From: chain[p[0]], To: chain[p[1]]}
		name := fmt.Sprintf("(%d, %d]", p[0], p[1])
		t.Run(name, func(t *testing.T) {
			t.Run("latest", func(t *testing.T) {
				o := opts
				o.Latest = true
				got, _ := mustReplay(t, tbl, o)
				state := map[string]string{} // id -> row
				for row := range from {
					state[strings.SplitN(row, ", ", 2)[0]] = row
				}
				seen := map[string]bool{}
				for _, c := range got {
					id := strings.SplitN(c.Row, ", ", 2)[0]
					if seen[id] {
						t.Fatalf("identifier %s changes twice: %s", id, changeLines(got))
					}
					seen[id] = true
					switch c.Type {
					case Insert, UpdateAfter:
						state[id] = c.Row
					case Delete:
						delete(state, id)
					default:
						t.Fatalf("latest change %s", c)
					}
				}
				applied := map[string]int{}
				for _, row := range state {
					applied[row]++
				}
				assertState(t, applied, to)
			})
			t.Run("net", func(t *testing.T) {
				o := opts
				o.Net = true
				got, _ := mustReplay(t, tbl, o)
				ins, del := map[string]int{}, map[string]int{}
				for _, c := range got {
					switch c.Type {
					case Insert:
						ins[c.Row]++
					case Delete:
						del[c.Row]++
					default:
						t.Fatalf("net change %s", c)
					}
				}
				assertState(t, ins, difference(to, from))
				assertState(t, del, difference(from, to))
			})
			for _, o := range []Options{opts, {From: opts.From, To: opts.To, Identifiers: []string{"id"}}} {
				t.Run(fmt.Sprintf("identifiers %v", o.Identifiers), func(t *testing.T) {
					got, _ := mustReplay(t, tbl, o)
					state := maps.Clone(from)
					pending := map[string]bool{} // ordinal/id of an UPDATE_BEFORE waiting for its UPDATE_AFTER
					for _, c := range got {
						key := fmt.Sprintf("%d/%s", c.Ordinal, strings.SplitN(c.Row, ", ", 2)[0])
						switch c.Type {
						case Insert:
							state[c.Row]++
						case UpdateAfter:
							if !pending[key] {
								t.Fatalf("%s without its UPDATE_BEFORE", c)
							}
							delete(pending, key)
							state[c.Row]++
						case UpdateBefore:
							pending[key] = true
							fallthrough
						case Delete:
							if state[c.Row]--; state[c.Row] < 0 {
								t.Fatalf("%s deletes a row that is not there", c)
							}
						}
					}
					if len(pending) > 0 {
						t.Fatalf("UPDATE_BEFORE without UPDATE_AFTER: %v", pending)
					}
					assertState(t, state, to)
				})
			}
		})
	}
}

// propertyRow renders a row read by icebergtest like rowString does.
func propertyRow(r icebergtest.Row) string {
	parts := make([]string, 3)
	for i, c := range []string{"id", "data", "n"} {
		if v, ok := r[c]; ok && v != nil {
			parts[i] = fmt.Sprint(v)
		} else {
			parts[i] = "null"
		}
	}
	return strings.Join(parts, ", ")
}

// difference is the multiset a minus b.
func difference(a, b map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range a {
		if d := n - b[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

func assertState(tb testing.TB, got, want map[string]int) {
	tb.Helper()
	for k, n := range got {
		if n != want[k] {
			tb.Fatalf("row (%s): %d, want %d\ngot  %v\nwant %v", k, n, want[k], got, want)
		}
	}
	for k, n := range want {
		if got[k] != n {
			tb.Fatalf("row (%s): %d, want %d\ngot  %v\nwant %v", k, got[k], n, got, want)
		}
	}
}
