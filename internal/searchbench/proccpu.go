package searchbench

import (
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

// machineCPUTicks is the idle (idle and iowait) and total CPU time of the
// machine so far, in ticks: the first line of /proc/stat.
func machineCPUTicks() (idle, total float64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, 0
	}
	for i, v := range f[1:] {
		if i >= 8 { // guest times are already in user and nice
			break
		}
		x, _ := strconv.ParseFloat(v, 64)
		total += x
		if i == 3 || i == 4 {
			idle += x
		}
	}
	return idle, total
}

// LoadAverage is the machine's 1-minute load average (Linux; 0: unknown).
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
