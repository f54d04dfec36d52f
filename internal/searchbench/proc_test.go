package searchbench

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestProcMem(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	pid := os.Getpid()
	// RSS first: the high-water mark only grows, so read after it, it is
	// never below it even when the heap grows between the two reads.
	rss := procStatusMiB(pid, "VmRSS")
	if hwm := procStatusMiB(pid, "VmHWM"); hwm <= 0 || rss <= 0 || rss > hwm {
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

func TestProcCPUSeconds(t *testing.T) {
	before := procCPUSeconds(os.Getpid())
	deadline := time.Now().Add(50 * time.Millisecond)
	for n := 0; time.Now().Before(deadline); n++ {
		_ = n * n
	}
	// Ticks are 10 ms: after 50 ms of work the count moved, unless this is
	// not Linux.
	if after := procCPUSeconds(os.Getpid()); runtime.GOOS == "linux" && after <= before {
		t.Fatalf("CPU seconds %v then %v", before, after)
	}
}

func TestScanPage(t *testing.T) {
	raw := []byte(`{"data":[{"__apiName":"Customer","__primaryKey":12,"name":"a \"__primaryKey\":9"},{"__apiName":"Customer","__primaryKey":"13"}],"nextPageToken":"tok","totalCount":"42"}` + "\n")
	var p pageResponse
	if err := scanPage(raw, &p); err != nil {
		t.Fatal(err)
	}
	if got := p.Keys; len(got) != 2 || got[0] != 12 || got[1] != 13 || p.NextPageToken != "tok" || p.TotalCount != "42" {
		t.Fatalf("%+v", p)
	}
	bad := []byte(`{"data":[{"__apiName":"Customer","__primaryKey":"1x"}],"totalCount":"1"}`)
	if err := scanPage(bad, &p); err == nil || !strings.Contains(err.Error(), `"1x"`) {
		t.Fatalf("a page with key 1x: %v", err)
	}
	if err := scanPage([]byte(`{"errorCode":"X"}`), &p); err == nil {
		t.Fatal("an error body read as a page")
	}
}

func TestMachineCPUTicks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	idle0, total0 := machineCPUTicks()
	deadline := time.Now().Add(50 * time.Millisecond)
	for n := 0; time.Now().Before(deadline); n++ {
		_ = n * n
	}
	idle1, total1 := machineCPUTicks()
	if total0 <= 0 || idle0 < 0 || idle0 > total0 || total1 <= total0 || idle1 < idle0 || idle1 > total1 {
		t.Fatalf("idle %v of %v, then %v of %v", idle0, total0, idle1, total1)
	}
}
