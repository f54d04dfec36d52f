package changelog_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// customers creates a table of customers keyed by id in a temporary
// warehouse: Ada and Bob are added, Bob is renamed Bea, Ada is deleted.
func customers(ctx context.Context, dir string) (*icebergtest.Table, error) {
	w, err := icebergtest.NewWarehouse(dir)
	if err != nil {
		return nil, err
	}
	sc := iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String})
	t, err := w.CreateTable(ctx, "shop.customers", sc, nil)
	if err != nil {
		return nil, err
	}
	byID := func(id int64) iceberg.BooleanExpression { return iceberg.EqualTo(iceberg.Reference("id"), id) }
	if err := t.Append(ctx, []icebergtest.Row{{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}}); err != nil {
		return nil, err
	}
	if err := t.Overwrite(ctx, byID(2), []icebergtest.Row{{"id": 2, "name": "Bea"}}); err != nil {
		return nil, err
	}
	if err := t.Delete(ctx, byID(1)); err != nil {
		return nil, err
	}
	return t, nil
}

// printChanges prints the id, name, change type and ordinal of each row.
func printChanges(ctx context.Context, cl *changelog.Changelog) error {
	for rec, err := range cl.Records(ctx) {
		if err != nil {
			return err
		}
		n := rec.NumCols()
		for i := range int(rec.NumRows()) {
			fmt.Println(value(rec, 0, i), value(rec, 1, i), value(rec, int(n-3), i), value(rec, int(n-2), i))
		}
	}
	return nil
}

func value(rec arrow.RecordBatch, col, row int) string { return rec.Column(col).ValueStr(row) }

func ExampleReplay() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "changelog-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	t, err := customers(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}

	// The whole history, with update images by the table's identifier
	// field: the rewrite of Bob's file carries Ada over, which cancels.
	cl, err := changelog.Replay(ctx, t.T, changelog.Options{Updates: changelog.UpdatesOn})
	if err != nil {
		log.Fatal(err)
	}
	if err := printChanges(ctx, cl); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 1 Ada INSERT 0
	// 2 Bob INSERT 0
	// 2 Bob UPDATE_BEFORE 1
	// 2 Bea UPDATE_AFTER 1
	// 1 Ada DELETE 2
}

func ExampleReplay_latest() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "changelog-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	t, err := customers(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}

	// One change per customer since the first snapshot: applying them to
	// the first snapshot's rows gives the current ones.
	first := t.T.Metadata().Snapshots()[0].SnapshotID
	cl, err := changelog.Replay(ctx, t.T, changelog.Options{From: first, Latest: true})
	if err != nil {
		log.Fatal(err)
	}
	if err := printChanges(ctx, cl); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 2 Bea UPDATE_AFTER 0
	// 1 Ada DELETE 1
}
