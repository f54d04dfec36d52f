package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/config/catalogs"
	"github.com/ontoindex/ontoindex/internal/benchdata"
)

// benchWarehouse is the full and incremental builds of the bench table in
// the warehouse of --warehouse, and their ratios to the local ones of the
// same run.
type benchWarehouse struct {
	URL          string  `json:"url"` // where this run's table was written
	WriteSeconds float64 `json:"writeSeconds"`

	FullSeconds          float64 `json:"fullSeconds"`
	FullObjectsPerSecond float64 `json:"fullObjectsPerSecond"`
	FullBytesRead        int64   `json:"fullBytesRead"`
	FullVsLocal          float64 `json:"fullVsLocalTimeRatio"`

	IncrementalMs      float64 `json:"incrementalMs"` // median of benchEdits
	IncrementalFiles   int     `json:"incrementalFilesRead"`
	IncrementalBytes   int64   `json:"incrementalBytesRead"`
	IncrementalVsLocal float64 `json:"incrementalVsLocalTimeRatio"`
}

// benchOnWarehouse writes the bench table of local's size under
// url/bench-<time> through a sql catalog on SQLite in work/warehouse, runs
// the full build and the one-row edits there, and removes the table's
// objects afterwards unless keep is set.
func benchOnWarehouse(ctx context.Context, work, url string, local *benchReport, keep bool) (_ *benchWarehouse, err error) {
	dir := filepath.Join(work, "warehouse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &benchWarehouse{URL: fmt.Sprintf("%s/bench-%d", strings.TrimRight(url, "/"), time.Now().UnixNano())}
	cc := config.Catalog{Type: "sql", Properties: map[string]string{
		"uri": "file:" + filepath.Join(dir, "catalog.db"), "sql.driver": "sqliteshim", "sql.dialect": "sqlite", "warehouse": w.URL}}
	cat, err := catalogs.Open(ctx, "warehouse", cc, dir)
	if err != nil {
		return nil, err
	}
	if c, ok := cat.(interface{ Close() error }); ok {
		defer c.Close()
	}
	start := time.Now()
	tbl, err := benchdata.WriteTableTo(ctx, cat, local.Rows, local.Files)
	if err != nil {
		return nil, fmt.Errorf("write the table to %s: %w", w.URL, err)
	}
	w.WriteSeconds = time.Since(start).Seconds()
	if !keep {
		defer func() {
			fs, ferr := tbl.FS(ctx)
			if ferr == nil {
				if r, ok := fs.(interface{ RemoveAll(string) error }); ok {
					ferr = r.RemoveAll(w.URL)
				}
			}
			if err == nil && ferr != nil {
				err = fmt.Errorf("remove %s: %w", w.URL, ferr)
			}
		}()
	}
	full, _, _, ix, err := benchBuild(ctx, dir, cc, "")
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	w.FullSeconds = float64(full.DurationMs) / 1000
	w.FullObjectsPerSecond = float64(full.Upserts) / w.FullSeconds
	w.FullBytesRead = full.BytesRead
	w.FullVsLocal = w.FullSeconds / local.FullSeconds
	if w.IncrementalMs, w.IncrementalFiles, w.IncrementalBytes, err = benchIncremental(ctx, ix, tbl, local.Rows); err != nil {
		return nil, err
	}
	w.IncrementalVsLocal = w.IncrementalMs / local.IncrementalMs
	return w, nil
}
