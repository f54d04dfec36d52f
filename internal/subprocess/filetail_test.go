package subprocess

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFileTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("first line\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		path  string
		limit int
		want  string
	}{
		{"whole file", path, 100, "first line\nsecond line"},
		{"last bytes", path, 12, "second line"},
		{"missing file", filepath.Join(t.TempDir(), "none"), 100, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := FileTail(tt.path, tt.limit); got != tt.want {
				t.Fatalf("FileTail = %q, want %q", got, tt.want)
			}
		})
	}
}
