package changelog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/s3test"
)

// mustS3Table writes ns.wide (id, a long text) with rows rows in one data
// file into the S3 warehouse of d, and returns it as loaded through the
// Meter, and the location of its data file.
func mustS3Table(tb testing.TB, d *deploytest.Deployment, rows int) (*icebergtest.Table, DataFile) {
	tb.Helper()
	ctx := context.Background()
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "text", Type: iceberg.PrimitiveTypes.String})
	t, err := d.Warehouse.CreateTable(ctx, "ns.wide", sc, nil)
	if err != nil {
		tb.Fatal(err)
	}
	var data []icebergtest.Row
	for i := range rows {
		data = append(data, icebergtest.Row{"id": i, "text": fmt.Sprintf("row %d %s", i, strings.Repeat("x", i%50))})
	}
	if err := t.Append(ctx, data); err != nil {
		tb.Fatal(err)
	}
	metered, err := icebergtest.OpenWarehouse(ctx, deploytest.CatalogName, d.Props())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = metered.Close() })
	mt, err := metered.LoadTable(ctx, "ns.wide")
	if err != nil {
		tb.Fatal(err)
	}
	fsys, err := mt.T.FS(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	ms, err := LiveFiles(ctx, fsys, mt.T.CurrentSnapshot(), nil)
	if err != nil || len(ms) != 1 || len(ms[0].Files) != 1 {
		tb.Fatalf("live files %v, %v", ms, err)
	}
	return mt, ms[0].Files[0]
}

// TestReader_BytesRead_s3: the bytes a Reader counts are the bytes the S3
// server delivered for the data file, measured by a proxy in front of it;
// every read of it is ranged, and reading one column of two fetches less
// than the file.
func TestReader_BytesRead_s3(t *testing.T) {
	d := deploytest.Must(t, deploytest.PostgresS3, deploytest.Options{Meter: true})
	tbl, f := mustS3Table(t, d, 20000)
	rd, err := NewReader(tbl.T, tbl.T.CurrentSnapshot().SnapshotID, []string{"id"}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	d.Meter.Take()
	var rows int64
	if err := rd.ReadFile(context.Background(), f, func(rec arrow.RecordBatch) error {
		rows += rec.NumRows()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var fetched int64
	var heads, gets int
	for _, r := range d.Meter.Take() {
		if r.Location() != f.Path {
			t.Errorf("read %s %s while reading the data file", r.Method, r.Location())
			continue
		}
		switch r.Method {
		case "HEAD":
			heads++
		case "GET":
			gets++
			fetched += r.Bytes
			if r.Range == "" {
				t.Errorf("a GET of the whole data file (%d bytes delivered)", r.Bytes)
			}
		}
	}
	if rows != 20000 || heads != 1 || gets == 0 {
		t.Fatalf("%d rows, %d HEAD, %d GET requests", rows, heads, gets)
	}
	if rd.BytesRead() != fetched || fetched >= f.Size {
		t.Fatalf("BytesRead %d, the server delivered %d bytes of the %d-byte file; want equal, and less than the file", rd.BytesRead(), fetched, f.Size)
	}
	t.Logf("read column id of %d rows: %d GETs, %d of %d bytes fetched", rows, gets, fetched, f.Size)
}

// TestRangedFile reads an S3 object through countingIO's ranged file:
// sequential reads, seeks and ranged reads return the object's bytes and
// are counted; a missing object is fs.ErrNotExist.
func TestRangedFile(t *testing.T) {
	ctx := context.Background()
	d := deploytest.Must(t, deploytest.PostgresS3, deploytest.Options{})
	tbl, f := mustS3Table(t, d, 2000)
	want, err := d.S3.ReadObject(ctx, f.Path)
	if err != nil {
		t.Fatal(err)
	}
	base, err := tbl.T.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	cio := &countingIO{IO: base, ctx: ctx, n: &n}
	file, err := cio.Open(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if _, ok := file.(*rangedFile); !ok {
		t.Fatalf("opened a %T, want the ranged file", file)
	}
	if st, err := file.Stat(); err != nil || st.Size() != int64(len(want)) {
		t.Fatalf("stat: %v %v, want size %d", st, err, len(want))
	}
	all, err := io.ReadAll(file)
	if err != nil || !bytes.Equal(all, want) {
		t.Fatalf("read all: %d bytes, %v", len(all), err)
	}
	if _, err := file.Seek(10, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 5)
	if _, err := io.ReadFull(file, p); err != nil || !bytes.Equal(p, want[10:15]) {
		t.Fatalf("after seek: %q, %v", p, err)
	}
	end, _ := file.Seek(-3, io.SeekEnd)
	q := make([]byte, 10)
	if k, err := file.ReadAt(q, end); k != 3 || err != io.EOF || !bytes.Equal(q[:3], want[len(want)-3:]) {
		t.Fatalf("ReadAt past the end: %d, %v", k, err)
	}
	if k, err := file.ReadAt(q, int64(len(want))); k != 0 || err != io.EOF {
		t.Fatalf("ReadAt at the end: %d, %v", k, err)
	}
	if got := n.Load(); got != int64(len(want))+5+3 {
		t.Fatalf("counted %d bytes, want %d", got, len(want)+8)
	}
	missing := strings.Replace(f.Path, ".parquet", "-gone.parquet", 1)
	if _, err := cio.Open(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("open a missing object: %v", err)
	}
	// A store that is down is not a missing object, even where gocloud's
	// S3 driver guesses "not found" (the port has 301 in it).
	props := d.Props()
	props["s3.endpoint"] = s3test.RefusedEndpoint(t)
	down, err := iceio.LoadFS(ctx, props, f.Path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&countingIO{IO: down, ctx: ctx, n: &n}).Open(f.Path)
	if !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), f.Path) {
		t.Fatalf("open an object of a store that is down: %v; want connection refused, not fs.ErrNotExist", err)
	}
	// So is the manifest list LiveFiles reads through it.
	_, err = LiveFiles(ctx, down, tbl.T.CurrentSnapshot(), nil)
	if !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "read manifest list "+tbl.T.CurrentSnapshot().ManifestList) {
		t.Fatalf("live files of a store that is down: %v; want connection refused, not fs.ErrNotExist", err)
	}
}

func TestObjectKey(t *testing.T) {
	tests := []struct {
		in, key string
		ok      bool
	}{
		{"s3://lake/wh/ns.db/t/data/f.parquet", "wh/ns.db/t/data/f.parquet", true},
		{"s3a://lake/k", "k", true},
		{"gs://bucket/k", "k", true},
		{"s3://lake/", "", false},
		{"abfs://container@account.dfs.core.windows.net/k", "", false},
		{"file:///tmp/f.parquet", "", false},
		{"/tmp/f.parquet", "", false},
	}
	for _, tt := range tests {
		if key, ok := objectKey(tt.in); key != tt.key || ok != tt.ok {
			t.Errorf("objectKey(%q) = %q, %v; want %q, %v", tt.in, key, ok, tt.key, tt.ok)
		}
	}
}
