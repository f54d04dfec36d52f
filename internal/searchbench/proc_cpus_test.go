package searchbench

import (
	"context"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int // nil: an error
	}{
		{"0", []int{0}},
		{"1", []int{1}},
		{"0-1", []int{0, 1}},
		{"0-2,5", []int{0, 1, 2, 5}},
		{"3,1", []int{1, 3}},
		{"", nil},
		{"a", nil},
		{"2-1", nil},
		{"-1", nil},
		{"1-", nil},
		{"0,,1", nil},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseCPUList(tc.in)
			if tc.want == nil {
				if err == nil {
					t.Fatalf("%v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tc.want) {
				t.Errorf("%v, want %v", keys, tc.want)
			}
		})
	}
}

func TestCheckNodeCPUs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	self, err := allowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	// Those this process runs on are refused.
	if err := checkNodeCPUs("0-1023"); err == nil {
		t.Error("every processor: no error")
	}
	// One it does not run on is taken.
	free := 0
	for self[free] {
		free++
	}
	if err := checkNodeCPUs(strconv.Itoa(free)); err != nil {
		t.Errorf("processor %d, which this process does not run on: %v", free, err)
	}
}

// TestRun_openSearchCPUs: processors for the node that the bench runs on
// too, or that are no list, or without the OpenSearch side, are refused
// before anything is written or started.
func TestRun_openSearchCPUs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name       string
		openSearch bool
		cpus       string
		want       string
	}{
		{"shared with the bench", true, "0-1023", "runs on processor"},
		{"not a list", true, "one", "not a processor"},
		{"without the OpenSearch side", false, "5", "without the OpenSearch side"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), Options{Rows: 1000, Files: 1, Clients: 1, Duration: time.Second, Rounds: 1,
				ServeBin: "indexer-never-run", Dir: dir, OpenSearch: tc.openSearch, OpenSearchCPUs: tc.cpus})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want an error saying %q", err, tc.want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("%d entries written into the work directory, want none", len(ents))
			}
		})
	}
}
