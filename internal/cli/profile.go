package cli

import (
	"os"
	"runtime/pprof"
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
