package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/tsctest"
)

// wantedErrors are the lines of the misuse files marked "// want error",
// by file.
func wantedErrors(tb testing.TB, dir string) map[string][]int {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "misuse", "*.ts"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no misuse files in %s: %v", dir, err)
	}
	want := map[string][]int{}
	for _, f := range files {
		rel := "misuse/" + filepath.Base(f)
		for i, l := range strings.Split(mustRead(tb, f), "\n") {
			if strings.HasSuffix(l, "// want error") {
				want[rel] = append(want[rel], i+1)
			}
		}
		if len(want[rel]) == 0 {
			tb.Fatalf("%s marks no line // want error", rel)
		}
	}
	return want
}

// TestRunOSDKTypes_tsc generates the definitions of the demo with its
// interfaces and type-checks an application that uses them with tsc
// --strict against @osdk/client 2.22.0 (testdata/osdkapp/app.ts: where,
// fetchOne, $as, $link, pivotTo, union, aggregate, narrowToType, interface
// links, asyncIterLinks): it must have no error, nor must the
// definitions. Each misuse (testdata/osdkapp/misuse) must fail on the
// lines it marks, and only there: a property a type or an interface
// lacks, a value of the wrong type, a link it does not have, a type that
// does not implement the interface, a property read as the wrong type.
func TestRunOSDKTypes_tsc(t *testing.T) {
	tsc := tsctest.Find(t)
	dir := t.TempDir()
	cfg := mustInterfaceWarehouse(t, dir, nil)
	app := filepath.Join(dir, "app")
	if err := os.CopyFS(app, os.DirFS("testdata/osdkapp")); err != nil {
		t.Fatal(err)
	}
	// An application's strict settings, unused names included.
	tsc.Project(t, app, `{"strict": true, "noUnusedLocals": true, "noUnusedParameters": true, "noEmit": true, "skipLibCheck": true,
		"target": "ES2022", "lib": ["ES2022", "DOM"], "module": "NodeNext", "moduleResolution": "NodeNext", "types": []}`,
		"app.ts", "generated/**/*.ts", "misuse/*.ts")
	if code, _, errOut := run("osdk-types", "--config", cfg, "--out", filepath.Join(app, "generated")); code != exitOK {
		t.Fatalf("osdk-types exit %d: %s", code, errOut)
	}
	want := wantedErrors(t, app)
	got := map[string][]int{}
	for _, e := range tsc.Check(t, app) {
		if !strings.HasPrefix(e.File, "misuse/") {
			t.Errorf("%s", e)
			continue
		}
		if !slices.Contains(want[e.File], e.Line) {
			t.Errorf("%s (an error on a line not marked // want error)", e)
		}
		got[e.File] = append(got[e.File], e.Line)
	}
	for file, lines := range want {
		for _, l := range lines {
			if !slices.Contains(got[file], l) {
				t.Errorf("%s:%d: tsc accepted a misuse", file, l)
			}
		}
	}
}
