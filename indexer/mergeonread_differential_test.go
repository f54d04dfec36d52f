package indexer_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// morWriter makes random copy-on-write and merge-on-read commits to the
// Customer table of a fixture, each written by iceberg-go.
type morWriter struct {
	f       *fixture
	rng     *rand.Rand
	nextID  int
	log     []string
	expired bool
}

// hasDeletes reports whether the current snapshot has live delete files.
func (m *morWriter) hasDeletes(tb testing.TB) bool {
	tb.Helper()
	fs, err := m.f.tb.T.FS(m.f.ctx)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := cowguard.LiveDeletes(m.f.ctx, fs, m.f.tb.T.CurrentSnapshot())
	if err != nil {
		tb.Fatal(err)
	}
	return c.Total()+c.Dangling > 0
}

// keys are the ids of the table's current rows, read through iceberg-go.
func (m *morWriter) keys(tb testing.TB) []int64 {
	tb.Helper()
	rows, err := m.f.tb.ReadRows(m.f.ctx, 0)
	if err != nil {
		tb.Fatal(err)
	}
	var out []int64
	for _, r := range rows {
		var v int64
		fmt.Sscan(fmt.Sprint(r["id"]), &v)
		out = append(out, v)
	}
	return out
}

func (m *morWriter) pick(tb testing.TB, n int) []int64 {
	keys := m.keys(tb)
	m.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys[:min(n, len(keys))]
}

func (m *morWriter) row(id int64, tag string) icebergtest.Row {
	cities := []string{"Lisbon", "Oslo", "Quito", "Hanoi", "Lima", "Accra", "Perth"}
	return icebergtest.Row{"id": id, "name": fmt.Sprintf("%s %d", tag, id), "city": cities[m.rng.IntN(len(cities))], "score": float64(m.rng.IntN(100))}
}

// step makes one random commit and says which.
func (m *morWriter) step(tb testing.TB, step int) {
	tb.Helper()
	f, ctx := m.f, m.f.ctx
	var (
		what string
		err  error
	)
	switch op := m.rng.IntN(100); {
	case op < 20:
		var rows []icebergtest.Row
		for range 1 + m.rng.IntN(8) {
			rows = append(rows, m.row(int64(m.nextID), "new"))
			m.nextID++
		}
		what, err = fmt.Sprintf("append %d rows", len(rows)), f.tb.Append(ctx, rows)
	case op < 32:
		keys := m.pick(tb, 1+m.rng.IntN(3))
		var rows []icebergtest.Row
		var in []iceberg.BooleanExpression
		for _, k := range keys {
			rows = append(rows, m.row(k, fmt.Sprintf("cow%d", step)))
			in = append(in, id(k))
		}
		if len(keys) == 0 {
			return
		}
		// iceberg-go's copy-on-write rewrite ignores the deletes of the
		// file it rewrites (iceberg-go#2042) and brings deleted rows back:
		// compact first, as a writer must.
		what = fmt.Sprintf("copy-on-write update of %v", keys)
		if m.hasDeletes(tb) {
			what = "compaction, then " + what
			if err = f.tb.Compact(ctx); err != nil {
				break
			}
		}
		err = f.tb.Overwrite(ctx, orAll(in), rows)
	case op < 50:
		keys := m.pick(tb, 1+m.rng.IntN(3))
		if len(keys) == 0 {
			return
		}
		var in []iceberg.BooleanExpression
		for _, k := range keys {
			in = append(in, id(k))
		}
		what, err = fmt.Sprintf("merge-on-read delete of %v", keys), f.tb.Delete(ctx, orAll(in))
	case op < 62:
		keys := m.pick(tb, 1+m.rng.IntN(3))
		var rows []icebergtest.Row
		for _, k := range keys {
			rows = append(rows, icebergtest.Row{"id": k})
		}
		if m.rng.IntN(3) == 0 {
			rows = append(rows, icebergtest.Row{"id": 1_000_000 + step}) // a key no row has
		}
		what, err = fmt.Sprintf("equality delete of ids %v", keys), f.tb.EqualityDelete(ctx, []string{"id"}, rows)
	case op < 67:
		city := m.row(0, "")["city"]
		what, err = fmt.Sprintf("equality delete of city %v", city), f.tb.EqualityDelete(ctx, []string{"city"}, []icebergtest.Row{{"city": city}})
	case op < 80:
		keys := m.pick(tb, 1+m.rng.IntN(3))
		if len(keys) == 0 {
			return
		}
		var dels, rows []icebergtest.Row
		for _, k := range keys {
			dels = append(dels, icebergtest.Row{"id": k})
			rows = append(rows, m.row(k, fmt.Sprintf("upsert%d", step)))
		}
		if err = f.tb.EqualityDelete(ctx, []string{"id"}, dels); err == nil {
			err = f.tb.Append(ctx, rows)
		}
		what = fmt.Sprintf("upsert (equality delete, append) of %v", keys)
	case op < 88:
		what, err = "compaction", f.tb.Compact(ctx)
	case op < 95:
		ancestors := f.tb.Ancestors()
		if len(ancestors) == 0 {
			return
		}
		to := ancestors[m.rng.IntN(min(len(ancestors), 4))]
		what, err = fmt.Sprintf("rollback to %d", to), f.tb.Rollback(ctx, to)
	default:
		if m.expired {
			return // iceberg-go's expiry then removes files again and fails
		}
		m.expired = true
		what, err = "expire all snapshots but the current", f.tb.ExpireAllButCurrent(ctx)
	}
	m.log = append(m.log, what)
	if err != nil {
		tb.Fatalf("step %d, %s: %v\nsteps: %q", step, what, err, m.log)
	}
}

func orAll(es []iceberg.BooleanExpression) iceberg.BooleanExpression {
	out := es[0]
	for _, e := range es[1:] {
		out = iceberg.NewOr(out, e)
	}
	return out
}

// TestIndexer_Build_mergeOnReadDifferential builds random sequences of
// copy-on-write and merge-on-read commits (position deletes on v2,
// deletion vectors on v3, equality deletes on the key and on another
// column, upserts, appends, overwrites, compactions, rollbacks, expiry):
// after every build the objects are the rows iceberg-go's scan returns at
// the checkpoint, and the store's baseline is a full build's.
func TestIndexer_Build_mergeOnReadDifferential(t *testing.T) {
	for _, fv := range []string{"2", "3"} {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("v%s/seed%d", fv, seed), func(t *testing.T) {
				f := mustFixture(t, iceberg.Properties{"format-version": fv, cowguard.DeleteModeKey: cowguard.MergeOnRead}, 3, morSpec())
				m := &morWriter{f: f, rng: rand.New(rand.NewPCG(seed, 27)), nextID: 30}
				f.mustBuild(t, indexer.BuildOptions{})
				kinds := map[indexer.Kind]int{}
				var applied, fullReasons []string
				for step := range 30 {
					m.step(t, step)
					if m.rng.IntN(2) == 0 {
						continue
					}
					r, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
					if err != nil {
						t.Fatalf("step %d: build: %v\nsteps: %q", step, err, m.log)
					}
					kinds[r.Kind]++
					if r.Kind == indexer.KindFull {
						fullReasons = append(fullReasons, r.Reason)
					}
					if r.DeleteFilesRead > 0 {
						applied = append(applied, fmt.Sprintf("%d files %d positions %d keys", r.DeleteFilesRead, r.PositionsApplied, r.KeysApplied))
					}
					if err := indexertest.Match(f.ix, f.name, f.tb); err != nil {
						t.Fatalf("step %d (%s build: %s): %v\nsteps: %q", step, r.Kind, r.Reason, err, m.log)
					}
					if _, err := matchFullBuild(t, f); err != nil {
						t.Fatalf("step %d (%s build: %s): baseline: %v\nsteps: %q", step, r.Kind, r.Reason, err, m.log)
					}
				}
				if kinds[indexer.KindIncremental] == 0 || len(applied) == 0 {
					t.Errorf("builds %v applied no delete files incrementally", kinds)
				}
				t.Logf("builds %v; deletes applied %q; full because %q", kinds, applied, fullReasons)
			})
		}
	}
}
