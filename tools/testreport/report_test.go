package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// mustSampleRun runs the real `go test -json` over the sample module of
// testdata (passing, skipping, failing, parallel, panicking, broken and
// test-less packages) and returns its stream.
func mustSampleRun(tb testing.TB) []byte {
	tb.Helper()
	cmd := exec.Command("go", "test", "-count=1", "-json", "./...")
	cmd.Dir = "testdata/sample"
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if _, failed := err.(*exec.ExitError); !failed { // the sample fails on purpose
		tb.Fatalf("go test -json over the sample: %v, want exit 1\n%s", err, stderr.String())
	}
	return out
}

func TestReport(t *testing.T) {
	stream := mustSampleRun(t)
	var out bytes.Buffer
	skips, err := report(bytes.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()

	t.Run("shows what a plain go test shows", func(t *testing.T) {
		for _, want := range []string{
			"ok  \texample.com/sample/skips\t",
			"?   \texample.com/sample/empty\t[no test files]\n",
			// A failing subtest, with its parent.
			"    fails_test.go:8: want 1, got 2\n--- FAIL: TestFail/bad (",
			"--- FAIL: TestFail (",
			"FAIL\texample.com/sample/fails\t",
			// A failing parallel test.
			"    parallel_test.go:7: B failed\n--- FAIL: TestB (",
			// A panic, with the test's log before it.
			"    crash_test.go:7: before the panic\n",
			"panic: boom",
			"FAIL\texample.com/sample/crash\t",
			// A package that does not compile.
			`broken/broken_test.go:6:45: cannot use "not a number"`,
			"FAIL\texample.com/sample/broken [build failed]\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
	})
	t.Run("leaves out what a plain go test leaves out", func(t *testing.T) {
		for _, unwanted := range []string{"=== RUN", "=== PAUSE", "=== CONT", "--- PASS", "\nPASS\n", "is not shown", "--- SKIP: TestNoPostgres"} {
			if strings.Contains(got, unwanted) {
				t.Errorf("output holds %q:\n%s", unwanted, got)
			}
		}
	})
	t.Run("lists the skipped tests by reason", func(t *testing.T) {
		want := `== skipped: 4 tests did not run (docs/development.md#what-the-tests-need):
no PostgreSQL: exec: "pg_ctl": executable file not found in $PATH
    skips: TestNoPostgres, TestNoPostgresEither
no S3 server: versitygw not found
    skips: TestCases/s3
(no reason given)
    skips: TestSilent
`
		if list := skips.String("example.com/sample"); list != want {
			t.Errorf("skipped list:\n%s\nwant:\n%s", list, want)
		}
		if list := skips.String(""); !strings.Contains(list, "    example.com/sample/skips: TestCases/s3\n") {
			t.Errorf("skipped list without a module:\n%s", list)
		}
	})
}

func TestReport_notJSON(t *testing.T) {
	in := "not json\n" + `{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}` + "\n"
	var out bytes.Buffer
	skips, err := report(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "not json\nok  \tp\t0.1s\n"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	if list := skips.String(""); list != "" {
		t.Errorf("skipped list %q, want none", list)
	}
}

func TestSkipReason(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"t.Skip", []string{"    x_test.go:12: no PostgreSQL: not found\n", "--- SKIP: TestX (0.00s)\n"}, "no PostgreSQL: not found"},
		{"the last logged line", []string{"    x_test.go:10: starting\n", "    x_test.go:12: no S3 server\n", "--- SKIP: TestX (0.00s)\n"}, "no S3 server"},
		{"a message of two lines", []string{"    x_test.go:12: no browser:\n", "        install chromium\n", "--- SKIP: TestX (0.00s)\n"}, "no browser: install chromium"},
		{"a subtest", []string{"        x_test.go:12: no tmpfs: not root\n", "    --- SKIP: TestX/a (0.00s)\n"}, "no tmpfs: not root"},
		{"SkipNow", []string{"--- SKIP: TestX (0.00s)\n"}, "(no reason given)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := skipReason(tt.lines); got != tt.want {
				t.Errorf("skipReason = %q, want %q", got, tt.want)
			}
		})
	}
}
