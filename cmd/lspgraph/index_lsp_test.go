package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/workspace"
)

// lspServer returns the path of a language server binary, skipping the
// test when it is missing (failing under LSPGRAPH_E2E=1).
func lspServer(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range []string{"/root/go/bin/" + name, filepath.Join(os.Getenv("HOME"), "go", "bin", name)} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("LSPGRAPH_E2E") == "1" {
		t.Fatalf("%s not found (LSPGRAPH_E2E=1)", name)
	}
	t.Skipf("%s not found", name)
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

// TestIndexLSPMatchesSCIP crawls fixture projects through their language
// servers with `lspgraph index --lsp` and compares, symbol by symbol
// (matched by definition location), the reference locations with those of
// the SCIP dump of the same project. Each golden file lists every
// difference, with the explanation in its header.
func TestIndexLSPMatchesSCIP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fixture, dump string
		server        []string
		documents     int
	}{
		{"goapp", "goapp.scip", []string{"gopls"}, 7},
		{"tsworkspace", "tsworkspace.scip", []string{"typescript-language-server", "--stdio"}, 5},
		{"pyproject", "pyproject.scip", []string{"pyright-langserver", "--stdio"}, 5},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			t.Parallel()
			if tc.fixture != "goapp" && os.Getenv("LSPGRAPH_E2E") != "1" {
				t.Skip("the Node servers take many seconds on a loaded machine; set LSPGRAPH_E2E=1")
			}
			server := append([]string{lspServer(t, tc.server[0])}, tc.server[1:]...)
			compareWithSCIP(t, tc.fixture, tc.dump, server, tc.documents)
		})
	}
}

func compareWithSCIP(t *testing.T, fixture, dump string, server []string, documents int) {
	ctx := context.Background()
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	lspDir := filepath.Join(t.TempDir(), "lsp")
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	args := append([]string{"index", "--lsp", "--store", lspDir, "--root", root, "--"}, server...)
	if code := run(ctx, e, args); code != 0 {
		t.Fatalf("index --lsp exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if want := fmt.Sprintf("crawled %d documents through ", documents); !strings.Contains(stdout.String(), want) || strings.Contains(stdout.String(), "PARTIAL") {
		t.Errorf("summary lacks %q or is partial:\n%s", want, stdout.String())
	}
	if fixture == "goapp" {
		// gopls names methods "(*Catalog).Save": the crawled graph answers
		// both that name and the plain "Catalog.Save".
		for _, target := range []string{"Catalog.Save", "(*Catalog).Save", "service.Catalog.Save"} {
			stdout.Reset()
			if code := run(ctx, e, []string{"impact", "--store", lspDir, "--root", root, target}); code != 0 {
				t.Errorf("impact %s on the crawled graph exited %d: %s", target, code, stderr.String())
			} else if !strings.Contains(stdout.String(), "(*Catalog).Import") {
				t.Errorf("impact %s lacks the caller (*Catalog).Import:\n%s", target, stdout.String())
			}
		}
	}
	stdout.Reset()
	if code := run(ctx, e, []string{"status", "--store", lspDir, "--root", root}); code != 0 {
		t.Fatalf("status exited %d: %s", code, stderr.String())
	}
	for _, want := range []string{"base: generation 1, commit ", "freshness: HEAD ", "overlay (live) documents: 0", "dirty buffers: 0"} {
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
	f, err := os.Open(filepath.Join("..", "..", "testdata", "scip", dump))
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
	for _, k := range slices.Sorted(maps.Keys(keys)) {
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
	golden := filepath.Join("testdata", "index_lsp_"+fixture+".golden")
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

// TestIndexLSPThroughSession: while a session serves the store (a
// headless one here, as `lspgraph serve` runs it), `lspgraph index --lsp`
// has the session crawl the server and write the base generation instead
// of failing on the store it holds; the session answers from the crawled
// generation at once.
func TestIndexLSPThroughSession(t *testing.T) {
	t.Parallel()
	gopls := lspServer(t, "gopls")
	ctx := context.Background()
	root := copyGoapp(t)
	dir := filepath.Join(t.TempDir(), "store")
	h, err := workspace.ServeHeadless(ctx, root, dir, "serve", workspace.WaitNone, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := run(ctx, e, []string{"index", "--lsp", "--store", dir, "--root", root, "--", gopls}); code != 0 {
		t.Fatalf("index --lsp with a session serving the store exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if want := fmt.Sprintf("crawling through the session of pid %d", os.Getpid()); !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	if !strings.Contains(stdout.String(), "crawled 7 documents through gopls") || strings.Contains(stdout.String(), "PARTIAL") {
		t.Errorf("summary:\n%s", stdout.String())
	}
	stdout.Reset()
	if code := run(ctx, e, []string{"impact", "--store", dir, "--root", root, "(*Catalog).Save"}); code != 0 {
		t.Fatalf("impact through the session exited %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "(*Catalog).Import") {
		t.Errorf("impact through the session lacks the crawled caller (*Catalog).Import:\n%s", stdout.String())
	}
}
