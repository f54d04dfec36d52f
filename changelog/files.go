package changelog

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// DataFile is a data file as the diff needs it. Entry is set for files read
// from a manifest in this run (the ones that can be opened).
type DataFile struct {
	Path    string
	Size    int64
	Records int64
	Entry   iceberg.DataFile
	// Seq is the data sequence number of a file read from a manifest.
	Seq int64
	// Deletes are the merge-on-read delete files a read of the file
	// applies (nil: none; MatchDeletes).
	Deletes *FileDeletes
}

// Manifest is one data manifest of a snapshot and its live data files.
type Manifest struct {
	Path  string
	Files []DataFile
	Known bool // the live files came from the baseline; the manifest was not read
}

// LiveFiles lists the data manifests of snap and their live data files.
// known returns the live files of a manifest the caller already knows
// (manifests are immutable, so a known path need not be read again);
// unknown manifests are read.
func LiveFiles(ctx context.Context, fs iceio.IO, snap *table.Snapshot, known func(path string) ([]DataFile, bool, error)) ([]Manifest, error) {
	if snap == nil {
		return nil, nil
	}
	fs = rechecking(ctx, fs)
	list, err := snap.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s of snapshot %d: %w", snap.ManifestList, snap.SnapshotID, err)
	}
	var out []Manifest
	for _, m := range list {
		if m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if known != nil {
			files, ok, err := known(m.FilePath())
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, Manifest{Path: m.FilePath(), Files: files, Known: true})
				continue
			}
		}
		mf := Manifest{Path: m.FilePath()}
		if m.HasAddedFiles() || m.HasExistingFiles() {
			for e, err := range m.Entries(fs, true) {
				if err != nil {
					return nil, fmt.Errorf("read manifest %s of snapshot %d: %w", m.FilePath(), snap.SnapshotID, err)
				}
				df := e.DataFile()
				if df.ContentType() != iceberg.EntryContentData {
					continue
				}
				mf.Files = append(mf.Files, DataFile{Path: df.FilePath(), Size: df.FileSizeBytes(), Records: df.Count(), Entry: df, Seq: e.SequenceNum()})
			}
		}
		out = append(out, mf)
	}
	return out, nil
}

// Plan is the file-level difference between a baseline and a target.
type Plan struct {
	Live    map[string]bool // every data file live at the target
	Added   []DataFile      // live at the target, not in the baseline; sorted by path
	Removed []string        // in the baseline, not live at the target; sorted
	// Joined are added files whose rows the baseline already holds (an
	// append-only plan's replace outputs, Plan.AppendOnly): they join the
	// baseline unread.
	Joined []DataFile
}

// PlanDiff compares the live files of the target with the baseline files.
func PlanDiff(manifests []Manifest, baseline func(yield func(string) bool)) (*Plan, error) {
	p := &Plan{Live: make(map[string]bool)}
	added := map[string]DataFile{}
	for _, m := range manifests {
		for _, f := range m.Files {
			if p.Live[f.Path] {
				return nil, fmt.Errorf("data file %s is live twice (manifest %s)", f.Path, m.Path)
			}
			p.Live[f.Path] = true
			if !m.Known {
				added[f.Path] = f
			}
		}
	}
	inBase := map[string]bool{}
	for path := range baseline {
		inBase[path] = true
		if !p.Live[path] {
			p.Removed = append(p.Removed, path)
		}
	}
	for path, f := range added {
		if !inBase[path] {
			p.Added = append(p.Added, f)
		}
	}
	slices.SortFunc(p.Added, func(a, b DataFile) int { return compareStrings(a.Path, b.Path) })
	slices.Sort(p.Removed)
	return p, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TotalRecords is the number of records in the added files.
func (p *Plan) TotalRecords() int64 {
	var n int64
	for _, f := range p.Added {
		n += f.Records
	}
	return n
}
