package searchbench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Processes as Linux's /proc shows them, for the CPU and memory figures
// (proccpu.go, procmem.go).

// statFields returns the fields of /proc/<pid>/stat after the command
// name (which may hold spaces and parentheses): state, ppid, ...; nil
// when the process is gone or on another OS.
func statFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

func parentPID(pid int) int {
	f := statFields(pid)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// sumTree sums of(pid) over pid and its children (PostgreSQL's
// postmaster and its backends).
func sumTree(pid int, of func(pid int) float64) float64 {
	total := of(pid)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return total
	}
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil || parentPID(child) != pid {
			continue
		}
		total += of(child)
	}
	return total
}

// procField is the value of the line of a /proc file that starts with
// name ("VmRSS:"), trimmed.
func procField(path, name string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("%s: no %s line", path, name)
}
