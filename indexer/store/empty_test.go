package store

import (
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestDB_Empty: a store is empty until a type holds a checkpoint, a build
// in progress or a generation; an empty type bucket does not count.
func TestDB_Empty(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := func(what string, empty bool) {
		t.Helper()
		if got, err := db.Empty(); err != nil || got != empty {
			t.Fatalf("%s: Empty() = %v, %v; want %v", what, got, err, empty)
		}
	}
	want("a new store", true)
	if err := db.db.Update(func(tx *bolt.Tx) error { _, err := typeBucket(tx, "T", true); return err }); err != nil {
		t.Fatal(err)
	}
	want("an empty type bucket", true)
	if err := db.PutCheckpoint("T", map[string]int{"generation": 1}); err != nil {
		t.Fatal(err)
	}
	want("a checkpoint", false)
	if err := db.db.Update(func(tx *bolt.Tx) error {
		tb, err := typeBucket(tx, "T", false)
		if err != nil {
			return err
		}
		if err := tb.Delete(keyCheckpoint); err != nil {
			return err
		}
		_, err = tb.CreateBucket(genName(1))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want("a generation", false)
}
