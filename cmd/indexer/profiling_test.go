package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

func TestProfiling_start(t *testing.T) {
	dir := t.TempDir()
	t.Run("both profiles written", func(t *testing.T) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		p := profilingFlags(fs)
		cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
		if err := fs.Parse([]string{"--cpuprofile", cpu, "--memprofile", mem}); err != nil {
			t.Fatal(err)
		}
		stop, err := p.start()
		if err != nil {
			t.Fatal(err)
		}
		keep := make([][]byte, 0, 64)
		for range 64 {
			keep = append(keep, make([]byte, 1<<16))
		}
		stop()
		_ = keep
		for _, f := range []string{cpu, mem} {
			if st, err := os.Stat(f); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v, want a profile", f, err)
			}
		}
	})
	t.Run("none asked", func(t *testing.T) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		stop, err := profilingFlags(fs).start()
		if err != nil {
			t.Fatal(err)
		}
		stop()
	})
	t.Run("unwritable CPU profile", func(t *testing.T) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		p := profilingFlags(fs)
		if err := fs.Parse([]string{"--cpuprofile", filepath.Join(dir, "missing", "cpu.prof")}); err != nil {
			t.Fatal(err)
		}
		if _, err := p.start(); err == nil {
			t.Error("start succeeded, want the file's error")
		}
	})
}
