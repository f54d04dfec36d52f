package indexer_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

// TestIndexer_damagedIndexFile damages the index file of a generation in
// every way a disk or a copy can (cut short, emptied, a flipped bit in the
// columns, in the header or in the checksum, data after it, a length that
// claims gigabytes) and reopens: each time the damage is logged with the
// file, the index is rebuilt from the store without loading a table (the
// indexer's tables are out of reach), serves exactly the objects it served
// before with every structure the store makes, and the file is written
// again, so that the next start loads it.
func TestIndexer_damagedIndexFile(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	tbl, err := w.CreateTable(ctx, "ns.customers", customerSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := tbl.Append(ctx, customerRows(i*1500, 1500)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := indexertest.Config(t, w, objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"})
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Build(ctx, "Customer", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	want := indexertest.Export(t, ix, "Customer")
	fp := []byte(index.Fingerprint(mustType(t, ix, "Customer")))
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cfg.Path(cfg.DataDir), "types", "Customer", "gen-1", "index.snap")
	pristine, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var loads atomic.Int32
	noTables := func(context.Context, string) (*table.Table, error) {
		loads.Add(1)
		return nil, errors.New("the tables are out of reach in this test")
	}
	open := func(t *testing.T) (*indexer.Indexer, string) {
		t.Helper()
		var logs bytes.Buffer
		ix, err := indexer.Open(ctx, cfg, indexer.Options{LoadTable: noTables, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return ix, logs.String()
	}
	for _, tt := range []struct {
		name   string
		damage func([]byte) []byte
		why    string
	}{
		{"cut in half", func(b []byte) []byte { return b[:len(b)/2] }, "truncated"},
		{"cut to 10 bytes", func(b []byte) []byte { return b[:10] }, "truncated"},
		{"emptied", func([]byte) []byte { return nil }, "not an index file"},
		{"a bit flipped in the columns", func(b []byte) []byte { b[len(b)*2/3] ^= 0x10; return b }, "index file is corrupt"},
		{"a bit flipped in the header", func(b []byte) []byte { b[3] ^= 0x01; return b }, "not an index file"},
		{"a bit flipped in the checksum", func(b []byte) []byte { b[len(b)-1] ^= 0x80; return b }, "checksum mismatch"},
		{"data after the checksum", func(b []byte) []byte { return append(b, "tail"...) }, "data after the checksum"},
		{"a length of gigabytes", func(b []byte) []byte {
			// The alive bitmap's length follows the header, the type
			// fingerprint and the document count: claim 1 GiB there.
			i := bytes.Index(b, fp) + len(fp)
			for b[i]&0x80 != 0 { // skip the document count
				i++
			}
			return append(append(b[:i+1:i+1], 0x80, 0x80, 0x80, 0x80, 0x04), b[i+1:]...)
		}, "index file is corrupt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(file, tt.damage(bytes.Clone(pristine)), 0o644); err != nil {
				t.Fatal(err)
			}
			ix, logs := open(t)
			for _, s := range []string{"rebuilding the index from the store", file, tt.why} {
				if !strings.Contains(logs, s) {
					t.Errorf("the log does not say %q:\n%s", s, logs)
				}
			}
			if got := indexertest.Export(t, ix, "Customer"); !reflect.DeepEqual(got, want) {
				t.Errorf("rebuilt index serves %d objects, want the %d it served", len(got), len(want))
			}
			v, err := ix.View("Customer")
			if err != nil {
				t.Fatal(err)
			}
			if err := v.CheckIndex(ctx); err != nil {
				t.Errorf("the rebuilt index is not the one the store makes: %v", err)
			}
			v.Release()
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}
			// Written again: the next start loads it, with nothing to say.
			ix, logs = open(t)
			defer ix.Close()
			if logs != "" {
				t.Errorf("the start after the rebuild logged:\n%s", logs)
			}
			if got := indexertest.Export(t, ix, "Customer"); !reflect.DeepEqual(got, want) {
				t.Errorf("after the rebuild: %d objects, want %d", len(got), len(want))
			}
		})
	}
	if n := loads.Load(); n != 0 {
		t.Errorf("%d table loads while the index was rebuilt: it must come from the store alone", n)
	}
}

// mustType is the resolved object type of name, from its checkpoint.
func mustType(tb testing.TB, ix *indexer.Indexer, name string) *objects.Type {
	tb.Helper()
	cp, err := ix.Checkpoint(name)
	if err != nil || cp == nil {
		tb.Fatalf("checkpoint of %s: %+v, %v", name, cp, err)
	}
	return cp.Type
}
