package searchbench

import (
	"os"
	"runtime"
	"testing"
)

func TestProcMem(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	pid := os.Getpid()
	if hwm, rss := procStatusMiB(pid, "VmHWM"), procStatusMiB(pid, "VmRSS"); hwm <= 0 || rss <= 0 || rss > hwm {
		t.Fatalf("VmHWM %v, VmRSS %v", hwm, rss)
	}
	if parentPID(pid) != os.Getppid() {
		t.Fatalf("parent of %d: %d, want %d", pid, parentPID(pid), os.Getppid())
	}
	if pss := treePSSMiB(pid); pss <= 0 {
		t.Fatalf("PSS %v", pss)
	}
	if procStatusMiB(-1, "VmHWM") != 0 {
		t.Fatal("no process: want 0")
	}
}
