package searchbench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// CPU time of processes, from Linux's /proc, in seconds; 0 means unknown.
// Measured around each query's window, it gives the server's CPU per
// request: the engines' cost apart from the clients', which share the
// machine and differ (JSON over HTTP, PostgreSQL's binary protocol).

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times: 100 on every
// Linux architecture the project builds for.
const clockTicks = 100

// procCPUSeconds is the user and system time of a process.
func procCPUSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// "pid (comm) state ppid ... utime stime": fields 14 and 15; comm may
	// hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / clockTicks
}

// treeCPUSeconds sums the CPU time of pid and its children (PostgreSQL's
// postmaster and its backends).
func treeCPUSeconds(pid int) float64 {
	total := procCPUSeconds(pid)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return total
	}
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil || parentPID(child) != pid {
			continue
		}
		total += procCPUSeconds(child)
	}
	return total
}
