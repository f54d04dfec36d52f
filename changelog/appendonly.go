package changelog

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// An append-only read of a snapshot range (from, to] trusts the range to
// add rows and never change or remove one: every snapshot in it is an
// append or a replace (a compaction, which rewrites rows unchanged). Then
// only the files the appends added are read, and every row in them is
// new; the files a replace added hold rows already indexed, so they join
// the baseline unread, and the files it removed leave it without deleting
// a key. Anything else in the range, or a range that cannot be proven
// append-only, is an *AppendOnlyError: the caller reads the target in full.

// AppendOnlyError says why a snapshot range cannot be read append-only.
// SnapshotID and Operation name the snapshot that breaks it (Operation is
// empty when no single operation does: a rollback, expired snapshots).
type AppendOnlyError struct {
	SnapshotID int64
	Operation  table.Operation
	Msg        string
}

func (e *AppendOnlyError) Error() string { return e.Msg }

// AppendOnlyRange returns the snapshots in (from, to], oldest first: the
// ancestors of to back to from, by parent id. It fails with an
// *AppendOnlyError when from is not an ancestor of to (a rollback, or
// snapshots expired since) or when a snapshot in the range is neither an
// append nor a replace.
func AppendOnlyRange(md table.Metadata, from int64, to *table.Snapshot) ([]table.Snapshot, error) {
	var out []table.Snapshot
	seen := map[int64]bool{}
	s := to
	for ; s != nil && s.SnapshotID != from && !seen[s.SnapshotID]; s = parent(md, s) {
		seen[s.SnapshotID] = true
		out = append(out, *s)
	}
	// From 0 (a checkpoint of a table without snapshots) every ancestor is
	// in the range.
	if (s == nil && from != 0) || (s != nil && s.SnapshotID != from) {
		return nil, &AppendOnlyError{SnapshotID: snapshotID(to),
			Msg: fmt.Sprintf("appendOnly: checkpoint snapshot %d is not an ancestor of snapshot %d (rollback or expired snapshots)", from, snapshotID(to))}
	}
	slices.Reverse(out)
	for _, s := range out {
		var op table.Operation
		if s.Summary != nil {
			op = s.Summary.Operation
		}
		if op != table.OpAppend && op != table.OpReplace {
			name := string(op)
			if name == "" {
				name = "unknown-operation"
			}
			return nil, &AppendOnlyError{SnapshotID: s.SnapshotID, Operation: op,
				Msg: fmt.Sprintf("appendOnly saw %s snapshot %d", name, s.SnapshotID)}
		}
	}
	return out, nil
}

func parent(md table.Metadata, s *table.Snapshot) *table.Snapshot {
	if s.ParentSnapshotID == nil {
		return nil
	}
	return md.SnapshotByID(*s.ParentSnapshotID)
}

func snapshotID(s *table.Snapshot) int64 {
	if s == nil {
		return 0
	}
	return s.SnapshotID
}

// AppendOnly readies p, the plan from the baseline at the start of snaps
// (as AppendOnlyRange returns them) to their end, for an append-only
// read: the added files that replaces wrote move from Added to Joined.
// It reads the manifests each replace wrote, to learn the files it
// removed and added, and fails with an *AppendOnlyError when a replace
// rewrote a file no build has read (one appended in the range: its rows
// would then be in a file that is not read) or a file left the baseline
// without a replace.
func (p *Plan) AppendOnly(ctx context.Context, fs iceio.IO, snaps []table.Snapshot) error {
	fs = rechecking(ctx, fs)
	removed := make(map[string]bool, len(p.Removed))
	for _, path := range p.Removed {
		removed[path] = true
	}
	// indexed: the files whose rows are in the baseline, as the range
	// goes: the baseline's, then the outputs of replaces of those.
	indexed := map[string]bool{}
	for _, s := range snaps {
		if s.Summary == nil || s.Summary.Operation != table.OpReplace {
			continue
		}
		in, out, err := replaceFiles(ctx, fs, &s)
		if err != nil {
			return err
		}
		for _, path := range in {
			if !removed[path] && !indexed[path] {
				return &AppendOnlyError{SnapshotID: s.SnapshotID, Operation: table.OpReplace,
					Msg: fmt.Sprintf("appendOnly saw replace snapshot %d rewrite data file %s, which was appended after the checkpoint", s.SnapshotID, path)}
			}
			delete(removed, path)
			delete(indexed, path)
		}
		for _, path := range out {
			indexed[path] = true
		}
	}
	if len(removed) > 0 {
		path := slices.Sorted(maps.Keys(removed))[0]
		return &AppendOnlyError{SnapshotID: snapshotID(lastOf(snaps)),
			Msg: fmt.Sprintf("appendOnly: data file %s left the table without a replace snapshot", path)}
	}
	read := p.Added[:0:0]
	for _, f := range p.Added {
		if indexed[f.Path] {
			p.Joined = append(p.Joined, f)
		} else {
			read = append(read, f)
		}
	}
	p.Added = read
	return nil
}

// replaceFiles lists the data files a replace snapshot removed and added,
// from the entries of the manifests it wrote.
func replaceFiles(ctx context.Context, fs iceio.IO, s *table.Snapshot) (removed, added []string, err error) {
	list, err := s.Manifests(fs)
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest list %s of snapshot %d: %w", s.ManifestList, s.SnapshotID, err)
	}
	for _, m := range list {
		if m.ManifestContent() != iceberg.ManifestContentData || m.SnapshotID() != s.SnapshotID {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		for e, err := range m.Entries(fs, false) {
			if err != nil {
				return nil, nil, fmt.Errorf("read manifest %s of snapshot %d: %w", m.FilePath(), s.SnapshotID, err)
			}
			if e.SnapshotID() != s.SnapshotID || e.DataFile().ContentType() != iceberg.EntryContentData {
				continue
			}
			switch e.Status() {
			case iceberg.EntryStatusDELETED:
				removed = append(removed, e.DataFile().FilePath())
			case iceberg.EntryStatusADDED:
				added = append(added, e.DataFile().FilePath())
			}
		}
	}
	return removed, added, nil
}

func lastOf(snaps []table.Snapshot) *table.Snapshot {
	if len(snaps) == 0 {
		return nil
	}
	return &snaps[len(snaps)-1]
}
