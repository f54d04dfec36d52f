package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestKeyRanges_absent checks the ranges against the set of added keys: a
// key they call absent was never added (random keys, ascending runs read
// in any order, more ranges than they keep), and on runs of keys read
// file after file in any order, no new key needs a search.
func TestKeyRanges_absent(t *testing.T) {
	key := func(i int) []byte { return fmt.Appendf(nil, "k%08d", i) }
	for _, tc := range []struct {
		name  string
		files int // runs of ascending keys, added in a random order
		rows  int
		mixed int // in 100: a random key instead of the run's next
	}{
		{"runs", 40, 500, 0},
		{"runs and random keys", 40, 500, 10},
		{"random keys", 1, 20000, 100},
		{"more runs than ranges", 3 * maxKeyRanges, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(tc.files)))
			var k keyRanges
			if r.IntN(2) == 0 {
				k.cover(nil, nil)
			}
			added := map[string]bool{}
			searched := 0
			for _, f := range r.Perm(tc.files) {
				k.endRun()
				for i := range tc.rows {
					next := key(f*tc.rows + i)
					if r.IntN(100) < tc.mixed {
						next = key(r.IntN(tc.files * tc.rows))
					}
					for range 3 { // probes, present or not
						p := key(r.IntN(tc.files*tc.rows + 10))
						if added[string(p)] && k.absent(p) {
							t.Fatalf("added key %s called absent", p)
						}
					}
					if !k.absent(next) {
						searched++
					}
					if added[string(next)] && k.absent(next) {
						t.Fatalf("added key %s called absent", next)
					}
					k.add(next)
					added[string(next)] = true
					if k.absent(next) {
						t.Fatalf("key %s called absent right after its add", next)
					}
				}
			}
			if len(k.ranges) > maxKeyRanges {
				t.Fatalf("%d ranges, more than %d", len(k.ranges), maxKeyRanges)
			}
			for i := 1; i < len(k.ranges); i++ {
				if string(k.ranges[i-1].hi) >= string(k.ranges[i].lo) {
					t.Fatalf("ranges %d and %d overlap or are out of order: %q..%q, %q..%q", i-1, i, k.ranges[i-1].lo, k.ranges[i-1].hi, k.ranges[i].lo, k.ranges[i].hi)
				}
			}
			if tc.mixed == 0 && tc.files <= maxKeyRanges && searched != 0 {
				t.Fatalf("%d of %d keys of ascending runs needed a search", searched, tc.files*tc.rows)
			}
			t.Logf("%d ranges; %d of %d adds needed a search", len(k.ranges), searched, tc.files*tc.rows)
		})
	}
}

// TestKeyRanges_cover: ranges started from a generation's keys cover them.
func TestKeyRanges_cover(t *testing.T) {
	var k keyRanges
	k.cover([]byte("b"), []byte("d"))
	for key, absent := range map[string]bool{"a": true, "b": false, "c": false, "d": false, "e": true} {
		if k.absent([]byte(key)) != absent {
			t.Errorf("absent(%q) = %v, want %v", key, !absent, absent)
		}
	}
	k.cover(nil, nil)
	if !k.absent([]byte("c")) {
		t.Error("ranges of no keys cover c")
	}
}
