package geobench

import (
	"flag"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/cputime"
)

var benchRows = flag.Int("geobench.rows", 100_000, "rows of BenchmarkEngine")

// BenchmarkEngine measures the engine's side of the bench (100,000 rows unless -geobench.rows):
// each filter as a page of 100 and as a count. Besides ns/op it reports the
// process's CPU time per op (cpu-ns/op), which other work on a shared
// machine inflates less than the wall clock.
func BenchmarkEngine(b *testing.B) {
	s, err := build(Rows(1, *benchRows))
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range Queries() {
		b.Run(q.Name+"/page", func(b *testing.B) {
			start := cputime.Process(b)
			for b.Loop() {
				if _, err := enginePage(b.Context(), s, q.Filter); err != nil {
					b.Fatal(err)
				}
			}
			cputime.PerOp(b, start, cputime.Process)
		})
		b.Run(q.Name+"/count", func(b *testing.B) {
			start := cputime.Process(b)
			for b.Loop() {
				if _, err := engineCount(b.Context(), s, q.Filter); err != nil {
					b.Fatal(err)
				}
			}
			cputime.PerOp(b, start, cputime.Process)
		})
	}
}
