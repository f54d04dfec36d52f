package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestWatchHeap_peak checks that the peak counts memory held when it is
// read and that a heap profile was written (pprof's format is gzipped).
func TestWatchHeap_peak(t *testing.T) {
	for _, c := range []struct {
		name    string
		profile bool
	}{{"with a profile", true}, {"without", false}} {
		t.Run(c.name, func(t *testing.T) {
			path := ""
			if c.profile {
				path = filepath.Join(t.TempDir(), "heap.prof")
			}
			peak := WatchHeap(path)
			held := make([]byte, 64<<20)
			for i := range held {
				held[i] = byte(i)
			}
			got := peak()
			runtime.KeepAlive(held)
			if got < 64 {
				t.Errorf("peak %.1f MiB while 64 MiB were held", got)
			}
			if !c.profile {
				return
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
				t.Errorf("heap profile of %d bytes is not gzipped", len(b))
			}
		})
	}
}
