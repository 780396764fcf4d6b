package main

import (
	"context"
	"fmt"
	"io"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
)

// statusFreshness computes the freshness block of the store at dir for the
// workspace root, or nil when the store cannot be read (readStatus has
// already said why). It does not sync the live layer: status shows what the
// next query would be answered from.
func statusFreshness(ctx context.Context, e *env, dir, root string) *freshness.Block {
	s, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		return nil
	}
	defer s.Close()
	r, err := s.Reader()
	if err != nil {
		return nil
	}
	defer r.Close()
	root = rootOrDefault(root)
	b, err := freshness.Compute(ctx, r, root)
	if err != nil {
		fmt.Fprintf(e.stderr, "warning: freshness of %s: %v\n", root, err)
		return nil
	}
	return &b
}

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
