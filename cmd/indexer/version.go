package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3");
// docs/operations.md documents it.
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
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprint(env.Stdout, versionText(version, bi))
	return exitOK
}

// versionText is what `indexer version` prints: the version set at link
// time, else the module's version from the build info (go install
// module@version, or a build that stamped it from VCS), with the VCS
// revision when stamped; then the core dependencies' versions. bi may be
// nil.
func versionText(linked string, bi *debug.BuildInfo) string {
	v := linked
	var deps []string
	if bi != nil {
		if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		var revision, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if revision != "" {
			if modified == "true" {
				revision += ", modified"
			}
			v += " (" + revision + ")"
		}
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/apache/iceberg-go", "github.com/blevesearch/bleve/v2", "go.etcd.io/bbolt":
				deps = append(deps, d.Path+"@"+d.Version)
			}
		}
	}
	if v == "dev" {
		v += ` (no version stamped: built without VCS information; set one with -ldflags "-X main.version=v1.2.3")`
	}
	out := "indexer " + v + "\n"
	if len(deps) > 0 {
		out += "built with " + strings.Join(deps, " ") + "\n"
	}
	return out
}
