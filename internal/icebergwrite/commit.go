package icebergwrite

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Append commits rows to tbl as a fast append and returns the table it
// committed.
func Append(ctx context.Context, tbl *table.Table, rows Rows) (*table.Table, error) {
	rdr, err := rows(tbl.Schema())
	if err != nil {
		return nil, fmt.Errorf("append to %s: %w", name(tbl), err)
	}
	defer rdr.Release()
	nt, err := tbl.Append(ctx, rdr, nil)
	if err != nil {
		return nil, fmt.Errorf("append to %s: %w", name(tbl), err)
	}
	return nt, nil
}

// Overwrite commits a copy-on-write overwrite of tbl: the files holding
// rows that match filter are rewritten without them, and rows are added.
func Overwrite(ctx context.Context, tbl *table.Table, filter iceberg.BooleanExpression, rows Rows) (*table.Table, error) {
	rdr, err := rows(tbl.Schema())
	if err != nil {
		return nil, fmt.Errorf("overwrite %s: %w", name(tbl), err)
	}
	defer rdr.Release()
	nt, err := tbl.Overwrite(ctx, rdr, nil, table.WithOverwriteFilter(filter))
	if err != nil {
		return nil, fmt.Errorf("overwrite %s: %w", name(tbl), err)
	}
	return nt, nil
}

// Delete commits the delete of the rows of tbl that match filter, as the
// table's write.delete.mode says: copy-on-write (the default) rewrites
// their files, merge-on-read writes a position-delete file.
func Delete(ctx context.Context, tbl *table.Table, filter iceberg.BooleanExpression) (*table.Table, error) {
	nt, err := tbl.Delete(ctx, filter, nil)
	if err != nil {
		return nil, fmt.Errorf("delete from %s: %w", name(tbl), err)
	}
	return nt, nil
}

// Compact rewrites the data files of tasks into new ones with their
// deletes applied, in one replace snapshot that changes no row. With nil
// tasks it rewrites every live data file and also removes every live
// delete file (which then applies to nothing), and says how many it
// removed; with some tasks the delete files stay.
func Compact(ctx context.Context, tbl *table.Table, tasks []table.FileScanTask) (_ *table.Table, deleteFiles int, _ error) {
	group := "some"
	var deletes []iceberg.DataFile
	if tasks == nil {
		var err error
		if tasks, err = tbl.Scan().PlanFiles(ctx); err != nil {
			return nil, 0, fmt.Errorf("plan the compaction of %s: %w", name(tbl), err)
		}
		group, deletes = "all", liveDeletes(tasks)
	}
	var size int64
	for _, t := range tasks {
		size += t.File.FileSizeBytes()
	}
	res, err := tbl.RewriteDataFiles(ctx, []table.CompactionTaskGroup{{PartitionKey: group, Tasks: tasks, TotalSizeBytes: size}},
		table.RewriteDataFilesOptions{ExtraDeleteFilesToRemove: deletes})
	if err != nil {
		return nil, 0, fmt.Errorf("compact %d files of %s: %w", len(tasks), name(tbl), err)
	}
	return res.Table, len(deletes), nil
}

// liveDeletes is the delete files of tasks, each once.
func liveDeletes(tasks []table.FileScanTask) []iceberg.DataFile {
	seen := map[string]bool{}
	var out []iceberg.DataFile
	for _, t := range tasks {
		for _, group := range [][]iceberg.DataFile{t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles} {
			for _, f := range group {
				if !seen[f.FilePath()] {
					seen[f.FilePath()] = true
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// name is the table's identifier as namespace.table, for messages.
func name(tbl *table.Table) string { return strings.Join(tbl.Identifier(), ".") }
