package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// TestBuild_killedMergeOnRead is TestBuild_killed for a type with
// mergeOnRead: index over a table written merge-on-read (deletion vectors
// on format v3, equality deletes, upserts): real `indexer build` processes
// killed at random moments converge, after each restart, to the rows of
// their checkpoint snapshot.
func TestBuild_killedMergeOnRead(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 processes; run without -short")
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
	tbl, err := w.CreateTable(ctx, "ns.items", sc, iceberg.Properties{"format-version": "3", cowguard.DeleteModeKey: cowguard.MergeOnRead})
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
    mergeOnRead: index
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

	rng := rand.New(rand.NewPCG(27, uint64(time.Now().UnixNano())))
	kills, landed := 0, 0
	for round := 1; kills < 20; round++ {
		// Change the table: a merge-on-read delete (a deletion vector), an
		// equality delete of keys, an upsert (equality delete and append)
		// or an append.
		lo := rng.IntN(files * perFile)
		switch rng.IntN(4) {
		case 0:
			err = tbl.Delete(ctx, iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(lo)), iceberg.LessThan(iceberg.Reference("id"), int64(lo+3))))
		case 1:
			err = tbl.EqualityDelete(ctx, []string{"id"}, []icebergtest.Row{{"id": lo}, {"id": lo + 7}})
		case 2:
			if err = tbl.EqualityDelete(ctx, []string{"id"}, []icebergtest.Row{{"id": lo}}); err == nil {
				err = tbl.Append(ctx, rows(lo, 1, fmt.Sprintf("v%d", round)))
			}
		default:
			err = tbl.Append(ctx, rows(files*perFile+round*10, 10, "new"))
		}
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"build", "--config", cfgPath}
		if rng.IntN(3) == 0 {
			args = append(args, "--full") // kill inside full builds of a merge-on-read snapshot too
		}
		cmd := indexerProcess(t, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int64N(int64(fullTime) + 1))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(delay):
			_ = cmd.Process.Kill()
			if err := <-done; err != nil {
				landed++
			}
			kills++
			check(round)
		}
		if _, err := build(); err != nil {
			t.Fatalf("round %d: restart after kill: %v", round, err)
		}
		check(round)
	}
	t.Logf("%d kills, %d landed while the build was running", kills, landed)
	if landed < 12 {
		t.Errorf("only %d kills landed during a build; want at least 12", landed)
	}
}
