package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ontolab runs the product as a child process: `indexer serve` for the
// campaign and the benchmarks. Which indexer is a flag's choice, or the
// one built beside ontolab (`go build -o bin/ ./cmd/...` builds both into
// bin/), or the one on $PATH.

// indexerFlag adds --indexer to a command's flags (--serve-bin when
// these commands were indexer's own).
func indexerFlag(fs *flag.FlagSet) *string {
	return fs.String("indexer", "", "`path` of the indexer binary that serves (default: the one next to ontolab, else on $PATH), e.g. a previous release")
}

// findIndexer returns the indexer binary to run: given (the flag) when
// set, else the indexer next to self (ontolab's executable), else the one
// on $PATH; the error says how to build one.
func findIndexer(given, self string) (string, error) {
	name := "indexer"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if given != "" {
		if err := executable(given); err != nil {
			return "", fmt.Errorf("--indexer: %w", err)
		}
		return given, nil
	}
	beside := filepath.Join(filepath.Dir(self), name)
	if executable(beside) == nil {
		return beside, nil
	}
	if path, err := exec.LookPath(name); err == nil {
		return path, nil
	}
	return "", fmt.Errorf("no indexer binary next to %s nor on $PATH: build both commands with `go build -o bin/ ./cmd/...` and run bin/ontolab, or pass --indexer PATH", self)
}

// executable says why path is not a file that can be run, if it is not.
func executable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0 {
		return &os.PathError{Op: "run", Path: path, Err: errors.New("not executable")}
	}
	return nil
}

// serveBinary is findIndexer for this process: the indexer of the flag,
// beside ontolab or on $PATH.
func serveBinary(given string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find ontolab's own executable: %w", err)
	}
	return findIndexer(given, self)
}
