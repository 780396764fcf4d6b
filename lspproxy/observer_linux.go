package lspproxy

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// observerNice is the observer thread's nice value. A thread woken to
// forward (nice 0) preempts it at once, as it would one at nice 19; but
// on a machine kept busy (a build on every core) nice 19 leaves the
// observer about 1.5% of a core against each busy thread, nice 10 about
// 10%: enough to keep up with an editor's text document notifications
// (decoding a whole-text didChange of a large file takes milliseconds)
// instead of dropping them and losing the buffers, and to hold the
// buffers' lock only briefly.
const observerNice = 10

// observerThread gives the calling goroutine, the observer's, a thread of
// its own at a lower scheduling priority (observerNice): when the machine
// is busy, the kernel runs the editor, the server and the proxy's
// forwarding threads before the observer's work. The thread ends with the
// goroutine (it is never unlocked), so no other goroutine inherits its
// priority.
//
// On a 2-core machine, with an editor, the proxy and gopls taking turns on
// definition round trips, the observer's work (recording each answer)
// added to the proxy's p50 latency though it runs after the answer is
// forwarded: `lspgraph bench proxy --runs 24 -- gopls`, added p50 against
// the bare copier's 1.21 (1.15-1.27) at normal priority, 1.15 (1.09-1.19)
// at nice 19, 1.11 (1.07-1.15) with no observer at all (one sitting,
// separate invocations).
func observerThread() {
	runtime.LockOSThread()
	// Failing to lower a priority leaves it as it was: nothing to report.
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), observerNice)
}
