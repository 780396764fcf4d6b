package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress shows how far a long command got: on a terminal one line
// redrawn in place at most every 100 ms, otherwise a plain line at most
// every 5 s.
type progress struct {
	w        io.Writer
	tty      bool
	interval time.Duration

	mu    sync.Mutex
	start time.Time
	last  time.Time
	drawn bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, interval: 5 * time.Second, start: time.Now()}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty, p.interval = true, 100*time.Millisecond
	}
	p.last = p.start
	return p
}

// show draws the line render returns for a terminal, or its plain line
// (none when empty), when the interval has passed since the last one or
// when force is set. render gets the time since the start.
func (p *progress) show(force bool, render func(elapsed time.Duration) (tty, plain string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if !force && now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	tty, plain := render(now.Sub(p.start))
	switch {
	case p.tty:
		fmt.Fprintf(p.w, "\r\033[K%s", tty)
		p.drawn = true
	case plain != "":
		fmt.Fprintln(p.w, plain)
	}
}

// finish clears the line on a terminal.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// progressBar draws done of total in 30 cells; all empty when total is
// unknown.
func progressBar(done, total int64) string {
	const width = 30
	n := 0
	if total > 0 {
		n = int(min(done, total) * width / total)
	}
	return strings.Repeat("█", n) + strings.Repeat("·", width-n)
}
