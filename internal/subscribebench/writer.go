package subscribebench

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// writer commits copy-on-write edits to the customers table, as an
// application would while the server serves it: each commit rewrites
// the data file that holds one customer, with a new name.
type writer struct {
	tbl  *table.Table
	seed uint64
	keys int64 // edits go to keys [0, keys)
	step int64 // the next key is seq*step mod keys: spread over the files
	seq  int
	// committed are the keys edited so far, for telling a late delivery
	// of an earlier part from a key nobody edited.
	committed map[int64]bool
}

// openWriter opens the customers table the server serves, in the
// warehouse of dir.
func openWriter(ctx context.Context, dir string, seed uint64, rows int) (*writer, error) {
	cat, err := benchdata.OpenWarehouse(dir)
	if err != nil {
		return nil, err
	}
	tbl, err := cat.LoadTable(ctx, catalog.ToIdentifier("bench", "customers"))
	if err != nil {
		return nil, fmt.Errorf("load customers table: %w", err)
	}
	keys := editedKeys(rows)
	return &writer{tbl: tbl, seed: seed, keys: keys, step: spreadStep(keys), committed: map[int64]bool{}}, nil
}

// spreadStep is a step coprime with keys, so that seq*step mod keys visits
// every key once: a prime near a third of the keys, else 1.
func spreadStep(keys int64) int64 {
	for _, p := range []int64{7919, 104729, 1299709} {
		if p < keys && keys%p != 0 {
			return p
		}
	}
	return 1
}

// commit edits the next key and returns the commit.
func (w *writer) commit(ctx context.Context) (Commit, error) {
	if int64(w.seq) >= w.keys {
		return Commit{}, fmt.Errorf("writer: all %d editable keys are edited; use more --rows", w.keys)
	}
	key := int64(w.seq) * w.step % w.keys
	c := benchdata.NewCustomer(w.seed, key)
	c.Name = fmt.Sprintf("%s edit%d", c.Name, w.seq)
	tbl, err := icebergwrite.Overwrite(ctx, w.tbl, iceberg.EqualTo(iceberg.Reference("id"), key), icebergwrite.Values(c.Values()))
	returned := time.Now()
	if err != nil {
		return Commit{}, fmt.Errorf("commit edit of customer %d: %w", key, err)
	}
	w.tbl = tbl
	out := Commit{Seq: w.seq, Key: key, Name: c.Name, Snapshot: tbl.CurrentSnapshot().SnapshotID, Returned: returned}
	w.seq++
	w.committed[key] = true
	return out, nil
}

// run commits every interval, n commits (n > 0) or until stop closes,
// whichever comes first. A commit slower than the interval is followed by
// the next at once.
func (w *writer) run(ctx context.Context, every time.Duration, n int, stop <-chan struct{}) ([]Commit, error) {
	var out []Commit
	tick := time.NewTicker(every)
	defer tick.Stop()
	for n <= 0 || len(out) < n {
		c, err := w.commit(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, c)
		if n > 0 && len(out) == n {
			break
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-stop:
			return out, nil
		case <-tick.C:
		}
	}
	return out, nil
}
