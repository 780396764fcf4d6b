package syntax

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPythonStarImports checks how bare names resolve through
// `from m import *`: m's exports (its literal __all__, else the names
// without a leading underscore), the last import winning, and names defined
// or imported otherwise first. The file resolved alone against a graph of
// the project gives the same edges.
func TestPythonStarImports(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"pyproject.toml": "[project]\nname = \"p\"\n",
		"p/__init__.py":  "",
		"p/a.py": `__all__ = ("both", "only_a", "_listed")

def both(): pass
def only_a(): pass
def unlisted(): pass
def _listed(): pass
def named(): pass
`,
		"p/b.py": `def both(): pass
def only_b(): pass
def _hidden(): pass
def own(): pass
def named(): pass
`,
		"p/c.py": `__all__ = make_all()

def only_c(): pass
def _private_c(): pass
`,
		"p/d.py": `__all__ = ["only_d"]
__all__ += ["also_d"]

def only_d(): pass
def also_d(): pass
`,
		"p/main.py": `from p.a import *
from .b import *
from p.c import *
from p.d import *
from p.a import named

def own(): pass

def run():
    both()
    only_a()
    only_b()
    only_c()
    also_d()
    _listed()
    unlisted()
    _hidden()
    _private_c()
    own()
    named()
`,
	})
	const from, path, prefix = "syntax python p p.main:run", "p/main.py", "syntax python p "
	want := []string{
		"calls p.a:_listed 0.94 syntax:imported-package",
		"calls p.a:named 0.94 syntax:imported-package",
		"calls p.a:only_a 0.94 syntax:imported-package",
		"calls p.b:both 0.94 syntax:imported-package",
		"calls p.b:only_b 0.94 syntax:imported-package",
		"calls p.c:only_c 0.94 syntax:imported-package",
		"calls p.d:also_d 0.94 syntax:imported-package",
		"calls p.main:own 0.99 syntax:same-file",
		// Not exported: global guesses.
		"calls p.a:unlisted 0.48 syntax:unique-global-name",
		"calls p.b:_hidden 0.48 syntax:unique-global-name",
		"calls p.c:_private_c 0.48 syntax:unique-global-name",
	}
	slices.Sort(want)
	wantOccs := []string{
		"import 1:6 syntax python p.a",
		"import 2:6 syntax python p.b",
		"import 3:6 syntax python p.c",
		"import 4:6 syntax python p.d",
		"import 5:6 syntax python p.a",
		"import 5:17 p.a:named",
	}
	slices.Sort(wantOccs)

	_, docs := extractTree(t, root)
	edges, occs := factsFrom(docs, from, path, prefix)
	if !slices.Equal(edges, want) {
		t.Errorf("edges from run:\n got %q\nwant %q", edges, want)
	}
	if !slices.Equal(occs, wantOccs) {
		t.Errorf("import occurrences of main.py:\n got %q\nwant %q", occs, wantOccs)
	}

	// Re-extracted alone against the graph.
	src, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	alone := resolveAlone(t, root, path, src)
	if edges, _ := factsFrom(alone, from, path, prefix); !slices.Equal(edges, want) {
		t.Errorf("edges from run, resolved against the graph:\n got %q\nwant %q", edges, want)
	}
}

// TestPyAllNames checks the round trip of __all__ through a Signature.
func TestPyAllNames(t *testing.T) {
	for _, c := range []struct {
		sig  string
		want []string
		ok   bool
	}{
		{`["a", "_b"]`, []string{"a", "_b"}, true},
		{`[]`, nil, true},
		{``, nil, false},
		{`["a"`, nil, false},
		{`[a]`, nil, false},
	} {
		got, ok := pyAllNames(c.sig)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("pyAllNames(%q) = %q, %v; want %q, %v", c.sig, got, ok, c.want, c.ok)
		}
	}
}
