package memorylimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// Spec is a memory limit as the config writes it: "80%" of the memory
// available, a size ("12GiB", "512MiB", "2000000000"), or "off".
type Spec struct {
	percent float64 // of the memory available, when > 0
	bytes   int64   // when > 0
}

// Default is the limit of a config that sets none.
const Default = "80%"

// ErrSyntax is the error of a spec that is none of the forms.
var ErrSyntax = errors.New(`want a percentage of the memory available ("80%"), a size ("12GiB", "512MiB", bytes) or "off"`)

var units = []struct {
	suffix string
	bytes  int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}, {"", 1}}

// Parse reads a spec; "" is Default.
func Parse(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = Default
	}
	if s == "off" {
		return Spec{}, nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f <= 0 || f > 100 {
			return Spec{}, fmt.Errorf("%q: %w (a percentage in (0, 100])", s, ErrSyntax)
		}
		return Spec{percent: f}, nil
	}
	for _, u := range units {
		n, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil || f <= 0 || f*float64(u.bytes) >= 1<<62 {
			break
		}
		return Spec{bytes: int64(f * float64(u.bytes))}, nil
	}
	return Spec{}, fmt.Errorf("%q: %w", s, ErrSyntax)
}

// Off reports whether the spec sets no limit.
func (s Spec) Off() bool { return s.percent == 0 && s.bytes == 0 }

// Limit is the limit in bytes given the memory available; 0 when off or
// when a percentage has no memory to take it of.
func (s Spec) Limit(available int64) int64 {
	if s.bytes > 0 {
		return s.bytes
	}
	return int64(float64(available) * s.percent / 100)
}

// Available returns the memory the process may use, read from fsys (the
// root of the file system: os.DirFS("/")), and where it read it: the
// cgroup v2 limit, the cgroup v1 limit, else the machine's memory.
func Available(fsys fs.FS) (int64, string, error) {
	for _, p := range []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			continue
		}
		v := string(bytes.TrimSpace(b))
		n, err := strconv.ParseInt(v, 10, 64)
		// "max" and v1's page-rounded 2^63-1 mean no limit: the
		// machine's memory bounds the process.
		if err == nil && n > 0 && n < 1<<62 {
			return n, "/" + p, nil
		}
	}
	total, err := memTotal(fsys)
	if err != nil {
		return 0, "", err
	}
	return total, "/proc/meminfo", nil
}

// memTotal reads MemTotal of /proc/meminfo.
func memTotal(fsys fs.FS) (int64, error) {
	f, err := fsys.Open("proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("memory available: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			break
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || kb <= 0 {
			break
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("memory available: /proc/meminfo: %w", err)
	}
	return 0, errors.New("memory available: /proc/meminfo has no MemTotal in kB")
}
