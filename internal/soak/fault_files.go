package soak

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// The files of a table that the faults damage, and the damage.

// addedDataFile is a data file snapshot s added.
func addedDataFile(ctx context.Context, r *run, s *table.Snapshot) (string, error) {
	fs, mfs, err := r.added(ctx, s)
	if err != nil {
		return "", err
	}
	for _, mf := range mfs {
		for e, err := range mf.Entries(fs, true) {
			if err != nil {
				return "", fmt.Errorf("entries of %s: %w", mf.FilePath(), err)
			}
			if e.Status() == iceberg.EntryStatusADDED {
				return localPath(e.DataFile().FilePath()), nil
			}
		}
	}
	return "", fmt.Errorf("snapshot %d added no data file", s.SnapshotID)
}

// addedManifest is a data manifest snapshot s wrote.
func addedManifest(ctx context.Context, r *run, s *table.Snapshot) (string, error) {
	_, mfs, err := r.added(ctx, s)
	if err != nil {
		return "", err
	}
	for _, mf := range mfs {
		if mf.AddedDataFiles() > 0 {
			return localPath(mf.FilePath()), nil
		}
	}
	return "", fmt.Errorf("snapshot %d wrote no data manifest", s.SnapshotID)
}

// added is the data manifests snapshot s of the items table wrote.
func (r *run) added(ctx context.Context, s *table.Snapshot) (iceio.IO, []iceberg.ManifestFile, error) {
	fs, err := r.w.items.FS(ctx)
	if err != nil {
		return nil, nil, err
	}
	mfs, err := s.Manifests(fs)
	if err != nil {
		return nil, nil, fmt.Errorf("manifests of snapshot %d: %w", s.SnapshotID, err)
	}
	var out []iceberg.ManifestFile
	for _, mf := range mfs {
		if mf.SnapshotID() == s.SnapshotID && mf.ManifestContent() == iceberg.ManifestContentData {
			out = append(out, mf)
		}
	}
	return fs, out, nil
}

func manifestList(_ context.Context, _ *run, s *table.Snapshot) (string, error) {
	return localPath(s.ManifestList), nil
}

func metadataFile(_ context.Context, r *run, _ *table.Snapshot) (string, error) {
	return localPath(r.w.items.MetadataLocation()), nil
}

func warehouseDir(_ context.Context, r *run, _ *table.Snapshot) (string, error) {
	return filepath.Join(r.dir, "warehouse"), nil
}

func localPath(loc string) string { return strings.TrimPrefix(loc, "file://") }

// moveAway renames path (a file or a directory) out of the way.
func moveAway(path string) (func() error, error) {
	away := path + ".soak-away"
	if err := os.Rename(path, away); err != nil {
		return nil, err
	}
	return func() error { return os.Rename(away, path) }, nil
}

// truncateHalf cuts a file to half its length.
func truncateHalf(path string) (func() error, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return overwrite(path, b[:len(b)/2])
}

// overwrite replaces a file's content, keeping the original for undo.
func overwrite(path string, content []byte) (func() error, error) {
	orig, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return nil, err
	}
	return func() error { return os.WriteFile(path, orig, 0o644) }, nil
}
