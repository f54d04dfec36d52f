package cowguard

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// Write-mode table properties and their values.
const (
	DeleteModeKey = "write.delete.mode"
	UpdateModeKey = "write.update.mode"
	MergeModeKey  = "write.merge.mode"

	CopyOnWrite = "copy-on-write"
	MergeOnRead = "merge-on-read"
)

// Modes are a table's three write modes. An absent property is reported as
// copy-on-write, Iceberg's default, with its Set flag false.
type Modes struct {
	Delete string `json:"delete"`
	Update string `json:"update"`
	Merge  string `json:"merge"`

	DeleteSet bool `json:"-"`
	UpdateSet bool `json:"-"`
	MergeSet  bool `json:"-"`
}

// WriteModes reads the write modes from table properties.
func WriteModes(props iceberg.Properties) Modes {
	get := func(k string) (string, bool) {
		v, ok := props[k]
		if !ok || v == "" {
			return CopyOnWrite, false
		}
		return v, true
	}
	var m Modes
	m.Delete, m.DeleteSet = get(DeleteModeKey)
	m.Update, m.UpdateSet = get(UpdateModeKey)
	m.Merge, m.MergeSet = get(MergeModeKey)
	return m
}

// AnyMergeOnRead reports whether any mode is merge-on-read.
func (m Modes) AnyMergeOnRead() bool {
	return m.Delete == MergeOnRead || m.Update == MergeOnRead || m.Merge == MergeOnRead
}

// String renders the modes as property assignments, marking defaults.
func (m Modes) String() string {
	f := func(k, v string, set bool) string {
		if !set {
			return k + "=" + v + " (default)"
		}
		return k + "=" + v
	}
	return strings.Join([]string{f(DeleteModeKey, m.Delete, m.DeleteSet), f(UpdateModeKey, m.Update, m.UpdateSet), f(MergeModeKey, m.Merge, m.MergeSet)}, ", ")
}

// DeleteCounts counts live delete files by kind. Dangling counts delete
// files that are still listed but apply to no live data file (for example
// position deletes whose data files a compaction rewrote): they change no
// row, so they do not block and are not part of Total.
type DeleteCounts struct {
	Position        int `json:"position"`
	Equality        int `json:"equality"`
	DeletionVectors int `json:"deletionVectors"`
	Dangling        int `json:"dangling"`
}

// Total is the number of live delete files that apply to live data.
func (c DeleteCounts) Total() int { return c.Position + c.Equality + c.DeletionVectors }

func (c DeleteCounts) String() string {
	plural := func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, one)
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	s := plural(c.Position, "position-delete file", "position-delete files") + ", " +
		plural(c.Equality, "equality-delete file", "equality-delete files") + ", " +
		plural(c.DeletionVectors, "deletion vector", "deletion vectors")
	if c.Dangling > 0 {
		s += ", " + plural(c.Dangling, "dangling delete file", "dangling delete files")
	}
	return s
}

// deleteEntry is a live entry of a delete manifest.
type deleteEntry struct {
	kind int // 0 position, 1 equality, 2 deletion vector
	seq  int64
	ref  string // referenced data file, for file-scoped deletes
}

// LiveDeletes counts the live delete files of a snapshot: the ADDED and
// EXISTING entries of its delete manifests, by kind. A delete file that
// applies to no live data file is counted as Dangling instead: a position
// delete or deletion vector applies to data files with a data sequence
// number at most its own (and only to its referenced file when it names
// one), an equality delete to data files with a smaller one.
//
// Delete manifests are read only when their counts say they may hold live
// entries; data manifests only when there is a live delete file to judge.
func LiveDeletes(ctx context.Context, fs iceio.IO, snap *table.Snapshot) (DeleteCounts, error) {
	var c DeleteCounts
	if snap == nil {
		return c, nil
	}
	manifests, err := snap.Manifests(fs)
	if err != nil {
		return c, fmt.Errorf("read manifest list %s of snapshot %d: %w", snap.ManifestList, snap.SnapshotID, err)
	}
	var deletes []deleteEntry
	for _, m := range manifests {
		if m.ManifestContent() != iceberg.ManifestContentDeletes {
			continue
		}
		if !m.HasAddedFiles() && !m.HasExistingFiles() {
			continue // only DELETED entries: a compaction leftover
		}
		if err := ctx.Err(); err != nil {
			return c, err
		}
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				return c, fmt.Errorf("read delete manifest %s of snapshot %d: %w", m.FilePath(), snap.SnapshotID, err)
			}
			df := e.DataFile()
			d := deleteEntry{seq: e.SequenceNum()}
			switch {
			case table.IsDeletionVector(df):
				d.kind = 2
			case df.ContentType() == iceberg.EntryContentEqDeletes:
				d.kind = 1
			case df.ContentType() != iceberg.EntryContentPosDeletes:
				continue
			}
			if ref := df.ReferencedDataFile(); ref != nil {
				d.ref = *ref
			}
			deletes = append(deletes, d)
		}
	}
	if len(deletes) == 0 {
		return c, nil
	}
	// The live data files and their data sequence numbers.
	live := map[string]int64{}
	minSeq := int64(-1)
	for _, m := range manifests {
		if m.ManifestContent() != iceberg.ManifestContentData || (!m.HasAddedFiles() && !m.HasExistingFiles()) {
			continue
		}
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				return c, fmt.Errorf("read manifest %s of snapshot %d: %w", m.FilePath(), snap.SnapshotID, err)
			}
			seq := e.SequenceNum()
			live[e.DataFile().FilePath()] = seq
			if minSeq < 0 || seq < minSeq {
				minSeq = seq
			}
		}
	}
	for _, d := range deletes {
		applies := false
		switch {
		case minSeq < 0: // no live data at all
		case d.ref != "":
			seq, ok := live[d.ref]
			applies = ok && seq <= d.seq
		case d.kind == 1:
			applies = minSeq < d.seq
		default:
			applies = minSeq <= d.seq
		}
		switch {
		case !applies:
			c.Dangling++
		case d.kind == 2:
			c.DeletionVectors++
		case d.kind == 1:
			c.Equality++
		default:
			c.Position++
		}
	}
	return c, nil
}

// MergeOnReadError refuses a snapshot that has live delete files.
type MergeOnReadError struct {
	ObjectType string // empty when not known
	Table      string
	SnapshotID int64
	Operation  string
	Deletes    DeleteCounts
	Modes      Modes
}

func (e *MergeOnReadError) Error() string {
	var b strings.Builder
	if e.ObjectType != "" {
		b.WriteString("object type " + e.ObjectType + ": ")
	}
	fmt.Fprintf(&b, "table %s snapshot %d", e.Table, e.SnapshotID)
	if e.Operation != "" {
		fmt.Fprintf(&b, " (%s)", e.Operation)
	}
	fmt.Fprintf(&b, " has live merge-on-read delete files (%s); ontoindex indexes copy-on-write tables only and left the index at its last good state. ", e.Deletes)
	fmt.Fprintf(&b, "Write modes: %s. ", e.Modes)
	b.WriteString("Fix: " + Fix)
	return b.String()
}

// Fix is what an operator does about a *MergeOnReadError: the last sentence
// of its message, and the fix that status reports with a refusal.
const Fix = "set " + DeleteModeKey + ", " + UpdateModeKey + " and " + MergeModeKey + " to copy-on-write, then compact the table so that no delete files remain " +
	"(for example Spark's CALL system.rewrite_data_files with options rewrite-all=true, use-starting-sequence-number=false and remove-dangling-deletes=true: " +
	"with the starting sequence number the rewritten files keep the delete files' own and the deletes stay live); the next build then succeeds by itself. " +
	"Or opt in with mergeOnRead: index in the type's config: builds then apply the delete files incrementally"

// Check refuses snap with a *MergeOnReadError when it has live delete files.
// name is the table name used in the error.
func Check(ctx context.Context, tbl *table.Table, name string, snap *table.Snapshot) error {
	if snap == nil {
		return nil
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return fmt.Errorf("open file system of table %s: %w", name, err)
	}
	c, err := LiveDeletes(ctx, fs, snap)
	if err != nil {
		return err
	}
	if c.Total() == 0 {
		return nil
	}
	return &MergeOnReadError{
		Table: name, SnapshotID: snap.SnapshotID, Operation: string(snap.Summary.Operation),
		Deletes: c, Modes: WriteModes(tbl.Properties()),
	}
}
