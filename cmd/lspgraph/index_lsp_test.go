package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
)

// goplsBinary returns gopls, skipping when it is missing (failing under
// LSPGRAPH_E2E=1).
func goplsBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	for _, p := range []string{"/root/go/bin/gopls", filepath.Join(os.Getenv("HOME"), "go", "bin", "gopls")} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("LSPGRAPH_E2E") == "1" {
		t.Fatal("gopls not found (LSPGRAPH_E2E=1)")
	}
	t.Skip("gopls not found")
	return ""
}

// refSets maps each symbol defined in the workspace, keyed by its
// definition location, to the set of its occurrence locations.
type refSets map[string]struct {
	name string
	locs map[string]bool
}

func readRefSets(t *testing.T, s *graph.Store) refSets {
	t.Helper()
	ctx := context.Background()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := refSets{}
	err = r.Documents(ctx, func(d graph.Document) error {
		syms, err := r.DocumentSymbols(ctx, d.Path)
		if err != nil {
			return err
		}
		for _, sym := range syms {
			if sym.Def.Path != d.Path || sym.Kind == "package" || sym.Kind == "namespace" {
				continue
			}
			refs, err := r.References(ctx, sym.ID, 0)
			if err != nil {
				return err
			}
			locs := map[string]bool{}
			for _, o := range refs {
				locs[o.Path+":"+o.Range.String()] = true
			}
			out[sym.Def.Path+":"+sym.Def.Range.String()] = struct {
				name string
				locs map[string]bool
			}{sym.DisplayName, locs}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIndexLSPMatchesSCIP crawls testdata/goapp through gopls with
// `lspgraph index --lsp` and compares, symbol by symbol (matched by
// definition location), the reference locations with those of the scip-go
// dump of the same project. The golden file lists every difference; each is
// explained in the file's header.
func TestIndexLSPMatchesSCIP(t *testing.T) {
	gopls := goplsBinary(t)
	ctx := context.Background()
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "goapp"))
	if err != nil {
		t.Fatal(err)
	}
	lspDir := filepath.Join(t.TempDir(), "lsp")
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := run(ctx, e, []string{"index", "--lsp", "--store", lspDir, "--root", root, "--", gopls}); code != 0 {
		t.Fatalf("index --lsp exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "crawled 7 documents through gopls") {
		t.Errorf("summary:\n%s", stdout.String())
	}
	stdout.Reset()
	if code := run(ctx, e, []string{"status", "--store", lspDir, "--root", root}); code != 0 {
		t.Fatalf("status exited %d: %s", code, stderr.String())
	}
	for _, want := range []string{"base: generation 1, commit ", "gopls v", "freshness: HEAD ", "overlay (live) documents: 0", "dirty buffers: 0"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("status output lacks %q:\n%s", want, stdout.String())
		}
	}
	lspStore, err := graph.Open(lspDir, graph.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lspStore.Close()

	scipStore, err := graph.Open(filepath.Join(t.TempDir(), "scip"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer scipStore.Close()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "scip", "goapp.scip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := scip.Import(ctx, scipStore, f, scip.Options{Root: root}); err != nil {
		t.Fatal(err)
	}

	lsp, sc := readRefSets(t, lspStore), readRefSets(t, scipStore)
	var same, differ, only []string
	keys := map[string]bool{}
	for k := range lsp {
		keys[k] = true
	}
	for k := range sc {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		l, inL := lsp[k]
		s, inS := sc[k]
		switch {
		case !inL:
			only = append(only, fmt.Sprintf("scip only: %s %s (%d locations)", k, s.name, len(s.locs)))
		case !inS:
			only = append(only, fmt.Sprintf("lsp only: %s %s (%d locations)", k, l.name, len(l.locs)))
		default:
			var sOnly, lOnly []string
			for loc := range s.locs {
				if !l.locs[loc] {
					sOnly = append(sOnly, loc)
				}
			}
			for loc := range l.locs {
				if !s.locs[loc] {
					lOnly = append(lOnly, loc)
				}
			}
			sort.Strings(sOnly)
			sort.Strings(lOnly)
			if len(sOnly)+len(lOnly) == 0 {
				same = append(same, fmt.Sprintf("same: %s %s (%d locations)", k, s.name, len(s.locs)))
				continue
			}
			differ = append(differ, fmt.Sprintf("differ: %s %s scip-only=%v lsp-only=%v", k, s.name, sOnly, lOnly))
		}
	}
	got := fmt.Sprintf("# %d symbols with the same reference locations, %d differing, %d on one side only\n%s\n%s\n%s\n",
		len(same), len(differ), len(only), strings.Join(differ, "\n"), strings.Join(only, "\n"), strings.Join(same, "\n"))
	golden := filepath.Join("testdata", "index_lsp_goapp.golden")
	if *update {
		// Keep the hand-written explanation at the top of the file.
		old, _ := os.ReadFile(golden)
		var header []string
		for _, line := range strings.Split(string(old), "\n") {
			if !strings.HasPrefix(line, "## ") {
				break
			}
			header = append(header, line)
		}
		text := got
		if len(header) > 0 {
			text = strings.Join(header, "\n") + "\n" + got
		}
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	var body []string
	for _, line := range strings.Split(string(want), "\n") {
		if !strings.HasPrefix(line, "## ") {
			body = append(body, line)
		}
	}
	if strings.Join(body, "\n") != got {
		t.Errorf("comparison with the scip-go dump changed (run with -update and review):\n%s", got)
	}
}
