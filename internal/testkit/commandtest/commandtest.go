package commandtest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// module is the import path the commands are built from.
const module = "github.com/ontoindex/ontoindex/cmd/"

// MustBuild builds the command cmd/name with `go build` into a directory
// the test removes and returns the binary's path. The go command's cache
// makes a build after the first mostly a link.
func MustBuild(tb testing.TB, name string) string {
	tb.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		tb.Fatalf("build %s: the go command: %v", name, err)
	}
	bin := filepath.Join(tb.TempDir(), name)
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command(goTool, "build", "-o", bin, module+name).CombinedOutput()
	if err != nil {
		tb.Fatalf("go build %s: %v\n%s", module+name, err, out)
	}
	return bin
}
