package memorylimit

import (
	"errors"
	"testing"
	"testing/fstest"
)

func TestParse(t *testing.T) {
	const avail = 10 << 30
	tests := []struct {
		in    string
		limit int64 // of 10 GiB available
		off   bool
		err   bool
	}{
		{in: "", limit: 8 << 30},
		{in: "80%", limit: 8 << 30},
		{in: " 50 % ", limit: 5 << 30},
		{in: "100%", limit: avail},
		{in: "12GiB", limit: 12 << 30},
		{in: "1.5GiB", limit: 3 << 29},
		{in: "512MiB", limit: 512 << 20},
		{in: "2000000000", limit: 2000000000},
		{in: "4096B", limit: 4096},
		{in: "off", off: true},
		{in: "0%", err: true},
		{in: "101%", err: true},
		{in: "-1GiB", err: true},
		{in: "0", err: true},
		{in: "12GB", err: true}, // decimal units are not read: a GB is not a GiB
		{in: "lots", err: true},
		{in: "99999999TiB", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := Parse(tt.in)
			if tt.err {
				if !errors.Is(err, ErrSyntax) {
					t.Fatalf("Parse(%q) = %+v, %v; want ErrSyntax", tt.in, s, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Off() != tt.off {
				t.Fatalf("Off() = %v, want %v", s.Off(), tt.off)
			}
			if got := s.Limit(avail); !tt.off && got != tt.limit {
				t.Fatalf("Limit = %d, want %d", got, tt.limit)
			}
		})
	}
}

func TestAvailable(t *testing.T) {
	meminfo := &fstest.MapFile{Data: []byte("MemTotal:       24523172 kB\nMemFree:        1000 kB\n")}
	tests := []struct {
		name   string
		fsys   fstest.MapFS
		want   int64
		source string
		err    bool
	}{
		{"cgroup v2 limit", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("4294967296\n")}, "proc/meminfo": meminfo}, 4 << 30, "/sys/fs/cgroup/memory.max", false},
		{"cgroup v2 without a limit", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("max\n")}, "proc/meminfo": meminfo}, 24523172 << 10, "/proc/meminfo", false},
		{"cgroup v1 limit", fstest.MapFS{"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("2147483648\n")}, "proc/meminfo": meminfo}, 2 << 30, "/sys/fs/cgroup/memory/memory.limit_in_bytes", false},
		{"cgroup v1 without a limit", fstest.MapFS{"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")}, "proc/meminfo": meminfo}, 24523172 << 10, "/proc/meminfo", false},
		{"no cgroup", fstest.MapFS{"proc/meminfo": meminfo}, 24523172 << 10, "/proc/meminfo", false},
		{"nothing to read", fstest.MapFS{}, 0, "", true},
		{"meminfo without MemTotal", fstest.MapFS{"proc/meminfo": {Data: []byte("MemFree: 1 kB\n")}}, 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, source, err := Available(tt.fsys)
			if (err != nil) != tt.err {
				t.Fatalf("Available: %v, want error %v", err, tt.err)
			}
			if got != tt.want || source != tt.source {
				t.Fatalf("Available = %d from %q, want %d from %q", got, source, tt.want, tt.source)
			}
		})
	}
}
