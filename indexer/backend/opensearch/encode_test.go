package opensearch

import (
	"log/slog"
	"math/rand/v2"
	"testing"
)

// BenchmarkWriter_encode is the client's CPU per document before the
// cluster: the bulk lines of one upsert.
func BenchmarkWriter_encode(b *testing.B) {
	typ := flightType()
	c, err := New(Options{Name: "c", URLs: []string{"http://127.0.0.1:1"}}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	w := c.Writer(typ)
	r := rand.New(rand.NewPCG(1, 1))
	changes := make([]Change, 1000)
	for n := range changes {
		o := randomFlight(r, n)
		changes[n] = Change{Key: key(typ, o), Object: o}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := w.encode(changes[i%len(changes)], 7); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
