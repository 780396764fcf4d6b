package proccpu

import (
	"os"
	"testing"
)

// TestOfGrows burns CPU in this process and expects its reading to grow;
// a process that does not exist reads 0.
func TestOfGrows(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc on this system")
	}
	before := Of(os.Getpid())
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i ^ (x >> 3)
	}
	if after := Of(os.Getpid()); after <= before {
		t.Errorf("CPU time %v then %v after a busy loop (%d); want it to grow", before, after, x)
	}
	if got := Of(1 << 30); got != 0 {
		t.Errorf("Of(no such pid) = %v; want 0", got)
	}
}
