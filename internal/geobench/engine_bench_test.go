package geobench

import (
	"flag"
	"testing"
)

var benchRows = flag.Int("geobench.rows", 100_000, "rows of BenchmarkEngine")

// BenchmarkEngine measures the engine's side of the bench (100,000 rows unless -geobench.rows):
// each filter as a page of 100 and as a count.
func BenchmarkEngine(b *testing.B) {
	s, err := build(Rows(1, *benchRows))
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range Queries() {
		b.Run(q.Name+"/page", func(b *testing.B) {
			for b.Loop() {
				if _, err := enginePage(b.Context(), s, q.Filter); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.Name+"/count", func(b *testing.B) {
			for b.Loop() {
				if _, err := engineCount(b.Context(), s, q.Filter); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
