package mcpserver

import (
	"fmt"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
)

// Freshness is the freshness block of every answer: what the graph was
// built from and how the work tree and the editor differ from it.
type Freshness struct {
	// BaseCommit is the commit the base index was built from.
	BaseCommit string `json:"baseCommit"`
	// BaseTool is the indexer that built it (scip-go, lspgraph-syntax, …).
	BaseTool string `json:"baseTool,omitempty"`
	Head     string `json:"head"`
	// Live lists documents answered from the live layer (the overlay of
	// changed files and buffers, the language server's answers); at most
	// a few, LiveCount counts them all.
	Live      []string `json:"live"`
	LiveCount int      `json:"liveCount"`
	// Changed counts the documents changed since the base commit.
	Changed int `json:"changed"`
	// Dirty lists unsaved editor buffers.
	Dirty   []string `json:"dirty"`
	Partial bool     `json:"partial"`
	// Reasons says why the answer may be partial, and what to run.
	Reasons []string `json:"reasons,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// listedLive is how many live documents a freshness block names.
const listedLive = 8

func freshnessOf(b freshness.Block) Freshness {
	f := Freshness{
		BaseCommit: b.BaseCommit, BaseTool: joinNonEmpty(" ", b.BaseTool, b.BaseToolVersion), Head: b.Head,
		Live: b.Live, LiveCount: len(b.Live), Changed: len(b.Changed), Dirty: b.Dirty,
		Partial: b.Partial, Reasons: b.Reasons, Notes: b.Notes,
	}
	if len(f.Live) > listedLive {
		f.Live = f.Live[:listedLive]
	}
	if f.Live == nil {
		f.Live = []string{}
	}
	if f.Dirty == nil {
		f.Dirty = []string{}
	}
	return f
}

// shrink cuts the block's lists to their first entries (the counts stay).
func (f *Freshness) shrink() bool {
	cut := false
	if len(f.Live) > 0 {
		f.Live, cut = []string{}, true
	}
	if len(f.Dirty) > 3 {
		f.Dirty, cut = f.Dirty[:3], true
	}
	if len(f.Notes) > 0 {
		f.Notes, cut = nil, true
	}
	for i, r := range f.Reasons {
		if len(r) > 200 {
			f.Reasons[i], cut = r[:200]+"…", true
		}
	}
	if len(f.Reasons) > 3 {
		f.Reasons, cut = f.Reasons[:3], true
	}
	return cut
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// markdown renders the block as a short section.
func (f Freshness) markdown() string {
	var b strings.Builder
	base := "none (no base index: run `lspgraph index` or `lspgraph scip import`)"
	if f.BaseCommit != "" {
		base = short(f.BaseCommit)
	}
	fmt.Fprintf(&b, "\n**Freshness:** base %s", base)
	if f.BaseTool != "" {
		fmt.Fprintf(&b, " (%s)", f.BaseTool)
	}
	fmt.Fprintf(&b, ", HEAD %s", orNone(short(f.Head)))
	fmt.Fprintf(&b, ", %s changed since base, %s live", plural(f.Changed, "document"), plural(f.LiveCount, "document"))
	if len(f.Live) > 0 {
		fmt.Fprintf(&b, " (%s", strings.Join(f.Live, ", "))
		if f.LiveCount > len(f.Live) {
			fmt.Fprintf(&b, ", …")
		}
		b.WriteString(")")
	}
	if len(f.Dirty) > 0 {
		fmt.Fprintf(&b, ", unsaved: %s", strings.Join(f.Dirty, ", "))
	}
	if f.Partial {
		b.WriteString(". **Partial**")
		if len(f.Reasons) > 0 {
			b.WriteString(": " + strings.Join(f.Reasons, "; "))
		}
	} else {
		b.WriteString(". Complete")
	}
	b.WriteString(".\n")
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
