package lspproxy

import (
	"testing"
	"time"
)

// TestPacer holds both pacers to the pacer contract: a wait ends when the
// pacer fires, arming again replaces the earlier arming and clears a
// firing nobody waited for, and closing ends a wait.
func TestPacer(t *testing.T) {
	for name, newP := range map[string]func() pacer{
		"platform": newPacer,
		"timer":    func() pacer { return newTimerPacer() },
	} {
		t.Run(name, func(t *testing.T) {
			p := newP()
			defer p.close()
			waited := func() <-chan struct{} {
				done := make(chan struct{})
				go func() { p.wait(); close(done) }()
				return done
			}
			mustEnd := func(done <-chan struct{}, what string) {
				t.Helper()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s: the wait did not end", what)
				}
			}

			p.arm(0)
			mustEnd(waited(), "armed for now")

			p.arm(time.Hour)
			p.arm(time.Millisecond)
			mustEnd(waited(), "armed for an hour, then for a millisecond")

			p.arm(time.Millisecond)
			time.Sleep(20 * time.Millisecond) // fired, not waited for
			p.arm(time.Hour)
			done := waited()
			select {
			case <-done:
				t.Fatal("a firing from before the last arming ended the wait")
			case <-time.After(50 * time.Millisecond):
			}
			p.close()
			mustEnd(done, "closed")
		})
	}
}
