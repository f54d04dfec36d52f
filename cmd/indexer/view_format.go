package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The output formats of `indexer changelog` and `indexer view`. Both
// stream record batches, so every writer keeps at most a bounded part of
// the rows in memory.

// rowSource is what the formats print: a *changelog.Changelog or a
// *changelog.TableView.
type rowSource interface {
	Schema() *arrow.Schema
	Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error]
}

// tableFlushRows is how many rows the table format aligns at a time.
const tableFlushRows = 1000

// parquetRowGroupRows bounds the rows of one Parquet row group, which the
// writer buffers (encoded) until it is full.
const parquetRowGroupRows = 128 << 10

// writeJSONL writes one JSON object per row, keys in column order.
func writeJSONL(ctx context.Context, w io.Writer, cl rowSource) error {
	names := make([][]byte, len(cl.Schema().Fields()))
	for i, f := range cl.Schema().Fields() {
		names[i], _ = json.Marshal(f.Name)
	}
	var line []byte
	for rec, err := range cl.Records(ctx) {
		if err != nil {
			return err
		}
		for i := range int(rec.NumRows()) {
			line = append(line[:0], '{')
			for j, col := range rec.Columns() {
				if j > 0 {
					line = append(line, ',')
				}
				line = append(append(line, names[j]...), ':')
				v, err := json.Marshal(col.GetOneForMarshal(i))
				if err != nil {
					return fmt.Errorf("column %s: %w", rec.ColumnName(j), err)
				}
				line = append(line, v...)
			}
			line = append(line, '}', '\n')
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeTable writes the rows as aligned columns, aligned per
// tableFlushRows rows so that memory stays bounded.
func writeTable(ctx context.Context, w io.Writer, cl rowSource) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var header []string
	for _, f := range cl.Schema().Fields() {
		header = append(header, strings.ToUpper(strings.TrimPrefix(f.Name, "_")))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	n := 0
	cells := make([]string, len(header))
	for rec, err := range cl.Records(ctx) {
		if err != nil {
			_ = tw.Flush()
			return err
		}
		for i := range int(rec.NumRows()) {
			for j, col := range rec.Columns() {
				cells[j] = cellText(col, i)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
			if n++; n%tableFlushRows == 0 {
				if err := tw.Flush(); err != nil {
					return err
				}
			}
		}
	}
	return tw.Flush()
}

func cellText(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "null"
	}
	s := col.ValueStr(i)
	return strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(s)
}

// writeParquet writes the rows as one Parquet file with the source's
// schema.
func writeParquet(ctx context.Context, w io.Writer, src rowSource) error {
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(parquetRowGroupRows))
	fw, err := pqarrow.NewFileWriter(src.Schema(), w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return fmt.Errorf("parquet writer: %w", err)
	}
	for rec, err := range src.Records(ctx) {
		if err != nil {
			_ = fw.Close()
			return err
		}
		if err := fw.WriteBuffered(rec); err != nil {
			_ = fw.Close()
			return fmt.Errorf("write parquet: %w", err)
		}
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("write parquet: %w", err)
	}
	return nil
}

// writeFile writes path through write, atomically: to a temporary file in
// the same directory, renamed over path once complete, so that a failed
// or interrupted run leaves no half-written file.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write %s: %w", path, cerr)
	}
	if err == nil {
		if err = os.Rename(f.Name(), path); err != nil {
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
