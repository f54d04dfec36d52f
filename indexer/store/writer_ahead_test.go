package store

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
)

// aheadSender records what a writer sends ahead, and answers each cut
// with a channel the test fills.
type aheadSender struct {
	sent []string
	cuts []chan error
}

func (s *aheadSender) Send(key []byte, o *objects.Object) error {
	s.sent = append(s.sent, string(key))
	return nil
}

func (s *aheadSender) Cut() <-chan error {
	c := make(chan error, 1)
	s.cuts = append(s.cuts, c)
	return c
}

func TestWriter_SendAhead(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := OpenWriter(db, "T", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	full := &docs{changed: map[uint32]string{}}
	bs := &BuildState{Generation: 1, Target: 9}
	w.Full(full, 2, bs)
	s := &aheadSender{}
	w.SendAhead(s)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Begin(); err != nil {
		t.Fatal(err)
	}
	committed := func(label string, rows int64) {
		t.Helper()
		if _, got, err := db.Load("T", new(map[string]any)); err != nil || got == nil || got.PartialRows != rows {
			t.Fatalf("%s: committed build state %+v, %v; want %d rows of the partial file", label, got, err, rows)
		}
	}

	// a and b end the first chunk; c is held until it is acknowledged,
	// and sent at once.
	for i, k := range []string{"a", "b", "c"} {
		insert(t, w, changelog.Insert, k, "f1", int64(i), int64(i))
	}
	if len(s.cuts) != 1 || !reflect.DeepEqual(s.sent, []string{"a", "b", "c"}) {
		t.Fatalf("%d cuts, sent %v; want one cut, a b c sent", len(s.cuts), s.sent)
	}
	committed("chunk not acknowledged", 0)
	for _, tc := range []struct {
		key, file string
	}{
		{"a", "f1"}, // in the open transaction
		{"c", "f1"}, // held
		{"z", ""},
	} {
		if file, _, found, err := w.Lookup([]byte(tc.key)); err != nil || file != tc.file || found != (tc.file != "") {
			t.Fatalf("Lookup(%s) = %q, %v, %v; want %q", tc.key, file, found, err, tc.file)
		}
	}
	if err := w.FileDone(changelog.DataFile{Path: "f1", Size: 10, Records: 3}); err != nil {
		t.Fatal(err)
	}

	// Acknowledged: the next change commits the chunk, applies c and the
	// end of f1, then d of f2 ends the second chunk.
	s.cuts[0] <- nil
	insert(t, w, changelog.Insert, "d", "f2", 0, 3)
	committed("first chunk acknowledged", 2)
	if len(s.cuts) != 2 || bs.PartialFile != "f2" || bs.PartialRows != 1 {
		t.Fatalf("%d cuts, build state %+v; want the second chunk cut after d", len(s.cuts), bs)
	}
	if want := map[uint32]string{0: "a", 1: "b", 2: "c", 3: "d"}; !reflect.DeepEqual(full.changed, want) {
		t.Fatalf("documents %v, want %v", full.changed, want)
	}

	// A failed write of the second chunk: it never commits.
	failed := errors.New("refused")
	s.cuts[1] <- failed
	o := &objects.Object{Values: []any{int64(4)}}
	if err := w.Apply(&changelog.Change{Type: changelog.Insert, Key: []byte("e"), File: "f2", Row: 1, Object: o}); !errors.Is(err, failed) {
		t.Fatalf("apply after a failed chunk: %v, want its error", err)
	}
	w.Rollback()
	committed("second chunk failed", 2)
	if !reflect.DeepEqual(s.sent, []string{"a", "b", "c", "d"}) {
		t.Fatalf("sent %v, want a b c d", s.sent)
	}
}
