package changelog_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/changelog"
)

// printView prints every row of a view, one line of values each, sorted
// (the order of rows within a snapshot follows data file names, which are
// random), without the commit snapshot ids, which are random too.
func printView(ctx context.Context, v *changelog.TableView) error {
	var lines []string
	for rec, err := range v.Records(ctx) {
		if err != nil {
			return err
		}
		for i := range int(rec.NumRows()) {
			var vals []string
			for j := range int(rec.NumCols()) {
				if rec.ColumnName(j) == changelog.CommitSnapshotColumn {
					continue
				}
				vals = append(vals, value(rec, j, i))
			}
			lines = append(lines, strings.Join(vals, " "))
		}
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	return nil
}

// exampleView builds the customers table (Ada and Bob added, Bob renamed
// Bea, Ada deleted) and prints one view of it since its first snapshot.
func exampleView(mode changelog.ViewMode, ids ...string) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "view-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	t, err := customers(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	first := t.T.Metadata().Snapshots()[0].SnapshotID
	v, err := changelog.View(ctx, t.T, changelog.ViewOptions{Mode: mode, From: first, Identifiers: ids})
	if err != nil {
		log.Fatal(err)
	}
	if err := printView(ctx, v); err != nil {
		log.Fatal(err)
	}
}

func ExampleView_current() {
	// The rows now: Ada is deleted, Bob was renamed.
	exampleView(changelog.ViewCurrent)
	// Output:
	// 2 Bea
}

func ExampleView_previous() {
	// The rows at the first snapshot, the start of the range.
	exampleView(changelog.ViewPrevious)
	// Output:
	// 1 Ada
	// 2 Bob
}

func ExampleView_added() {
	// The rows of the files the range added: renaming Bob rewrote the
	// file holding Ada and Bob into one with Ada alone (a copy-on-write
	// rewrite carries Ada over) and added Bea; deleting Ada removed that
	// file and added none.
	exampleView(changelog.ViewAdded)
	// Output:
	// 1 Ada
	// 2 Bea
}

func ExampleView_removed() {
	// The rows of the files the range removed: the first file, then the
	// rewritten one that held only Ada.
	exampleView(changelog.ViewRemoved)
	// Output:
	// 1 Ada
	// 1 Ada
	// 2 Bob
}

func ExampleView_modified() {
	// By the table's identifier field: Bob's row has new values; Ada is
	// gone, which is a removal, not a modification.
	exampleView(changelog.ViewModified)
	// Output:
	// 2 Bea
}

func ExampleView_changelog() {
	// With identifiers, the last change of each one; applied to the
	// previous view as upserts and deletes, they give the current view.
	exampleView(changelog.ViewChangelog, "id")
	// Output:
	// 1 Ada DELETE 1
	// 2 Bea UPDATE_AFTER 0
}

func ExampleView_changelogNet() {
	// Without identifiers, the net changes: rows not at the start that
	// are at the end, and the other way round.
	exampleView(changelog.ViewChangelog)
	// Output:
	// 1 Ada DELETE 1
	// 2 Bea INSERT 0
	// 2 Bob DELETE 0
}
