package changelog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
)

// A replay reads each snapshot's files once to count, per distinct row
// value (a 128-bit hash of every column), how many rows the snapshot
// deletes and inserts. Carry-overs cancel on those counts, and update
// images pair on counts per identifier. A second pass then emits the rows
// that remain, from batches kept in memory when they fit in BufferBytes,
// else by reading the files again. Net and identifier-latest changes keep
// their state across snapshots (per row value, per identifier) and read the
// files that hold a surviving row once more at the end. Memory grows with
// the rows of one snapshot, and in net and latest mode with the rows and
// identifiers that change, never with the table.

// rowStat counts the rows of one snapshot that have one row value.
type rowStat struct {
	deleted, inserted              int32   // rows deleted and inserted
	carriedDeletes, carriedInserts int32   // carry-overs still to drop while emitting
	key                            rowHash // identifier hash, when identifiers are used
	deletedFile                    int32   // first removed file (replay-wide index) and row holding the value
	deletedRow                     int64
	insertedFile                   int32 // first added file and row holding the value
	insertedRow                    int64
}

// keyStat counts, per identifier, the rows of one snapshot that remain
// after carry-over removal.
type keyStat struct {
	deletesLeft, insertsLeft int32 // remaining DELETE and INSERT rows
	paired                   bool  // the UPDATE_AFTER of the pair was emitted
	deletedFile              int32
	deletedRow               int64
	insertedFile             int32
	insertedRow              int64
}

func (c *Changelog) run(ctx context.Context, emit func(arrow.RecordBatch) error) error {
	c.stats = ReplayStats{}
	switch c.mode {
	case modeNet:
		return c.runNet(ctx, emit)
	case modeLatest:
		return c.runLatest(ctx, emit)
	}
	for i := range c.steps {
		if err := c.runStep(ctx, &c.steps[i], emit); err != nil {
			return err
		}
	}
	return nil
}

func (c *Changelog) track(n int) {
	c.stats.PeakTrackedRows = max(c.stats.PeakTrackedRows, n)
}

// tally reads the files of st and counts its rows per row value. With
// buffer, it also keeps the record batches while they fit in BufferBytes;
// kept is nil when they did not.
func (c *Changelog) tally(ctx context.Context, st *step, buffer bool) (rows map[rowHash]*rowStat, kept [][]arrow.RecordBatch, err error) {
	rows = map[rowHash]*rowStat{}
	if buffer {
		kept = make([][]arrow.RecordBatch, len(st.files))
	}
	var keptBytes int64
	release := func() {
		releaseAll(kept)
		kept = nil
	}
	var h hasher
	for fi := range st.files {
		if err := ctx.Err(); err != nil {
			release()
			return nil, nil, err
		}
		f := &st.files[fi]
		var row int64
		err := c.readFile(ctx, f, func(rec arrow.RecordBatch) error {
			h.bind(rec, c.idIdx)
			n := int(rec.NumRows())
			for i := range n {
				rh := h.row(i)
				r := rows[rh]
				if r == nil {
					r = &rowStat{deletedFile: -1, insertedFile: -1}
					if len(c.idIdx) > 0 {
						r.key = h.key(i)
					}
					rows[rh] = r
				}
				if f.deleted {
					if r.deleted == 0 {
						r.deletedFile, r.deletedRow = int32(f.index), row+int64(i)
					}
					r.deleted++
				} else {
					if r.inserted == 0 {
						r.insertedFile, r.insertedRow = int32(f.index), row+int64(i)
					}
					r.inserted++
				}
			}
			row += int64(n)
			if kept != nil {
				keptBytes += batchBytes(rec)
				if keptBytes > c.bufferBytes {
					release()
				} else {
					rec.Retain()
					kept[fi] = append(kept[fi], rec)
				}
			}
			return nil
		})
		if err != nil {
			release()
			return nil, nil, err
		}
	}
	for _, r := range rows {
		m := min(r.deleted, r.inserted)
		r.carriedDeletes, r.carriedInserts = m, m
		c.stats.CarryOvers += int64(m)
	}
	return rows, kept, nil
}

// batchBytes is the size of the buffers a record batch holds (slices
// count their whole buffers).
func batchBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, ch := range d.Children() {
		n += dataBytes(ch)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(d.Dictionary())
	}
	return n
}

func releaseAll(kept [][]arrow.RecordBatch) {
	for _, recs := range kept {
		for _, r := range recs {
			r.Release()
		}
	}
}

// eachBatch streams the batches of file fi of st, from kept when set.
func (c *Changelog) eachBatch(ctx context.Context, st *step, fi int, kept [][]arrow.RecordBatch, fn func(arrow.RecordBatch) error) error {
	if kept == nil {
		return c.readFile(ctx, &st.files[fi], fn)
	}
	for _, rec := range kept[fi] {
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// keyStats sums the rows that remain after carry-over removal per
// identifier.
func keyStats(rows map[rowHash]*rowStat) map[rowHash]*keyStat {
	keys := map[rowHash]*keyStat{}
	for _, r := range rows {
		sd, si := r.deleted-r.carriedDeletes, r.inserted-r.carriedInserts
		if sd == 0 && si == 0 {
			continue
		}
		k := keys[r.key]
		if k == nil {
			k = &keyStat{}
			keys[r.key] = k
		}
		if sd > 0 {
			k.deletesLeft += sd
			k.deletedFile, k.deletedRow = r.deletedFile, r.deletedRow
		}
		if si > 0 {
			k.insertsLeft += si
			k.insertedFile, k.insertedRow = r.insertedFile, r.insertedRow
		}
	}
	return keys
}

// errFound ends a search through a snapshot's rows.
var errFound = errors.New("found")

// checkKeys fails when one identifier is deleted twice in st, or, with
// inserts, inserted twice. The error names the first such identifier in
// file order.
func (c *Changelog) checkKeys(ctx context.Context, st *step, keys map[rowHash]*keyStat, kept [][]arrow.RecordBatch, inserts bool) error {
	want := ChangeType("")
	for _, k := range keys {
		if k.deletesLeft > 1 {
			want = Delete
			break
		}
		if inserts && k.insertsLeft > 1 {
			want = Insert
		}
	}
	if want == "" {
		return nil
	}
	var dup *DuplicateIdentifierError
	var h hasher
	for fi := range st.files {
		if st.files[fi].deleted != (want == Delete) {
			continue
		}
		err := c.eachBatch(ctx, st, fi, kept, func(rec arrow.RecordBatch) error {
			h.bind(rec, c.idIdx)
			for i := range int(rec.NumRows()) {
				k := keys[h.key(i)]
				if k == nil {
					continue
				}
				n := k.deletesLeft
				if want == Insert {
					n = k.insertsLeft
				}
				if n > 1 {
					dup = &DuplicateIdentifierError{Table: c.name, SnapshotID: st.snapshotID, Ordinal: st.ordinal,
						Identifiers: c.Identifiers(), Key: describeKey(rec, c.idIdx, i), Change: want, Count: int(n)}
					return errFound
				}
			}
			return nil
		})
		if errors.Is(err, errFound) {
			return dup
		}
		if err != nil {
			return err
		}
	}
	return fmt.Errorf("table %s snapshot %d: an identifier is %s twice but no row holds it", c.name, st.snapshotID, want)
}

// runStep replays one snapshot: raw changes with carry-overs removed, and
// update images in modeUpdates.
func (c *Changelog) runStep(ctx context.Context, st *step, emit func(arrow.RecordBatch) error) error {
	rows, kept, err := c.tally(ctx, st, c.bufferBytes > 0)
	if err != nil {
		return err
	}
	defer releaseAll(kept)
	c.track(len(rows))
	var keys map[rowHash]*keyStat
	if c.mode == modeUpdates {
		keys = keyStats(rows)
		c.track(len(rows) + len(keys))
		if err := c.checkKeys(ctx, st, keys, kept, false); err != nil {
			return err
		}
	}
	var h hasher
	var sel selection
	for fi := range st.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		f := &st.files[fi]
		err := c.eachBatch(ctx, st, fi, kept, func(rec arrow.RecordBatch) error {
			h.bind(rec, c.idIdx)
			sel.reset()
			for i := range int(rec.NumRows()) {
				r := rows[h.row(i)]
				if r == nil {
					return fmt.Errorf("table %s: data file %s changed between two reads", c.name, f.task.File.FilePath())
				}
				if f.deleted {
					if r.carriedDeletes > 0 {
						r.carriedDeletes--
						continue
					}
					t := Delete
					if keys != nil && keys[r.key].insertsLeft > 0 {
						t = UpdateBefore
					}
					sel.add(i, t)
					continue
				}
				if r.carriedInserts > 0 {
					r.carriedInserts--
					continue
				}
				t := Insert
				if keys != nil {
					if k := keys[r.key]; k.deletesLeft == 1 && !k.paired {
						t, k.paired = UpdateAfter, true
					}
				}
				sel.add(i, t)
			}
			return c.emitSelection(ctx, rec, &sel, st, emit)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// pick is one row a final pass emits: its position in a file and how.
type pick struct {
	row    int64
	typ    ChangeType
	copies int32
}

// emitPicks reads the files that hold picked rows, in replay order, and
// emits those rows.
func (c *Changelog) emitPicks(ctx context.Context, picks map[int32][]pick, emit func(arrow.RecordBatch) error) error {
	var sel selection
	for _, f := range c.allFiles() {
		ps := picks[int32(f.index)]
		if len(ps) == 0 {
			continue
		}
		slices.SortFunc(ps, func(a, b pick) int { return cmp.Compare(a.row, b.row) })
		st := &c.steps[f.step]
		var off int64
		err := c.readFile(ctx, f, func(rec arrow.RecordBatch) error {
			sel.reset()
			end := off + rec.NumRows()
			for len(ps) > 0 && ps[0].row < end {
				for range ps[0].copies {
					sel.add(int(ps[0].row-off), ps[0].typ)
				}
				ps = ps[1:]
			}
			off = end
			return c.emitSelection(ctx, rec, &sel, st, emit)
		})
		if err != nil {
			return err
		}
		if len(ps) > 0 {
			return fmt.Errorf("table %s: data file %s has fewer rows than when it was first read", c.name, f.task.File.FilePath())
		}
	}
	return nil
}

// netEntry is the pending net change of one row value, as Spark's
// RemoveNetCarryoverIterator computes it over rows ordered by snapshot,
// DELETE before INSERT: the first change of a run, and how many of its
// kind remain after opposite changes cancelled.
type netEntry struct {
	deleted bool
	file    int32
	row     int64
	count   int32
}

// netStep applies the change ev of a row value to its pending net change
// e (ok: there is one). It returns the new pending change, whether one
// remains, and whether ev cancelled a change of the opposite kind.
func netStep(e netEntry, ok bool, ev netEntry) (next netEntry, pending, cancelled bool) {
	switch {
	case !ok || e.count == 0:
		return ev, true, false
	case e.deleted != ev.deleted:
		e.count--
		return e, e.count > 0, true
	default:
		e.count++
		return e, true, false
	}
}

func (c *Changelog) runNet(ctx context.Context, emit func(arrow.RecordBatch) error) error {
	net := map[rowHash]netEntry{}
	var h hasher
	for _, f := range c.allFiles() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var off int64
		err := c.readFile(ctx, f, func(rec arrow.RecordBatch) error {
			h.bind(rec, nil)
			for i := range int(rec.NumRows()) {
				rh := h.row(i)
				e, ok := net[rh]
				e, pending, cancelled := netStep(e, ok, netEntry{deleted: f.deleted, file: int32(f.index), row: off + int64(i), count: 1})
				if cancelled {
					c.stats.CarryOvers++
				}
				if pending {
					net[rh] = e
				} else {
					delete(net, rh)
				}
			}
			off += rec.NumRows()
			c.track(len(net))
			return nil
		})
		if err != nil {
			return err
		}
	}
	picks := map[int32][]pick{}
	for _, e := range net {
		t := Insert
		if e.deleted {
			t = Delete
		}
		picks[e.file] = append(picks[e.file], pick{row: e.row, typ: t, copies: e.count})
	}
	clear(net)
	return c.emitPicks(ctx, picks, emit)
}

// latestEntry is the last change of one identifier so far.
type latestEntry struct {
	typ  ChangeType
	file int32
	row  int64
}

func (c *Changelog) runLatest(ctx context.Context, emit func(arrow.RecordBatch) error) error {
	latest := map[rowHash]latestEntry{}
	for i := range c.steps {
		st := &c.steps[i]
		rows, _, err := c.tally(ctx, st, false)
		if err != nil {
			return err
		}
		keys := keyStats(rows)
		c.track(len(rows) + len(keys) + len(latest))
		if err := c.checkKeys(ctx, st, keys, nil, true); err != nil {
			return err
		}
		for key, k := range keys {
			switch {
			case k.insertsLeft == 1 && k.deletesLeft == 1:
				latest[key] = latestEntry{typ: UpdateAfter, file: k.insertedFile, row: k.insertedRow}
			case k.insertsLeft == 1:
				latest[key] = latestEntry{typ: Insert, file: k.insertedFile, row: k.insertedRow}
			case k.deletesLeft == 1:
				latest[key] = latestEntry{typ: Delete, file: k.deletedFile, row: k.deletedRow}
			}
		}
	}
	picks := map[int32][]pick{}
	for _, e := range latest {
		picks[e.file] = append(picks[e.file], pick{row: e.row, typ: e.typ, copies: 1})
	}
	clear(latest)
	return c.emitPicks(ctx, picks, emit)
}
