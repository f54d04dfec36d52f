package index

import (
	"runtime"
	"sync"
)

// Finish returns the snapshot at the given store version. The builder
// must not be used afterwards.
func (b *Builder) Finish(version uint64) *Snapshot {
	s := b.s
	s.version = version
	// The keys and values first: the orders read them.
	s.keys.freeze()
	for _, pi := range s.properties {
		if pi.column != nil {
			pi.column.freeze()
		}
	}
	// The key order while the structures that need no rank are made, then
	// the property orders, which sort by rank (build_order.go).
	var rank []uint32
	bufs := make(pairBuffers, runtime.GOMAXPROCS(0))
	jobs := []func(){func() { s.keyOrder, rank = s.buildKeyOrder(bufs) }}
	var orders []func()
	for i, pi := range s.properties {
		pb := b.properties[i]
		_, sorted, _ := structures(pi.property)
		if sorted {
			orders = append(orders, func() { pi.order = s.buildPropertyOrder(pi, rank, bufs) })
		}
		jobs = append(jobs, func() {
			if pb.dict != nil {
				pi.dict = pb.dict.finish()
			}
			if pb.list != nil {
				pi.listColumn = pb.list.finish()
			}
			if pb.terms != nil {
				pi.text = pb.terms.finish()
			}
			if isGeo(pi.property) {
				pi.geo = buildGeo(pi, s.alive)
			}
			if pb.vectors != nil {
				// Dimensions were checked as the rows were read.
				pi.vectors, _ = pi.vectors.Apply(pb.vectors)
				pb.vectors = nil
			}
			pi.nulls.RunOptimize()
		})
	}
	runParallel(jobs)
	runParallel(orders)
	s.alive.RunOptimize()
	s.counted.Store(0) // a count taken while documents were added is stale
	b.s = nil
	return s
}

// runParallel runs jobs on up to GOMAXPROCS goroutines and waits for them.
func runParallel(jobs []func()) {
	work := make(chan func())
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for job := range work {
				job()
			}
		})
	}
	for _, job := range jobs {
		work <- job
	}
	close(work)
	wg.Wait()
}
