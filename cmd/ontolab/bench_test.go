package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/s3test"
)

// TestBench_warehouse runs `ontolab bench --warehouse s3://...` against a
// real S3 server, at a size that checks that it works, not how fast: the
// report has the builds in S3 next to the local ones, and the run's
// objects are gone afterwards.
func TestBench_warehouse(t *testing.T) {
	s := s3test.Must(t, s3test.Options{})
	s.MustBucket(t, "lake")
	access, secret := s.Credentials()
	t.Setenv("AWS_S3_ENDPOINT", s.Endpoint())
	t.Setenv("AWS_REGION", s.Region())
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	code, out, errOut := run("bench", "--rows", "2000", "--files", "4", "--warehouse", "s3://lake/bench", "--json")
	if code != exitOK {
		t.Fatalf("bench exit %d: %s%s", code, out, errOut)
	}
	var rep benchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	w := rep.Warehouse
	if w == nil || !strings.HasPrefix(w.URL, "s3://lake/bench/bench-") || w.FullSeconds <= 0 || w.FullBytesRead <= 0 ||
		w.IncrementalFiles < 1 || w.IncrementalBytes <= 0 || w.IncrementalVsLocal <= 0 || w.FullVsLocal <= 0 {
		t.Fatalf("warehouse figures: %+v", w)
	}
	if left, err := s.List(context.Background(), "s3://lake/bench/"); err != nil || len(left) > 0 {
		t.Errorf("objects left after the bench: %v, %v", left, err)
	}
	code, out, _ = run("bench", "--rows", "100", "--files", "1", "--warehouse", "s3://lake/bench")
	if code != exitOK || !strings.Contains(out, "full build in s3://lake/bench/bench-") || !strings.Contains(out, "the local incremental time") {
		t.Errorf("bench text (exit %d):\n%s", code, out)
	}
	if code, _, errOut := run("bench", "--rows", "100", "--files", "1", "--warehouse", "lake/bench"); code != exitUsage || !strings.Contains(errOut, "s3://bucket/prefix") {
		t.Errorf("a warehouse that is not a URL: exit %d %s", code, errOut)
	}
}
