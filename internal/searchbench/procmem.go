package searchbench

import (
	"fmt"
	"strconv"
	"strings"
)

// Memory of processes, from Linux's /proc. Values are MiB; 0 means
// unknown (another OS, or a process gone).

// procStatusMiB reads field (VmHWM: peak resident set, VmRSS: resident
// set now) of /proc/<pid>/status.
func procStatusMiB(pid int, field string) float64 {
	return kbField(fmt.Sprintf("/proc/%d/status", pid), field+":")
}

// treePSSMiB sums the proportional set size of pid and its children. For
// PostgreSQL (a postmaster and one backend per connection, sharing their
// buffers) the sum of RSS would count the shared buffers once per process;
// PSS splits shared pages among the processes that map them.
func treePSSMiB(pid int) float64 {
	return sumTree(pid, func(pid int) float64 { return kbField(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:") })
}

// kbField reads a "<name> <n> kB" line of a /proc file, in MiB.
func kbField(path, name string) float64 {
	v, err := procField(path, name)
	if err != nil {
		return 0
	}
	kb, err := strconv.ParseFloat(strings.TrimSuffix(v, " kB"), 64)
	if err != nil {
		return 0
	}
	return kb / 1024
}
