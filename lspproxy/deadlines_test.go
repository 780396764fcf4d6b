package lspproxy

import (
	"sync"
	"testing"
	"time"
)

// TestDeadlines: funcs run once their time has passed, a deadline added
// after a later one still runs first, and closing drops what waits.
func TestDeadlines(t *testing.T) {
	d := newDeadlines()
	var mu sync.Mutex
	var ran []string
	done := make(chan struct{}, 3)
	note := func(name string) func() {
		return func() {
			mu.Lock()
			ran = append(ran, name)
			mu.Unlock()
			done <- struct{}{}
		}
	}
	d.after(300*time.Millisecond, note("late"))
	d.after(time.Hour, note("never"))
	d.after(20*time.Millisecond, note("early"))
	for range 2 {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("deadlines did not run; ran %v", ran)
		}
	}
	d.close()
	d.after(time.Millisecond, note("after close"))
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 2 || ran[0] != "early" || ran[1] != "late" {
		t.Errorf("ran %v, want [early late]", ran)
	}
}
