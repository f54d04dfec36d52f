package main

import (
	"flag"

	"github.com/ontoindex/ontoindex/internal/cli"
)

// profiling is the --cpuprofile and --memprofile flags a long command
// takes (build, serve), for tuning and sizing it.
type profiling struct{ cpu, mem *string }

func profilingFlags(fs *flag.FlagSet) profiling {
	return profiling{
		cpu: fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file (for tuning)"),
		mem: fs.String("memprofile", "", "write a heap profile taken at the peak of the heap in use to this file (for sizing)"),
	}
}

// start starts the profiles the flags ask for; stop ends them and writes
// what is left.
func (p profiling) start() (stop func(), err error) {
	stopCPU := func() {}
	if *p.cpu != "" {
		if stopCPU, err = cli.StartCPUProfile(*p.cpu); err != nil {
			return nil, err
		}
	}
	stopHeap := func() float64 { return 0 }
	if *p.mem != "" {
		stopHeap = cli.WatchHeap(*p.mem)
	}
	return func() {
		stopHeap()
		stopCPU()
	}, nil
}
