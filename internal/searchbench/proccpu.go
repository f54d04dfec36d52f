package searchbench

import "strconv"

// CPU time of processes, from Linux's /proc, in seconds; 0 means unknown.
// Measured around each query's window, it gives the server's CPU per
// request: the engines' cost apart from the clients', which share the
// machine and differ (JSON over HTTP, PostgreSQL's binary protocol).

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times: 100 on every
// Linux architecture the project builds for.
const clockTicks = 100

// procCPUSeconds is the user and system time of a process: fields 14 and
// 15 of its stat.
func procCPUSeconds(pid int) float64 {
	f := statFields(pid)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / clockTicks
}

// treeCPUSeconds sums the CPU time of pid and its children.
func treeCPUSeconds(pid int) float64 { return sumTree(pid, procCPUSeconds) }
