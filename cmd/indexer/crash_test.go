package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// indexerProcess starts the test binary as `indexer args...`.
func indexerProcess(tb testing.TB, args ...string) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "INDEXER_TEST_MAIN=1")
	return cmd
}

// TestBuild_killed kills real `indexer build` processes at random moments
// and checks, after each restart, that the store holds exactly the rows of
// its checkpoint snapshot (invariant 1) and that the search index a start
// loads (its file, caught up with the documents changed since) equals the
// one rebuilt from the store.
func TestBuild_killed(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 30 processes; run without -short")
	}
	ctx := context.Background()
	dir := t.TempDir()
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "n", Type: iceberg.PrimitiveTypes.Int64})
	tbl, err := w.CreateTable(ctx, "ns.items", sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := func(from, n int, tag string) []icebergtest.Row {
		out := make([]icebergtest.Row, n)
		for i := range out {
			out[i] = icebergtest.Row{"id": from + i, "name": fmt.Sprintf("%s-%d", tag, from+i), "n": from + i}
		}
		return out
	}
	const files, perFile = 12, 1500
	for i := range files {
		if err := tbl.Append(ctx, rows(i*perFile, perFile, "v0")); err != nil {
			t.Fatal(err)
		}
	}
	cfgPath := filepath.Join(dir, "ontology.yaml")
	cfgText := `dataDir: ./data
catalogs:
  warehouse: {type: hadoop, warehouse: ./warehouse}
build: {chunkRows: 700, batchRows: 500}
objectTypes:
  - apiName: Item
    table: warehouse.ns.items
`
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	build := func(args ...string) (time.Duration, error) {
		start := time.Now()
		out, err := indexerProcess(t, append([]string{"build", "--config", cfgPath}, args...)...).CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("indexer build: %v\n%s", err, out)
		}
		return time.Since(start), nil
	}
	check := func(round int) {
		t.Helper()
		ix, err := indexer.Open(ctx, cfg, indexer.Options{})
		if err != nil {
			t.Fatalf("round %d: open: %v", round, err)
		}
		defer ix.Close()
		if err := indexertest.Match(ix, "Item", tbl); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	fullTime, err := build()
	if err != nil {
		t.Fatal(err)
	}
	check(0)

	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	kills, landed := 0, 0
	for round := 1; kills < 30; round++ {
		// Change the table: a COW update, a COW delete or an append.
		next := files*perFile + round*10
		switch rng.IntN(3) {
		case 0:
			lo := int64(rng.IntN(files * perFile))
			err = tbl.Overwrite(ctx, iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), lo), iceberg.LessThan(iceberg.Reference("id"), lo+5)),
				rows(int(lo), 5, fmt.Sprintf("v%d", round)))
		case 1:
			lo := int64(rng.IntN(files * perFile))
			err = tbl.Delete(ctx, iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), lo), iceberg.LessThan(iceberg.Reference("id"), lo+3)))
		default:
			err = tbl.Append(ctx, rows(next, 10, "new"))
		}
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"build", "--config", cfgPath}
		if rng.IntN(3) == 0 {
			args = append(args, "--full") // kill inside full builds and generation swaps too
		}
		cmd := indexerProcess(t, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int64N(int64(fullTime) + 1))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done: // finished before the kill
		case <-time.After(delay):
			_ = cmd.Process.Kill()
			if err := <-done; err != nil {
				landed++
			}
			kills++
			// Right after the kill: the index a restart loads (its file and
			// the documents changed since) must be the one the store makes.
			check(round)
		}
		if _, err := build(); err != nil {
			t.Fatalf("round %d: restart after kill: %v", round, err)
		}
		check(round)
	}
	t.Logf("%d kills, %d landed while the build was running", kills, landed)
	if landed < 20 {
		t.Errorf("only %d kills landed during a build; want at least 20", landed)
	}
}
