package contextpack

import (
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

func loc(p string, line uint32) graph.Location {
	return graph.Location{Path: p, Range: textpos.Range{Start: textpos.Position{Line: line, Col: 5}, End: textpos.Position{Line: line, Col: 9}}}
}

func TestCutDefinitionWithoutExtent(t *testing.T) {
	goSrc := `package p

// Sum adds.
// It ignores "{" in strings.
func Sum(xs []int) int {
	s := "{"
	_ = s
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}

const Version = "v1"
`
	site := loc("p.go", 9) // total += x
	c := cutDefinition(lines([]byte(goSrc)), "p.go", loc("p.go", 4), textpos.Range{}, &site)
	wantBody := "// Sum adds.\n// It ignores \"{\" in strings.\nfunc Sum(xs []int) int {\n\ts := \"{\"\n\t_ = s\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}\n"
	if c.body == nil || c.body.Text != wantBody || c.body.StartLine != 3 || c.body.Language != "go" {
		t.Errorf("body = %+v\nwant text %q from line 3", c.body, wantBody)
	}
	wantSig := "func Sum(xs []int) int {\n…\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n…\n"
	if c.signature == nil || c.signature.Text != wantSig || c.signature.StartLine != 5 {
		t.Errorf("signature = %+v\nwant %q", c.signature, wantSig)
	}
	one := cutDefinition(lines([]byte(goSrc)), "p.go", loc("p.go", 14), textpos.Range{}, nil)
	if one.body == nil || one.body.Text != "const Version = \"v1\"\n" || one.signature != nil {
		t.Errorf("one-line definition = %+v / %+v; want the line as body and no signature form", one.body, one.signature)
	}
}

func TestCutDefinitionPython(t *testing.T) {
	py := `class Rule:
    """A rule."""

    def apply(self, cents: int) -> int:
        """Return the price."""
        return cents


def quote(unit_cents: int,
          qty: int) -> int:
    total = unit_cents * qty
    return total
`
	c := cutDefinition(lines([]byte(py)), "p.py", loc("p.py", 3), textpos.Range{}, nil)
	if c.body == nil || c.body.Text != "    def apply(self, cents: int) -> int:\n        \"\"\"Return the price.\"\"\"\n        return cents\n" {
		t.Errorf("method body = %+v", c.body)
	}
	q := cutDefinition(lines([]byte(py)), "p.py", loc("p.py", 8), textpos.Range{}, nil)
	if q.body == nil || q.body.StartLine != 9 || q.body.Text != "def quote(unit_cents: int,\n          qty: int) -> int:\n    total = unit_cents * qty\n    return total\n" {
		t.Errorf("function body = %+v", q.body)
	}
	if q.signature == nil || q.signature.Text != "def quote(unit_cents: int,\n          qty: int) -> int:\n…\n" {
		t.Errorf("function signature = %+v", q.signature)
	}
}

func TestCutDefinitionUsesExtent(t *testing.T) {
	src := "a\nb\nc\nd\ne\n"
	ext := textpos.Range{Start: textpos.Position{Line: 1}, End: textpos.Position{Line: 3, Col: 0}}
	c := cutDefinition(lines([]byte(src)), "x.txt", loc("x.txt", 1), ext, nil)
	if c.body == nil || c.body.Text != "b\nc\n" {
		t.Errorf("body from extent = %+v; want lines 2-3 (an extent ending at column 0 excludes its last line)", c.body)
	}
	// An extent past the end of the text (a stale graph) falls back to the text.
	stale := textpos.Range{Start: textpos.Position{Line: 1}, End: textpos.Position{Line: 40}}
	if c := cutDefinition(lines([]byte(src)), "x.txt", loc("x.txt", 1), stale, nil); c.body == nil || c.body.Text != "b\n" {
		t.Errorf("body from a stale extent = %+v", c.body)
	}
}

func TestFence(t *testing.T) {
	if got := fence("a ``` b"); got != "````" {
		t.Errorf("fence = %q; want four backticks", got)
	}
	if got := fence("plain"); got != "```" {
		t.Errorf("fence = %q", got)
	}
}

func TestFenceLabels(t *testing.T) {
	for p, want := range map[string]string{
		"a.go": "go", "a.ts": "ts", "a.d.ts": "ts", "a.mts": "ts", "a.tsx": "tsx", "a.js": "js", "a.cjs": "js",
		"a.jsx": "jsx", "a.py": "python", "a.pyi": "python", "a.rs": "rust", "A.java": "java",
		"a.c": "c", "a.h": "c", "a.cc": "cpp", "a.hpp": "cpp", "README.md": "", "Makefile": "",
	} {
		if got := Language(p); got != want {
			t.Errorf("Language(%q) = %q, want %q", p, got, want)
		}
	}
}
