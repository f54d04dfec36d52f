package config

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPackage_Deps keeps iceberg-go (and the arrow, parquet, gocloud, AWS
// and gRPC code behind it) out of this package and its tests: the fuzzing
// engine scans every coverage counter of the test binary after each
// execution, so FuzzParse runs as fast as the binary is small. Code that
// needs iceberg-go goes to package catalogs.
func TestPackage_Deps(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command lists this package's imports: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-test", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/apache/iceberg-go") {
			t.Errorf("package config (with its tests) imports %s", dep)
		}
	}
}
