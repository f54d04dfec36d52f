package changelog

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// DeleteKind is the kind of a merge-on-read delete file.
type DeleteKind byte

// Delete kinds.
const (
	PositionDeletes DeleteKind = 'p' // a v2 position-delete file: (file_path, pos) rows
	EqualityDeletes DeleteKind = 'e' // rows of column values; matching rows are deleted
	DeletionVector  DeleteKind = 'v' // a v3 deletion vector: a bitmap of one data file's positions
)

func (k DeleteKind) String() string {
	switch k {
	case PositionDeletes:
		return "position delete"
	case EqualityDeletes:
		return "equality delete"
	case DeletionVector:
		return "deletion vector"
	}
	return fmt.Sprintf("delete kind %q", byte(k))
}

// DeleteFile is a live delete file of a snapshot. Deletion vectors of one
// puffin file are distinct DeleteFiles: their Path names the blob (the
// puffin path and the blob's offset), since each applies to one data file.
type DeleteFile struct {
	Path       string
	Kind       DeleteKind
	Seq        int64 // data sequence number
	SpecID     int32
	Partition  map[int]any
	Referenced string // the data file a file-scoped delete names ("": partition-scoped)
	Equality   []int  // equality field ids
	Size       int64
	Entry      iceberg.DataFile
}

// FileDeletes are the delete files that apply to one data file, as a read
// of it hands them to iceberg-go's reader (table.FileScanTask).
type FileDeletes struct {
	Position, Equality, Vectors []iceberg.DataFile
}

// LiveDeleteFiles lists the live delete files of snap: the ADDED and
// EXISTING entries of its delete manifests.
func LiveDeleteFiles(ctx context.Context, fs iceio.IO, snap *table.Snapshot) ([]DeleteFile, error) {
	if snap == nil {
		return nil, nil
	}
	fs = rechecking(ctx, fs)
	list, err := snap.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s of snapshot %d: %w", snap.ManifestList, snap.SnapshotID, err)
	}
	var out []DeleteFile
	for _, m := range list {
		if m.ManifestContent() != iceberg.ManifestContentDeletes || (!m.HasAddedFiles() && !m.HasExistingFiles()) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				return nil, fmt.Errorf("read delete manifest %s of snapshot %d: %w", m.FilePath(), snap.SnapshotID, err)
			}
			df := e.DataFile()
			d := DeleteFile{Path: df.FilePath(), Seq: e.SequenceNum(), SpecID: df.SpecID(), Partition: df.Partition(), Size: df.FileSizeBytes(), Entry: df}
			switch {
			case table.IsDeletionVector(df):
				d.Kind = DeletionVector
				if off := df.ContentOffset(); off != nil {
					d.Path = fmt.Sprintf("%s#%d", df.FilePath(), *off)
				}
				if n := df.ContentSizeInBytes(); n != nil {
					d.Size = *n
				}
			case df.ContentType() == iceberg.EntryContentEqDeletes:
				d.Kind, d.Equality = EqualityDeletes, slices.Clone(df.EqualityFieldIDs())
			case df.ContentType() == iceberg.EntryContentPosDeletes:
				d.Kind = PositionDeletes
			default:
				continue
			}
			if ref := df.ReferencedDataFile(); ref != nil {
				d.Referenced = *ref
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// MatchDeletes attaches to each data file the live delete files that apply
// to it, as Iceberg's spec says: its deletion vector (the one whose data
// sequence number is at least the file's), or else the position-delete
// files that name it or may (partition-scoped, same partition); and the
// equality deletes of a strictly greater data sequence number in the same
// partition, or unpartitioned. A file with none keeps Deletes nil.
func MatchDeletes(files []DataFile, deletes []DeleteFile) {
	if len(deletes) == 0 {
		return
	}
	vectors := map[string]DeleteFile{}
	positions := map[string][]DeleteFile{}
	var scoped, equality []DeleteFile
	for _, d := range deletes {
		switch {
		case d.Kind == DeletionVector:
			vectors[d.Referenced] = d
		case d.Kind == EqualityDeletes:
			equality = append(equality, d)
		case d.Referenced != "":
			positions[d.Referenced] = append(positions[d.Referenced], d)
		default:
			scoped = append(scoped, d)
		}
	}
	for i := range files {
		f := &files[i]
		var fd FileDeletes
		if v, ok := vectors[f.Path]; ok && (v.Seq < 0 || f.Seq <= v.Seq) {
			fd.Vectors = append(fd.Vectors, v.Entry)
		} else {
			for _, d := range positions[f.Path] {
				if d.Seq < 0 || f.Seq <= d.Seq {
					fd.Position = append(fd.Position, d.Entry)
				}
			}
			for _, d := range scoped {
				if (d.Seq < 0 || f.Seq <= d.Seq) && samePartition(f, d) {
					fd.Position = append(fd.Position, d.Entry)
				}
			}
		}
		for _, d := range equality {
			if f.Seq < d.Seq && (len(d.Partition) == 0 || samePartition(f, d)) {
				fd.Equality = append(fd.Equality, d.Entry)
			}
		}
		if len(fd.Position)+len(fd.Equality)+len(fd.Vectors) > 0 {
			f.Deletes = &fd
		}
	}
}

// samePartition reports whether a delete file may apply to a data file by
// partition: the same spec and partition values, or a file without its
// manifest entry (then only the spec's rules of sequence numbers decide).
func samePartition(f *DataFile, d DeleteFile) bool {
	if f.Entry == nil {
		return true
	}
	if len(d.Partition) == 0 && len(f.Entry.Partition()) == 0 {
		return true
	}
	return f.Entry.SpecID() == d.SpecID && maps.EqualFunc(f.Entry.Partition(), d.Partition, func(a, b any) bool { return reflect.DeepEqual(a, b) })
}

// EqualityApplies reports whether an equality delete applies to a data
// file read from a manifest: a strictly greater data sequence number, and
// the same partition unless the delete is unpartitioned.
func EqualityApplies(f DataFile, d DeleteFile) bool {
	return f.Seq < d.Seq && (len(d.Partition) == 0 || samePartition(&f, d))
}
