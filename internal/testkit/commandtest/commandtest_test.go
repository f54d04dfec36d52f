package commandtest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMustBuild builds the indexer and runs it: the binary is the
// command of this source, not one found elsewhere.
func TestMustBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("links the indexer binary; run without -short")
	}
	bin := MustBuild(t, "indexer")
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "indexer ") {
		t.Fatalf("%s version: %q, %v", bin, out, err)
	}
}
