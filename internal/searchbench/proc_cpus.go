package searchbench

import (
	"fmt"
	"strconv"
	"strings"
)

// The processors a process may run on, for a node kept off the cores of
// the processes measured beside it (Options.OpenSearchCPUs).

// parseCPUList reads a list of processors as taskset(1) takes it and
// /proc/<pid>/status's Cpus_allowed_list writes it: numbers and ranges,
// comma-separated ("0", "0-1,4").
func parseCPUList(s string) (map[int]bool, error) {
	out := map[int]bool{}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("processors %q: %q is not a processor or a range of them", s, part)
		}
		for i := a; i <= b; i++ {
			out[i] = true
		}
	}
	return out, nil
}

// allowedCPUs are the processors this process may run on.
func allowedCPUs() (map[int]bool, error) {
	v, err := procField("/proc/self/status", "Cpus_allowed_list:")
	if err != nil {
		return nil, err
	}
	return parseCPUList(v)
}

// checkNodeCPUs refuses processors for the node that this process (the
// clients, and the servers and PostgreSQL it starts) may run on too: the
// point of them is a node on cores of its own.
func checkNodeCPUs(cpus string) error {
	node, err := parseCPUList(cpus)
	if err != nil {
		return err
	}
	self, err := allowedCPUs()
	if err != nil {
		return err
	}
	for c := range node {
		if self[c] {
			return fmt.Errorf("the node's processors %s: this process runs on processor %d too; start it on the others (taskset --cpu-list)", cpus, c)
		}
	}
	return nil
}
