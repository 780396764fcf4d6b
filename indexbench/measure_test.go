package indexbench

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// TestMeasurePeakIsTheChilds checks that a child's peak RSS is its own, not
// this process's: a process that touched 256 MiB starts a small child,
// which must not be reported at 256 MiB.
func TestMeasurePeakIsTheChilds(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS inheritance is Linux's")
	}
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak RSS here: %v", err)
	}
	bin, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	big := make([]byte, 256<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	big = nil
	run, _, _, err := Measure(context.Background(), "true", "", bin)
	if err != nil {
		t.Fatal(err)
	}
	if run.PeakRSSMB > 128 {
		t.Errorf("true(1) peaked at %.0f MB: the measuring process's peak (256 MiB touched before) leaked into the child's", run.PeakRSSMB)
	}
}

// TestMeasureSplitsSystemTime holds SysSeconds to the child's system
// time: part of CPUSeconds, and most of it for a child that spends its
// time in system calls (dd copying zeroes into the void).
func TestMeasureSplitsSystemTime(t *testing.T) {
	bin, err := exec.LookPath("dd")
	if err != nil {
		t.Skip("no dd(1)")
	}
	run, _, _, err := Measure(context.Background(), "dd", "", bin, "if=/dev/zero", "of=/dev/null", "bs=512", "count=400000")
	if err != nil {
		t.Fatal(err)
	}
	if run.SysSeconds <= 0 || run.SysSeconds > run.CPUSeconds {
		t.Fatalf("system %.3f s of %.3f s CPU", run.SysSeconds, run.CPUSeconds)
	}
	if run.SysSeconds < run.CPUSeconds/2 {
		t.Errorf("dd spent %.3f of %.3f CPU-s in the system, want most of it", run.SysSeconds, run.CPUSeconds)
	}
}
