package indexer

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// A type with mergeOnRead: index builds snapshots that carry delete files.
// Added files (every file, in a full build) are read with the deletes that
// apply to them, as iceberg-go's scan reads them. An incremental build
// also finds the keys that new delete files remove from the files of the
// baseline, and hands them to the diff (changelog.Input.Deleted): the
// positions of a position-delete file or deletion vector, minus the ones
// already applied, name rows whose keys are read from the key columns of
// that one data file; an equality delete on the primary key names its
// keys; one on other columns is matched against the key and those columns
// of the files it applies to. The store remembers the delete files applied,
// the positions they removed, and the snapshot's sequence number
// (store/writer_deletes.go).

// morState is what a merge-on-read build learns of the target's delete
// files, kept from diff to commit.
type morState struct {
	live    []changelog.DeleteFile
	reader  *changelog.Reader
	added   map[string]bool
	touched map[string][]string          // delete file -> data files it removed rows from
	addedAt map[string]*roaring64.Bitmap // positions deleted in added files
	stats   morStats
}

// morStats count what a build's delete files cost and did.
type morStats struct {
	DeleteFilesRead      int
	PositionsApplied     int64
	KeysApplied          int64
	EqualityFilesScanned int
}

// mergeOnRead reports whether the build applies delete files.
func (j *buildJob) mergeOnRead() bool { return j.ts.spec.IndexesMergeOnRead() }

// matchDeletes lists the live delete files of the target and attaches to
// each added file those that apply to it.
func (j *buildJob) matchDeletes(ctx context.Context, plan *changelog.Plan, rd *changelog.Reader) error {
	fs, err := j.tbl.FS(ctx)
	if err != nil {
		return &tableError{err}
	}
	live, err := changelog.LiveDeleteFiles(ctx, fs, j.snap)
	if err != nil {
		return &tableError{fmt.Errorf("object type %s: table %s: %w", j.name(), j.ts.spec.Table, err)}
	}
	changelog.MatchDeletes(plan.Added, live)
	m := &morState{live: live, reader: rd, added: map[string]bool{}, touched: map[string][]string{}, addedAt: map[string]*roaring64.Bitmap{}}
	for _, f := range plan.Added {
		m.added[f.Path] = true
		if f.Deletes == nil {
			continue
		}
		for _, d := range live {
			if d.Kind == changelog.EqualityDeletes && slices.Contains(f.Deletes.Equality, d.Entry) {
				m.touched[d.Path] = append(m.touched[d.Path], f.Path)
			}
		}
	}
	j.mor = m
	return nil
}

// readPositions reads the positions of new position deletes and deletion
// vectors, for live data files; those of added files are kept to be
// recorded after the diff, the others returned by baseline file.
func (j *buildJob) readPositions(ctx context.Context, fresh []changelog.DeleteFile, live map[string]bool) (map[string]*roaring64.Bitmap, error) {
	m := j.mor
	out := map[string]*roaring64.Bitmap{}
	for _, d := range fresh {
		if d.Kind == changelog.EqualityDeletes {
			continue
		}
		pos, err := m.reader.Positions(ctx, d, func(p string) bool { return live[p] })
		if err != nil {
			return nil, &tableError{fmt.Errorf("object type %s: table %s: %w", j.name(), j.ts.spec.Table, err)}
		}
		m.stats.DeleteFilesRead++
		for p, bm := range pos {
			m.touched[d.Path] = append(m.touched[d.Path], p)
			into := out
			if m.added[p] {
				into = m.addedAt
			}
			if into[p] == nil {
				into[p] = roaring64.New()
			}
			into[p].Or(bm)
		}
	}
	return out, nil
}

// applyDeletes finds the keys that the delete files new since the
// checkpoint remove from live baseline files.
func (j *buildJob) applyDeletes(ctx context.Context, w *store.Writer, in *changelog.Input) error {
	m := j.mor
	applied, err := w.AppliedDeletes()
	if err != nil {
		return err
	}
	seq, err := w.DeleteSeq()
	if err != nil {
		return err
	}
	inBaseline := func(p string) bool { return in.Plan.Live[p] && !m.added[p] }
	byPath := map[string]changelog.DeleteFile{}
	var fresh []changelog.DeleteFile
	for _, d := range m.live {
		byPath[d.Path] = d
		if _, ok := applied[d.Path]; ok {
			continue
		}
		if d.Kind == changelog.EqualityDeletes && seq > 0 && d.Seq >= 0 && d.Seq <= seq {
			return &fullNeeded{reason: fmt.Sprintf("equality delete file %s is older than the checkpoint yet was not applied (a rollback)", d.Path)}
		}
		fresh = append(fresh, d)
	}
	positions, err := j.readPositions(ctx, fresh, in.Plan.Live)
	if err != nil {
		return err
	}
	if err := j.checkGone(ctx, w, applied, byPath, positions, inBaseline); err != nil {
		return err
	}
	keys, err := j.keyReader()
	if err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(positions)) {
		if !inBaseline(p) {
			continue
		}
		newer := positions[p]
		before, err := w.DeletedPositions(p)
		if err != nil {
			return err
		}
		if before != nil {
			newer = roaring64.AndNot(newer, before)
			positions[p].Or(before)
		}
		if newer.IsEmpty() {
			continue
		}
		f, ok, err := w.BaselineFile(p)
		if err != nil || !ok {
			return err
		}
		m.stats.PositionsApplied += int64(newer.GetCardinality())
		err = keys.KeysAt(ctx, f, j.keyType(), newer, func(_ int64, key []byte) error {
			file, _, found, err := w.Lookup(key)
			if err == nil && found && file == p {
				in.Deleted = append(in.Deleted, changelog.DeletedKey{Key: key, File: p})
			}
			return err
		})
		if err != nil {
			return &tableError{fmt.Errorf("object type %s: table %s: %w", j.name(), j.ts.spec.Table, err)}
		}
		if err := w.SetDeletedPositions(p, positions[p]); err != nil {
			return err
		}
	}
	for _, d := range fresh {
		if d.Kind != changelog.EqualityDeletes {
			continue
		}
		if err := j.applyEquality(ctx, w, in, d, inBaseline); err != nil {
			return err
		}
	}
	for p := range applied {
		if _, ok := byPath[p]; !ok {
			if err := w.DropAppliedDelete(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkGone tells a rollback from a compaction: an applied delete file
// that left the table while a data file it removed rows from stays must
// leave those rows deleted (a deletion vector replaced by a larger one,
// position deletes rewritten), or the rows came back and only a full build
// finds them.
func (j *buildJob) checkGone(ctx context.Context, w *store.Writer, applied map[string]store.AppliedDelete, live map[string]changelog.DeleteFile,
	fresh map[string]*roaring64.Bitmap, inBaseline func(string) bool) error {
	verify := map[string]bool{}
	for p, a := range applied {
		if _, ok := live[p]; ok {
			continue
		}
		for _, t := range a.Touched {
			if !inBaseline(t) {
				continue
			}
			if a.Kind == byte(changelog.EqualityDeletes) {
				return &fullNeeded{reason: fmt.Sprintf("equality delete file %s left the table while data file %s it applied to stayed (a rollback)", p, t)}
			}
			verify[t] = true
		}
	}
	for _, t := range slices.Sorted(maps.Keys(verify)) {
		before, err := w.DeletedPositions(t)
		if err != nil || before == nil {
			return err
		}
		now := roaring64.New()
		if fresh[t] != nil {
			now.Or(fresh[t])
		}
		for p, a := range applied {
			d, ok := live[p]
			if !ok || a.Kind == byte(changelog.EqualityDeletes) || !slices.Contains(a.Touched, t) {
				continue
			}
			pos, err := j.mor.reader.Positions(ctx, d, func(p string) bool { return p == t })
			if err != nil {
				return &tableError{err}
			}
			j.mor.stats.DeleteFilesRead++
			if pos[t] != nil {
				now.Or(pos[t])
			}
		}
		if before.AndCardinality(now) != before.GetCardinality() {
			return &fullNeeded{reason: fmt.Sprintf("rows of data file %s that applied deletes removed are live again (a rollback)", t)}
		}
	}
	return nil
}

// keyReader reads the key columns of the type only.
func (j *buildJob) keyReader() (*changelog.Reader, error) {
	t := j.keyType()
	cols := make([]string, len(t.Properties))
	for i, p := range t.Properties {
		cols[i] = p.Column
	}
	return j.mor.reader.Project(cols)
}

// keyType is the type with its primary-key properties only: what a read
// of the key columns converts.
func (j *buildJob) keyType() *objects.Type {
	t := *j.typ
	t.Properties = nil
	for _, i := range j.typ.KeyIndexes() {
		t.Properties = append(t.Properties, j.typ.Properties[i])
	}
	return objects.NewType(t)
}

// recordDeletes records, after the diff, the delete files the build
// applied and the positions deleted in its added files; a full build reads
// the positions of every position delete and deletion vector first.
func (j *buildJob) recordDeletes(ctx context.Context, w *store.Writer, in *changelog.Input, full bool) error {
	m := j.mor
	applied, err := w.AppliedDeletes()
	if err != nil {
		return err
	}
	if full {
		if _, err := j.readPositions(ctx, m.live, in.Plan.Live); err != nil {
			return err
		}
	}
	for p, bm := range m.addedAt {
		if err := w.SetDeletedPositions(p, bm); err != nil {
			return err
		}
	}
	for _, d := range m.live {
		if _, ok := applied[d.Path]; ok && !full {
			continue
		}
		if err := w.PutAppliedDelete(d.Path, store.AppliedDelete{Kind: byte(d.Kind), Seq: d.Seq, Touched: m.touched[d.Path]}); err != nil {
			return err
		}
	}
	if j.snap != nil {
		if err := w.SetDeleteSeq(j.snap.SequenceNumber); err != nil {
			return err
		}
	}
	return nil
}

// recordStats adds what the delete files cost to the result.
func (j *buildJob) recordStats() {
	if j.mor == nil {
		return
	}
	s := j.mor.stats
	j.res.DeleteFilesRead, j.res.PositionsApplied, j.res.KeysApplied, j.res.EqualityFilesScanned = s.DeleteFilesRead, s.PositionsApplied, s.KeysApplied, s.EqualityFilesScanned
	j.res.BytesRead = j.mor.reader.BytesRead()
}
