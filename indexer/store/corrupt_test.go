package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mustStore writes a store with checkpoints of many types (so that it has
// branch and leaf pages and a freelist) and returns its path and bytes.
func mustStore(tb testing.TB) (string, []byte) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "state.db")
	db, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range 400 {
		if err := db.PutCheckpoint(fmt.Sprintf("Type%03d", i), map[string]any{"snapshotId": i, "pad": strings.Repeat("x", 200)}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return path, raw
}

// pageFlags sets the flags of every page whose flags are from to to:
// bbolt's page header is id (8 bytes), flags (2), count (2), overflow (4).
func pageFlags(raw []byte, from, to uint16) []byte {
	out := bytes.Clone(raw)
	const pageSize = 4096
	for off := 2 * pageSize; off+16 <= len(out); off += pageSize {
		if binary.LittleEndian.Uint16(out[off+8:]) == from {
			binary.LittleEndian.PutUint16(out[off+8:], to)
		}
	}
	return out
}

const (
	leafPage     = 0x02
	freelistPage = 0x10
)

// TestOpen_damaged opens damaged stores: each is refused with a
// *CorruptError that names the file and says what to do, whether bbolt
// refuses it, panics on it or would fault on it, at its open or at the
// first read; a store that only lost one of its two meta pages opens. A
// refused store leaves no lock behind: the same file, repaired, opens in
// the same process.
func TestOpen_damaged(t *testing.T) {
	path, pristine := mustStore(t)
	for _, tt := range []struct {
		name     string
		damage   func([]byte) []byte
		atRead   bool // detected at the first read, not by Open
		survives bool
		want     string
	}{
		{name: "not a database", damage: func([]byte) []byte { return []byte("these are not the pages you are looking for\n") }, want: "invalid database"},
		{name: "both meta pages zeroed", damage: func(b []byte) []byte { return append(make([]byte, 8192), b[8192:]...) }, want: "invalid database"},
		{name: "one meta page zeroed", damage: func(b []byte) []byte { return append(make([]byte, 4096), b[4096:]...) }, survives: true},
		{name: "truncated", damage: func(b []byte) []byte { return b[:len(b)/2] }, want: "truncated"},
		{name: "freelist damaged", damage: func(b []byte) []byte { return pageFlags(b, freelistPage, 0x80) }, want: "reading it failed"},
		{name: "leaf pages damaged", damage: func(b []byte) []byte { return pageFlags(b, leafPage, 0x80) }, atRead: true, want: "reading it failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(path, tt.damage(pristine), 0o644); err != nil {
				t.Fatal(err)
			}
			db, err := Open(path)
			if err == nil {
				err = Guard(path, func() error {
					var cp map[string]any
					for i := range 400 {
						if found, _, err := db.Load(fmt.Sprintf("Type%03d", i), &cp); err != nil || !found {
							return fmt.Errorf("type %d: found %v, %w", i, found, err)
						}
					}
					return nil
				})
				if cerr := Guard(path, db.Close); cerr != nil {
					t.Fatal(cerr)
				}
				if !tt.atRead && !tt.survives {
					t.Fatalf("Open accepted it (reading: %v)", err)
				}
			}
			if tt.survives {
				if err != nil {
					t.Fatalf("not survived: %v", err)
				}
				return
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Path != path {
				t.Fatalf("err = %v, want a *CorruptError of %s", err, path)
			}
			for _, s := range []string{path, tt.want, "move that dir aside", "built in full from its table"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("message lacks %q: %v", s, err)
				}
			}
			// Repaired, it opens: nothing of the refused open holds the lock.
			if err := os.WriteFile(path, pristine, 0o644); err != nil {
				t.Fatal(err)
			}
			db, err = Open(path)
			if err != nil {
				t.Fatalf("the repaired store: %v", err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
