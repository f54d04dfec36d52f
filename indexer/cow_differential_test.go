package indexer_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// cowStep makes one random copy-on-write commit to the table of m and
// says which: appends, updates and deletes that rewrite files (into one
// file, or several when the target file size is small), an update and a
// delete in one rewrite, rows rewritten unchanged into a new file (a
// split), compactions, rollbacks and expiry.
func (m *morWriter) cowStep(tb testing.TB, step int) {
	tb.Helper()
	f, ctx := m.f, m.f.ctx
	split := m.rng.IntN(4) == 0
	size := "536870912"
	if split {
		size = "600" // a rewrite writes a few small files
	}
	if err := f.tb.SetProperties(ctx, iceberg.Properties{"write.target-file-size-bytes": size}); err != nil {
		tb.Fatal(err)
	}
	var (
		what string
		err  error
	)
	switch op := m.rng.IntN(100); {
	case op < 15:
		var rows []icebergtest.Row
		for range 1 + m.rng.IntN(8) {
			rows = append(rows, m.row(int64(m.nextID), "new"))
			m.nextID++
		}
		what, err = fmt.Sprintf("append %d rows", len(rows)), f.tb.Append(ctx, rows)
	case op < 55:
		// Update some keys and delete others in one rewrite; sometimes
		// insert a new key with it.
		keys := m.pick(tb, 1+m.rng.IntN(4))
		if len(keys) == 0 {
			return
		}
		var rows []icebergtest.Row
		var in []iceberg.BooleanExpression
		var deleted []int64
		for _, k := range keys {
			in = append(in, id(k))
			if m.rng.IntN(3) == 0 {
				deleted = append(deleted, k)
				continue
			}
			rows = append(rows, m.row(k, fmt.Sprintf("cow%d", step)))
		}
		if m.rng.IntN(4) == 0 {
			rows = append(rows, m.row(int64(m.nextID), "new"))
			m.nextID++
		}
		if len(rows) == 0 {
			what, err = fmt.Sprintf("copy-on-write delete of %v", keys), f.tb.Delete(ctx, orAll(in))
			break
		}
		what = fmt.Sprintf("copy-on-write update of %v, deleting %v", keys, deleted)
		err = f.tb.Overwrite(ctx, orAll(in), rows)
	case op < 65:
		// Rewrite some rows unchanged: their file's other rows go to its
		// rewrite, these to a new file (a split of carried-over rows).
		rows, rerr := f.tb.ReadRows(ctx, 0)
		if rerr != nil {
			tb.Fatal(rerr)
		}
		m.rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		rows = rows[:min(1+m.rng.IntN(4), len(rows))]
		if len(rows) == 0 {
			return
		}
		var in []iceberg.BooleanExpression
		var keys []int64
		for _, r := range rows {
			var k int64
			fmt.Sscan(fmt.Sprint(r["id"]), &k)
			keys, in = append(keys, k), append(in, id(k))
		}
		// A batch a row: with small files, a file a row.
		each := icebergwrite.Build(func(b *icebergwrite.Builder) {
			for i, r := range rows {
				var score float64
				fmt.Sscan(fmt.Sprint(r["score"]), &score)
				b.Add(keys[i], r["name"], r["city"], score)
				b.Flush()
			}
		})
		what = fmt.Sprintf("copy-on-write rewrite of %v unchanged", keys)
		var nt *table.Table
		if nt, err = icebergwrite.Overwrite(ctx, f.tb.T, orAll(in), each); err == nil {
			f.tb.T = nt
		}
	case op < 75:
		what, err = "compaction", f.tb.Compact(ctx)
	case op < 93:
		ancestors := f.tb.Ancestors()
		if len(ancestors) == 0 {
			return
		}
		to := ancestors[m.rng.IntN(min(len(ancestors), 4))]
		what, err = fmt.Sprintf("rollback to %d", to), f.tb.Rollback(ctx, to)
	default:
		if m.expired {
			return
		}
		m.expired = true
		what, err = "expire all snapshots but the current", f.tb.ExpireAllButCurrent(ctx)
	}
	if split {
		what += " (small files)"
	}
	m.log = append(m.log, what)
	if err != nil {
		tb.Fatalf("step %d, %s: %v\nsteps: %q", step, what, err, m.log)
	}
}

// matchFullBuild checks that the store baseline of the fixture's indexer
// (where each key lives, its row hash, and each file's keys) is the one a
// full build of the same snapshot into a fresh data dir makes, and that
// the baseline agrees with itself. It returns the baseline's aliases.
func matchFullBuild(tb testing.TB, f *fixture) (int, error) {
	tb.Helper()
	got, err := indexer.StoreBaseline(f.ix, f.name)
	if err != nil {
		return 0, err
	}
	cfg := *f.cfg
	cfg.DataDir = tb.TempDir()
	full := indexertest.Open(tb, &cfg)
	if r, err := full.Build(f.ctx, f.name, indexer.BuildOptions{}); err != nil || r.Kind != indexer.KindFull {
		return 0, fmt.Errorf("fresh build: %v, %v", r, err)
	}
	want, err := indexer.StoreBaseline(full, f.name)
	if err != nil {
		return 0, err
	}
	if !maps.Equal(got.Keys, want.Keys) {
		for k, g := range got.Keys {
			if w, ok := want.Keys[k]; !ok || w != g {
				return 0, fmt.Errorf("key %x: baseline has %+v, a full build %+v", k, g, w)
			}
		}
		return 0, fmt.Errorf("baseline has %d keys, a full build %d", len(got.Keys), len(want.Keys))
	}
	if len(got.FileKeys) != len(want.FileKeys) {
		return 0, fmt.Errorf("baseline has %d files, a full build %d", len(got.FileKeys), len(want.FileKeys))
	}
	for file, keys := range got.FileKeys {
		slices.Sort(keys)
		w := want.FileKeys[file]
		slices.Sort(w)
		if !slices.Equal(keys, w) {
			return 0, fmt.Errorf("file %s: baseline keys %x, a full build's %x", file, keys, w)
		}
		for _, k := range keys {
			if got.Keys[k].File != file {
				return 0, fmt.Errorf("file %s yields key %x, which lives in %s", file, k, got.Keys[k].File)
			}
		}
	}
	return got.Aliases, nil
}

// TestIndexer_Build_copyOnWriteDifferential builds random sequences of
// copy-on-write commits: after every build the objects are the rows
// iceberg-go's scan returns at the checkpoint, and the store's baseline is
// the one a full build of that snapshot makes (the aliases of rewritten
// files resolve as the moves of their rows would).
func TestIndexer_Build_copyOnWriteDifferential(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			f := mustFixture(t, iceberg.Properties{"format-version": "2", cowguard.DeleteModeKey: cowguard.CopyOnWrite}, 4, nil)
			m := &morWriter{f: f, rng: rand.New(rand.NewPCG(seed, 28)), nextID: 40}
			f.mustBuild(t, indexer.BuildOptions{})
			kinds := map[indexer.Kind]int{}
			aliased := 0
			for step := range 30 {
				m.cowStep(t, step)
				if m.rng.IntN(3) == 0 {
					continue
				}
				r, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
				if err != nil {
					t.Fatalf("step %d: build: %v\nsteps: %q", step, err, m.log)
				}
				kinds[r.Kind]++
				if err := indexertest.Match(f.ix, f.name, f.tb); err != nil {
					t.Fatalf("step %d (%s build: %s): %v\nsteps: %q", step, r.Kind, r.Reason, err, m.log)
				}
				aliases, err := matchFullBuild(t, f)
				if err != nil {
					t.Fatalf("step %d (%s build: %s): %v\nsteps: %q", step, r.Kind, r.Reason, err, m.log)
				}
				aliased = max(aliased, aliases)
			}
			if kinds[indexer.KindIncremental] == 0 || aliased == 0 {
				t.Errorf("builds %v kept at most %d aliases", kinds, aliased)
			}
			t.Logf("builds %v; at most %d aliases; steps %q", kinds, aliased, m.log)
		})
	}
}
