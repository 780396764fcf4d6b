package main

import (
	"fmt"
	"io"

	"github.com/lspgraph/lspgraph/freshness"
)

// printFreshness adds the freshness lines to status: the base commit against
// HEAD, what changed since, what the live layer answers for, unsaved
// buffers, and why answers may be partial.
func printFreshness(w io.Writer, b *freshness.Block) {
	if b == nil {
		return
	}
	head := b.Head
	switch {
	case head == "":
		head = "unknown (not a git work tree)"
	case head == b.BaseCommit:
		head = shortCommit(head) + " (the base commit)"
	default:
		head = shortCommit(head)
	}
	fmt.Fprintf(w, "freshness: HEAD %s", head)
	if b.BaseCommit != "" {
		fmt.Fprintf(w, ", base %s", shortCommit(b.BaseCommit))
	}
	if b.Partial {
		fmt.Fprint(w, ", answers may be PARTIAL")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  changed since base: %d%s\n", len(b.Changed), listed(b.Changed))
	fmt.Fprintf(w, "  overlay (live) documents: %d%s\n", len(b.Live), listed(b.Live))
	fmt.Fprintf(w, "  dirty buffers: %d%s\n", len(b.Dirty), listed(b.Dirty))
	for _, r := range b.Reasons {
		fmt.Fprintf(w, "  partial: %s\n", r)
	}
	for _, n := range b.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

func listed(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return " (" + abbreviate(items, 5) + ")"
}
