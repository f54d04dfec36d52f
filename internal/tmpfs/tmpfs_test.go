package tmpfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ontoindex/ontoindex/internal/tmpfs"
)

// TestFS_Fill mounts a tmpfs, fills it to what it leaves free and drains
// it: the space a ballast takes comes back.
func TestFS_Fill(t *testing.T) {
	if err := tmpfs.Supported(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI runs as root on Linux)", err)
		}
		t.Skip(err)
	}
	fs, err := tmpfs.Mount(t.TempDir(), 8<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := fs.Unmount(); err != nil {
			t.Error(err)
		}
	}()
	free := func() int64 {
		t.Helper()
		n, err := fs.Free()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	empty := free()
	for _, leave := range []int64{1 << 20, 0} {
		if err := fs.Fill(leave); err != nil {
			t.Fatal(err)
		}
		if got := free(); got > leave || got < leave-64<<10 {
			t.Errorf("Fill(%d) left %d bytes free", leave, got)
		}
	}
	if err := os.WriteFile(filepath.Join(fs.Dir(), "more"), make([]byte, 4096), 0o644); err == nil {
		t.Error("a write on the full tmpfs succeeded")
	}
	if err := fs.Drain(); err != nil {
		t.Fatal(err)
	}
	if got := free(); got < empty-64<<10 {
		t.Errorf("after Drain %d bytes free, %d before Fill", got, empty)
	}
}
