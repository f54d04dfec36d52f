package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3").
var version = "dev"

func runVersion(_ context.Context, env *Env, args []string) int {
	// Parsed like every command's, so that -h answers with a usage line;
	// there are no flags to list.
	fs := newFlags(env, "version", "")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: indexer version\n\nPrints the version of this binary and of its core dependencies.")
	}
	if code, ok := parse(fs, args); !ok {
		return code
	}
	v := version
	var deps string
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v += " (" + s.Value + ")"
			}
		}
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/apache/iceberg-go", "github.com/blevesearch/bleve/v2", "go.etcd.io/bbolt":
				deps += fmt.Sprintf(" %s@%s", d.Path, d.Version)
			}
		}
	}
	fmt.Fprintf(env.Stdout, "indexer %s\n", v)
	if deps != "" {
		fmt.Fprintf(env.Stdout, "built with%s\n", deps)
	}
	return exitOK
}
