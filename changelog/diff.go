package changelog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ontoindex/ontoindex/objects"
)

// ChangeType is the kind of a row-level change, spelled as Spark spells it.
type ChangeType string

// Change types. CarryOver is internal to the baseline diff: a row that a
// copy-on-write rewrite moved to a new file unchanged.
const (
	Insert       ChangeType = "INSERT"
	Delete       ChangeType = "DELETE"
	UpdateBefore ChangeType = "UPDATE_BEFORE"
	UpdateAfter  ChangeType = "UPDATE_AFTER"
	CarryOver    ChangeType = "CARRY_OVER"
)

// Change is one keyed change found by Diff. It is only valid during the
// Sink.Apply call that receives it.
type Change struct {
	Type    ChangeType
	Key     []byte
	File    string // the file the row lives in now (not set for Delete)
	Row     int64  // the row's position in File
	Hash    uint64
	Encoded []byte          // the object encoding (Insert, UpdateAfter)
	Object  *objects.Object // the object (Insert, UpdateAfter)
}

// Baseline is what Diff needs to know about the indexed state.
type Baseline interface {
	// Lookup returns the file and row hash of a key, including the changes
	// already applied in this diff.
	Lookup(key []byte) (file string, hash uint64, ok bool, err error)
	// FileKeys calls fn for every key the baseline recorded for file.
	FileKeys(file string, fn func(key []byte) error) error
}

// Sink receives the changes of a diff, in order.
type Sink interface {
	Apply(c *Change) error
	// FileDone is called when every row of an added file was applied.
	FileDone(f DataFile) error
	// FileRemoved is called when every key of a removed file was handled.
	FileRemoved(path string) error
}

// Input is what Diff compares.
type Input struct {
	Type       *objects.Type
	Table      string
	SnapshotID int64
	Plan       *Plan
	Reader     *Reader
	// Skip holds, for a resumed build, the rows of a file already applied.
	Skip map[string]int64
	// Progress, when set, is called after each record batch with the rows
	// read so far.
	Progress func(rows int64)
	// AppendOnly reads the plan append-only (appendonly.go): every row
	// read is an Insert, without a row hash (Hash 0), and a key the
	// baseline already holds is a duplicate, since nothing in the range
	// removes a row; the Joined files then join the baseline, and the
	// Removed files leave it without a Delete (their rows live on in the
	// Joined files).
	AppendOnly bool
	// Deleted are the keys the merge-on-read deletes of the range remove
	// from baseline files that stay live (package indexer finds them):
	// an added file that holds one again updates it (or carries it over),
	// and the others are deleted.
	Deleted []DeletedKey
}

// DeletedKey is a key a delete file removed from a live baseline file.
type DeletedKey struct {
	Key  []byte
	File string
}

// InvalidRow describes a row that could not become an object.
type InvalidRow struct {
	File   string `json:"file"`
	Row    int64  `json:"row"`
	Key    string `json:"key,omitempty"`
	Reason string `json:"reason"`
}

// Stats counts what a diff did.
type Stats struct {
	FilesRead  int
	BytesRead  int64
	RowsRead   int64
	Inserts    int64
	Updates    int64
	Deletes    int64
	CarryOvers int64
	Skipped    int64
	Samples    []InvalidRow // up to MaxSamples invalid rows
}

// MaxSamples bounds the invalid-row samples and duplicate keys reported.
const MaxSamples = 10

// DuplicateKey is a primary key found in more than one row.
type DuplicateKey struct {
	Key   string   `json:"key"`
	Files []string `json:"files"`
}

// DuplicateKeyError fails a build whose target holds a primary key twice.
type DuplicateKeyError struct {
	ObjectType string
	Table      string
	SnapshotID int64
	Keys       []DuplicateKey // at most MaxSamples
}

func (e *DuplicateKeyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "object type %s: table %s snapshot %d holds duplicate primary keys (%s): ", e.ObjectType, e.Table, e.SnapshotID, "first "+fmt.Sprint(len(e.Keys))+" shown")
	for i, k := range e.Keys {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s in %s", k.Key, strings.Join(k.Files, " and "))
	}
	return b.String()
}

// InvalidRowError fails a build of an object type with onInvalidRow: fail.
type InvalidRowError struct {
	ObjectType string
	Row        InvalidRow
}

func (e *InvalidRowError) Error() string {
	s := fmt.Sprintf("object type %s: invalid row %d of %s", e.ObjectType, e.Row.Row, e.Row.File)
	if e.Row.Key != "" {
		s += " (key " + e.Row.Key + ")"
	}
	return s + ": " + e.Row.Reason
}

// RowSource is where a row lives: its data file, and the hash of its
// encoded object.
type RowSource struct {
	File string
	Hash uint64
}

// Classify decides what a row found in an added file means, given where
// its key lives in the baseline (previous, when found). live reports
// whether a file is live at the target. It returns "" for a duplicate key.
func Classify(row, previous RowSource, found bool, live func(path string) bool) ChangeType {
	switch {
	case !found:
		return Insert
	case previous.File == row.File || live(previous.File):
		return "" // the key is in two rows of the target
	case previous.Hash == row.Hash:
		return CarryOver
	}
	return UpdateAfter
}

// Diff reads the added files of in.Plan, compares every row with base and
// sends one change per key to sink; then deletes the keys of removed files
// that no added file holds any more.
func Diff(ctx context.Context, in Input, base Baseline, sink Sink) (Stats, error) {
	d := &differ{in: &in, sink: sink, lookup: maskDeleted(base, in.Deleted), live: func(p string) bool { return in.Plan.Live[p] }}
	st, err := d.added(ctx)
	if err != nil {
		return st, err
	}
	if len(d.dups) > 0 {
		return st, &DuplicateKeyError{ObjectType: in.Type.APIName, Table: in.Table, SnapshotID: in.SnapshotID, Keys: d.dups}
	}
	if err := applyDeleted(ctx, in.Deleted, base, sink, &st); err != nil {
		return st, err
	}
	for _, f := range in.Plan.Joined {
		if err := sink.FileDone(f); err != nil {
			return st, err
		}
	}
	for _, path := range in.Plan.Removed {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if in.AppendOnly {
			if err := sink.FileRemoved(path); err != nil {
				return st, err
			}
			continue
		}
		err := base.FileKeys(path, func(key []byte) error {
			file, _, found, err := base.Lookup(key)
			if err != nil {
				return err
			}
			if !found || file != path {
				return nil // moved to an added file, or already deleted
			}
			st.Deletes++
			return sink.Apply(&Change{Type: Delete, Key: key})
		})
		if err != nil {
			return st, err
		}
		if err := sink.FileRemoved(path); err != nil {
			return st, err
		}
	}
	return st, nil
}

// differ compares the rows of the added files with the baseline, in
// order, and applies them.
type differ struct {
	in     *Input
	sink   Sink
	lookup func(key []byte) (string, uint64, bool, error)
	live   func(path string) bool // whether a file is live at the target
	st     Stats
	dups   []DuplicateKey
	obj    objects.Object
	ch     Change
}

// added diffs every added file; it stops after the file in which the
// duplicates reached MaxSamples.
func (d *differ) added(ctx context.Context) (Stats, error) {
	free := make(chan *rowBatch, batchesAhead+2)
	for _, f := range d.in.Plan.Added {
		if err := ctx.Err(); err != nil {
			return d.st, err
		}
		d.st.FilesRead++
		rows := readRows(ctx, d.in, f, d.in.Skip[f.Path], free)
		for b := range rows.out {
			err := d.apply(f, b)
			rows.release(b)
			if err != nil {
				rows.stop()
				return d.st, err
			}
			if d.in.Progress != nil {
				d.in.Progress(d.st.RowsRead)
			}
		}
		err := rows.wait()
		d.st.BytesRead = d.in.Reader.BytesRead()
		if err != nil {
			return d.st, err
		}
		if len(d.dups) >= MaxSamples {
			break
		}
		if len(d.dups) == 0 {
			if err := d.sink.FileDone(f); err != nil {
				return d.st, err
			}
		}
	}
	return d.st, nil
}

// apply compares the converted rows of a batch of f with the baseline and
// applies them.
func (d *differ) apply(f DataFile, b *rowBatch) error {
	t, st := d.in.Type, &d.st
	for i := range b.rows {
		cr := &b.rows[i]
		st.RowsRead++
		if cr.reason != "" {
			ir := InvalidRow{File: f.Path, Row: cr.row, Key: cr.invalidKey, Reason: cr.reason}
			if t.OnInvalidRow == objects.InvalidRowFail {
				return &InvalidRowError{ObjectType: t.APIName, Row: ir}
			}
			st.Skipped++
			if len(st.Samples) < MaxSamples {
				st.Samples = append(st.Samples, ir)
			}
			continue
		}
		key := b.key(i)
		prevFile, prevHash, found, err := d.lookup(key)
		if err != nil {
			return err
		}
		typ := Classify(RowSource{File: f.Path, Hash: cr.hash}, RowSource{File: prevFile, Hash: prevHash}, found, d.live)
		if d.in.AppendOnly && found {
			typ = ""
		}
		b.object(cr.at, &d.obj)
		if typ == "" {
			if len(d.dups) < MaxSamples {
				d.dups = append(d.dups, DuplicateKey{Key: t.KeyString(&d.obj), Files: uniq(prevFile, f.Path)})
			}
			continue
		}
		d.ch = Change{Type: typ, Key: key, File: f.Path, Row: cr.row, Hash: cr.hash}
		switch typ {
		case Insert:
			st.Inserts++
		case UpdateAfter:
			st.Updates++
		case CarryOver:
			st.CarryOvers++
		}
		if typ != CarryOver {
			d.ch.Encoded, d.ch.Object = b.encoded(i), &d.obj
		}
		if err := d.sink.Apply(&d.ch); err != nil {
			return err
		}
	}
	return nil
}

func uniq(a, b string) []string {
	if a == "" { // the baseline no longer knows the file (AppendOnly)
		return []string{b}
	}
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// IsDataError reports whether err is about the table's data (duplicate
// keys, invalid rows) rather than the system.
func IsDataError(err error) bool {
	var d *DuplicateKeyError
	var r *InvalidRowError
	return errors.As(err, &d) || errors.As(err, &r)
}
