package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionText(t *testing.T) {
	deps := []*debug.Module{{Path: "github.com/apache/iceberg-go", Version: "v0.7.0"}, {Path: "golang.org/x/text", Version: "v0.1.0"}}
	tests := []struct {
		name   string
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"set at link time", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Deps: deps},
			"indexer v1.2.3\nbuilt with github.com/apache/iceberg-go@v0.7.0\n"},
		{"go install module@version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}},
			"indexer v0.9.0\n"},
		{"stamped from VCS", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261203150000-65470fe1a2b3+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "65470fe1a2b3"}, {Key: "vcs.modified", Value: "true"}}},
			"indexer v0.0.0-20261203150000-65470fe1a2b3+dirty (65470fe1a2b3, modified)\n"},
		{"-buildvcs=false, no flag", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Deps: deps},
			"indexer dev (no version stamped: built without VCS information; set one with -ldflags \"-X main.version=v1.2.3\")\nbuilt with github.com/apache/iceberg-go@v0.7.0\n"},
		{"no build info", "dev", nil,
			"indexer dev (no version stamped: built without VCS information; set one with -ldflags \"-X main.version=v1.2.3\")\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionText(tt.linked, tt.bi); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
