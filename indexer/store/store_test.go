package store

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
)

func TestRecord(t *testing.T) {
	r := record{fileID: 7, doc: 1<<32 - 1, hash: 0xdeadbeef, encoded: []byte("obj")}
	v := r.append(nil)
	got, err := (&Gen{layout: Layout}).record(v)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("record(%x) = %+v, %v; want %+v", v, got, err, r)
	}
	// Layout 2 has no document: the value is file id | hash | encoding.
	old := []byte{7, 0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 'o'}
	if got, err := (&Gen{layout: 2}).record(old); err != nil || got.fileID != 7 || got.doc != 0 || got.hash != 0xdeadbeef || string(got.encoded) != "o" {
		t.Fatalf("layout 2 record = %+v, %v", got, err)
	}
	if _, err := (&Gen{layout: Layout}).record(v[:4]); err != objects.ErrCorrupt {
		t.Fatalf("short record: %v, want ErrCorrupt", err)
	}
	f := fileRecord{ID: 3, Size: 1 << 40, Records: 12}
	if got, err := decodeFileRecord(f.encode()); err != nil || got != f {
		t.Fatalf("file record = %+v, %v; want %+v", got, err, f)
	}
}

// docs records what a writer hands the index.
type docs struct {
	next    uint32
	changed map[uint32]string // document -> key; "-key" when freed
}

func (d *docs) New() uint32 { d.next++; return d.next - 1 }

func (d *docs) Changed(doc uint32, key []byte, o *objects.Object) error {
	if o == nil {
		key = append([]byte("-"), key...) // a freed document keeps its key
	}
	d.changed[doc] = string(key)
	return nil
}

func insert(t *testing.T, w *Writer, typ changelog.ChangeType, key, file string, row int64, val int64) {
	t.Helper()
	o := &objects.Object{Values: []any{val}}
	enc, err := o.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Apply(&changelog.Change{Type: typ, Key: []byte(key), File: file, Row: row, Hash: uint64(val), Encoded: enc, Object: o}); err != nil {
		t.Fatal(err)
	}
}

func TestWriter(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	// A full build in chunks of two rows, then the switch.
	w, err := OpenWriter(db, "T", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	full := &docs{changed: map[uint32]string{}}
	bs := &BuildState{Generation: 1, Target: 9}
	w.Full(full, 2, bs)
	for i, k := range []string{"b", "a", "c"} {
		insert(t, w, changelog.Insert, k, "f1", int64(i), int64(i))
	}
	if bs.PartialFile != "f1" || bs.PartialRows != 2 {
		t.Fatalf("build state after a chunk: %+v", bs)
	}
	if _, got, err := db.Load("T", new(map[string]any)); err != nil || got == nil || got.PartialRows != 2 {
		t.Fatalf("committed build state = %+v, %v", got, err)
	}
	if err := w.FileDone(changelog.DataFile{Path: "f1", Size: 10, Records: 3}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetManifests([]changelog.Manifest{{Path: "m1", Files: []changelog.DataFile{{Path: "f1"}}}}); err != nil {
		t.Fatal(err)
	}
	w.Finish(1)
	if err := w.Commit(func() error { return w.PutCheckpoint(map[string]int{"objects": int(w.Count())}) }); err != nil {
		t.Fatal(err)
	}
	var cp map[string]int
	if found, bs, err := db.Load("T", &cp); err != nil || !found || bs != nil || cp["objects"] != 3 {
		t.Fatalf("after the switch: checkpoint %v (%v), build %+v, %v", cp, found, bs, err)
	}

	// An incremental build: one update, one delete, one insert.
	w, err = OpenWriter(db, "T", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if fs, ok, err := w.KnownManifest("m1"); err != nil || !ok || len(fs) != 1 || fs[0] != (changelog.DataFile{Path: "f1", Size: 10, Records: 3}) {
		t.Fatalf("known manifest = %+v, %v, %v", fs, ok, err)
	}
	inc := &docs{next: full.next, changed: map[uint32]string{}}
	w.Incremental(inc, 2)
	insert(t, w, changelog.UpdateAfter, "a", "f2", 0, 10)
	if err := w.Apply(&changelog.Change{Type: changelog.Delete, Key: []byte("b")}); err != nil {
		t.Fatal(err)
	}
	insert(t, w, changelog.Insert, "d", "f2", 1, 11)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	want := map[uint32]string{1: "a", 0: "-b", 3: "d"}
	if !reflect.DeepEqual(inc.changed, want) {
		t.Fatalf("incremental changes = %v, want %v", inc.changed, want)
	}

	err = db.ViewGen("T", 1, func(g *Gen) error {
		if g.Version() != 2 || g.Count() != 3 || !g.HasDirty() {
			t.Fatalf("generation: version %d, count %d, dirty %v", g.Version(), g.Count(), g.HasDirty())
		}
		got := map[uint32]string{}
		n, err := g.Dirty(ctx, 1, func(doc uint32, key []byte, o *objects.Object) error {
			got[doc] = string(key)
			return nil
		})
		// A freed document's entry holds no key.
		if wantDirty := (map[uint32]string{1: "a", 0: "", 3: "d"}); n != 3 || !reflect.DeepEqual(got, wantDirty) {
			t.Fatalf("dirty = %v (%d)", got, n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ClearDirty("T", 1, 2); err != nil {
		t.Fatal(err)
	}
	err = db.ViewGen("T", 1, func(g *Gen) error {
		n, err := g.Dirty(ctx, 0, func(uint32, []byte, *objects.Object) error { return nil })
		if n != 0 {
			t.Fatalf("%d dirty documents after an index file at version 2", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	r, err := db.Read("T", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if o, err := r.Object([]byte("a")); err != nil || o == nil || o.Values[0] != int64(10) {
		t.Fatalf("object a = %v, %v", o, err)
	}
	var keys []string
	next, err := r.EachDoc(ctx, func(doc uint32, key []byte, o *objects.Object) error {
		keys = append(keys, string(key))
		return nil
	})
	if err != nil || next != 4 || !reflect.DeepEqual(keys, []string{"a", "c", "d"}) {
		t.Fatalf("documents %v up to %d, %v", keys, next, err)
	}
	if n, _, err := r.NextDoc(ctx); err != nil || n != uint64(next) {
		t.Fatalf("NextDoc = %d, %v; EachDoc's %d", n, err, next)
	}
	if gens, err := db.Generations("T"); err != nil || !reflect.DeepEqual(gens, []int{1}) {
		t.Fatalf("generations = %v, %v", gens, err)
	}
	r.Close()

	// Unmarked: an incremental build of a generation without an index
	// file hands its changes over and marks none dirty.
	w, err = OpenWriter(db, "T", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	lean := &docs{next: next, changed: map[uint32]string{}}
	w.Incremental(lean, 3)
	w.Unmarked()
	insert(t, w, changelog.UpdateAfter, "c", "f2", 2, 12)
	if err := w.Apply(&changelog.Change{Type: changelog.Delete, Key: []byte("a")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	if want := map[uint32]string{1: "-a", 2: "c"}; !reflect.DeepEqual(lean.changed, want) {
		t.Fatalf("unmarked changes = %v, want %v", lean.changed, want)
	}
	err = db.ViewGen("T", 1, func(g *Gen) error {
		n, err := g.Dirty(ctx, 0, func(uint32, []byte, *objects.Object) error { return nil })
		if n != 0 || g.Version() != 3 {
			t.Fatalf("%d dirty documents after an unmarked build (version %d)", n, g.Version())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
