package cli

import (
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// StartCPUProfile profiles the process into path until stop is called:
// the --cpuprofile flags of the commands.
func StartCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

// heapSampleEvery is how often WatchHeap reads the heap in use.
const heapSampleEvery = 20 * time.Millisecond

// WatchHeap samples the heap in use until the returned function is
// called, which returns the peak in MiB. With a profile path it writes a
// heap profile (`go tool pprof`) there whenever the peak grows by a tenth,
// so that the file left holds the allocations live near the peak: the
// --memprofile flags of the commands.
func WatchHeap(profile string) (peak func() float64) {
	var mu sync.Mutex
	var top, profiled uint64 // the peak, and the heap in use at the last profile
	stop := make(chan struct{})
	done := make(chan struct{})
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		top = max(top, ms.HeapInuse)
		grew := ms.HeapInuse > profiled+profiled/10
		if grew {
			profiled = ms.HeapInuse
		}
		mu.Unlock()
		if grew && profile != "" {
			writeHeapProfile(profile)
		}
	}
	go func() {
		defer close(done)
		t := time.NewTicker(heapSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() float64 {
		close(stop)
		<-done
		sample()
		mu.Lock()
		defer mu.Unlock()
		return float64(top) / (1 << 20)
	}
}

// writeHeapProfile writes the heap profile to path; a profile that cannot
// be written is no reason to stop what is being profiled.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	_ = pprof.WriteHeapProfile(f)
	_ = f.Close()
}
