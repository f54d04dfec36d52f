package demo

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer/config"
)

func mustOpen(tb testing.TB, dir string, opts Options) (*Demo, []TableInfo) {
	tb.Helper()
	d, infos, err := Open(context.Background(), dir, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return d, infos
}

func mustTable(tb testing.TB, d *Demo, ident string) *table.Table {
	tb.Helper()
	tbl, err := d.LoadTable(context.Background(), ident)
	if err != nil {
		tb.Fatal(err)
	}
	return tbl
}

// TestOpen generates the full-size demo, checks its shape and that a
// second Open reuses it.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	d, infos := mustOpen(t, dir, Options{})
	tests := []struct {
		objectType, table string
		rows              int64
		minFiles          int
	}{
		{Customer, "demo.sales.customers", 120_000, 20},
		{OrderLine, "demo.sales.order_lines", 44_807, 8},
		{Aircraft, "demo.fleet.aircraft", 600, 1},
	}
	if len(infos) != len(tests) {
		t.Fatalf("tables %+v", infos)
	}
	for i, tt := range tests {
		got := infos[i]
		if got.ObjectType != tt.objectType || got.Table != tt.table || got.Rows != tt.rows || got.DataFiles < tt.minFiles || !got.Created {
			t.Errorf("table %d = %+v, want %s %s with %d rows in at least %d files", i, got, tt.objectType, tt.table, tt.rows, tt.minFiles)
		}
	}

	t.Run("write modes", func(t *testing.T) {
		for ident, mor := range map[string]bool{CustomersTable: false, OrderLinesTable: false, AircraftTable: true} {
			modes := cowguard.WriteModes(mustTable(t, d, ident).Properties())
			if modes.AnyMergeOnRead() != mor {
				t.Errorf("%s: modes %s", ident, modes)
			}
		}
	})
	t.Run("config", func(t *testing.T) {
		cfg, err := config.Load(d.ConfigPath)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range cfg.ObjectTypes {
			names = append(names, s.APIName)
		}
		if !slices.Equal(names, []string{Customer, OrderLine, Aircraft}) {
			t.Fatalf("object types %v", names)
		}
		if spec, _ := cfg.TypeSpec(OrderLine); !slices.Equal(spec.PrimaryKey, []string{"order_id", "line_no"}) {
			t.Fatalf("OrderLine key %v", spec.PrimaryKey)
		}
		if got, want := cfg.Path(cfg.DataDir), filepath.Join(d.Dir, IndexDir); got != want {
			t.Fatalf("dataDir %s, want %s", got, want)
		}
	})
	t.Run("reused", func(t *testing.T) {
		// An edited config is kept.
		if err := os.WriteFile(d.ConfigPath, []byte(Config+"# edited\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		before := mustTable(t, d, CustomersTable).CurrentSnapshot().SnapshotID
		d2, infos2 := mustOpen(t, dir, Options{Customers: 5, Seed: 9})
		if d2.opts.Customers != 120_000 || d2.opts.Seed != 1 {
			t.Errorf("second open uses options %+v, not those of the first", d2.opts)
		}
		for i, info := range infos2 {
			if info.Created || info.Rows != infos[i].Rows {
				t.Errorf("second open: %+v", info)
			}
		}
		if after := mustTable(t, d2, CustomersTable).CurrentSnapshot().SnapshotID; after != before {
			t.Errorf("customers snapshot %d -> %d", before, after)
		}
		raw, err := os.ReadFile(d2.ConfigPath)
		if err != nil || string(raw) != Config+"# edited\n" {
			t.Errorf("config was rewritten: %v", err)
		}
	})
}

// TestOpen_Deterministic: the same seed gives the same rows, another seed
// other rows.
func TestOpen_Deterministic(t *testing.T) {
	ctx := context.Background()
	opts := Options{Customers: 500, Orders: 100, Aircraft: 50}
	read := func(seed uint64) [][]string {
		o := opts
		o.Seed = seed
		d, _ := mustOpen(t, t.TempDir(), o)
		var rows [][]string
		for _, ident := range []string{CustomersTable, OrderLinesTable, AircraftTable} {
			tbl := mustTable(t, d, ident)
			cols := []string{"customer_id", "name", "email", "city"}
			switch ident {
			case OrderLinesTable:
				cols = []string{"order_id", "line_no", "product", "status"}
			case AircraftTable:
				cols = []string{"tail_number", "model", "base_airport"}
			}
			err := scanColumns(ctx, tbl, nil, cols, func(c []arrow.Array, i int) {
				row := []string{ident}
				for _, a := range c {
					row = append(row, a.ValueStr(i))
				}
				rows = append(rows, row)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		slices.SortFunc(rows, slices.Compare)
		return rows
	}
	a, b, c := read(7), read(7), read(8)
	if len(a) < 500+100+50 {
		t.Fatalf("%d rows", len(a))
	}
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Error("the same seed generated different rows")
	}
	if slices.EqualFunc(a, c, slices.Equal) {
		t.Error("another seed generated the same rows")
	}
}

func TestTailNumber(t *testing.T) {
	seen := map[string]bool{}
	for n := range int64(900 * 26 * 26) {
		s := tailNumber(n)
		if seen[s] {
			t.Fatalf("tail number %s repeats at %d", s, n)
		}
		seen[s] = true
	}
}

// TestWriter makes every kind of change and checks the tables.
func TestWriter(t *testing.T) {
	ctx := context.Background()
	d, _ := mustOpen(t, t.TempDir(), Options{Customers: 20_000, Orders: 2_000, Aircraft: 40})
	w := d.Writer()

	t.Run("update customer", func(t *testing.T) {
		before := mustTable(t, d, CustomersTable)
		c, err := w.UpdateCustomer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after := mustTable(t, d, CustomersTable)
		id, _ := strconv.ParseInt(c.Key, 10, 64)
		rows, err := readStrings(ctx, after, iceberg.EqualTo(iceberg.Reference("customer_id"), id), "city", "name")
		if err != nil {
			t.Fatal(err)
		}
		want := genCustomer(d.opts.Seed, id)
		if c.Kind != KindUpdate || c.FilesRemoved != 1 || c.SnapshotID != after.CurrentSnapshot().SnapshotID || len(rows) != 1 ||
			rows[0][1] != want.Name || c.Detail != "city "+want.City+" -> "+rows[0][0] {
			t.Fatalf("change %+v, row %v (generated %+v)", c, rows, want)
		}
		if n, m := total(t, before), total(t, after); n != m {
			t.Fatalf("rows %d -> %d", n, m)
		}
	})
	t.Run("insert order", func(t *testing.T) {
		before := total(t, mustTable(t, d, OrderLinesTable))
		c, err := w.InsertOrder(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after := total(t, mustTable(t, d, OrderLinesTable))
		if c.Kind != KindInsert || c.Key != "2001,1" || after <= before || after > before+5 || c.FilesRemoved != 0 {
			t.Fatalf("change %+v, rows %d -> %d", c, before, after)
		}
	})
	t.Run("delete order line", func(t *testing.T) {
		before := total(t, mustTable(t, d, OrderLinesTable))
		c, err := w.DeleteOrderLine(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tbl := mustTable(t, d, OrderLinesTable)
		keys, err := readInts(ctx, tbl, nil, "order_id", "line_no")
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if strconv.FormatInt(k[0], 10)+","+strconv.FormatInt(k[1], 10) == c.Key {
				t.Fatalf("deleted line %s is still there", c.Key)
			}
		}
		if c.Kind != KindDelete || int64(len(keys)) != before-1 || c.DeleteFiles != 0 {
			t.Fatalf("change %+v, rows %d -> %d", c, before, len(keys))
		}
	})
	t.Run("merge-on-read delete and compaction", func(t *testing.T) {
		c, err := w.RetireAircraft(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if dirty, err := w.AircraftHasDeletes(ctx); err != nil || !dirty || c.Kind != KindMORDelete || c.DeleteFiles != 1 {
			t.Fatalf("change %+v, has deletes %v, %v", c, dirty, err)
		}
		c, err = w.CompactAircraft(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if dirty, err := w.AircraftHasDeletes(ctx); err != nil || dirty || c.Kind != KindCompaction {
			t.Fatalf("change %+v, has deletes %v, %v", c, dirty, err)
		}
		if n := total(t, mustTable(t, d, AircraftTable)); n != 39 {
			t.Fatalf("aircraft rows %d", n)
		}
	})
	t.Run("steps", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for range 10 {
			if _, err := w.Step(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func total(tb testing.TB, tbl *table.Table) int64 {
	tb.Helper()
	n, err := strconv.ParseInt(tbl.CurrentSnapshot().Summary.Properties["total-records"], 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	// Position deletes are not subtracted from total-records; count them.
	pos, _ := strconv.ParseInt(tbl.CurrentSnapshot().Summary.Properties["total-position-deletes"], 10, 64)
	return n - pos
}

func TestConfigText(t *testing.T) {
	if got := ConfigText(HadoopCatalog()); got != Config {
		t.Fatalf("ConfigText(HadoopCatalog()) differs from Config:\n%s", got)
	}
	cc, err := SQLCatalog("/tmp/d", "", "s3://lake/demo")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(ConfigText(cc)), "/tmp/d")
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Catalogs[CatalogName].Properties; p["sql.driver"] != "sqliteshim" || p["warehouse"] != "s3://lake/demo" || !strings.HasPrefix(p["uri"], "file:/tmp/d/catalog.db") {
		t.Fatalf("catalog %v", p)
	}
	for _, bad := range [][2]string{{"mysql://x", ""}, {"", "/no/scheme"}} {
		if _, err := SQLCatalog("/tmp/d", bad[0], bad[1]); err == nil {
			t.Errorf("SQLCatalog(%q, %q) accepted", bad[0], bad[1])
		}
	}
}
