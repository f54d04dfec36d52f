package main

import (
	"os"
	"path/filepath"
	"strings"
)

// goRunCommand is how the repository's README starts the command.
const goRunCommand = "go run ./cmd/indexer"

// invocation is the command line that starts this program again, for the
// commands the demo suggests: `go run ./cmd/indexer` when it runs from
// the go command's build directories (go run builds into a go-build
// temporary directory, or since Go 1.24 caches the binary in GOCACHE,
// also named go-build), else the binary as it was started (bin/indexer).
func invocation() string {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	return invocationOf(os.Args[0], exe)
}

func invocationOf(arg0, executable string) string {
	for _, p := range []string{executable, arg0} {
		for _, el := range strings.Split(filepath.ToSlash(filepath.Dir(p)), "/") {
			if strings.HasPrefix(el, "go-build") {
				return goRunCommand
			}
		}
	}
	if arg0 == "" {
		return "indexer"
	}
	return shellWord(arg0)
}

// shellWord quotes s for a POSIX shell when it holds more than the
// characters of plain paths.
func shellWord(s string) string {
	plain := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%=,", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
