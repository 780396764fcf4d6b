package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/overlay"
	"github.com/lspgraph/lspgraph/scip"
)

const (
	preciseSave   = "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/Catalog#Save()."
	preciseImport = "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/Catalog#Import()."
	preciseRun    = "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/cmd/goapp`/run()."
	precisePut    = "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/store`/Store#Put."
)

// preciseGoapp copies testdata/goapp into a fresh git repository and
// imports testdata/scip/goapp.scip for its commit into a new store.
func preciseGoapp(t *testing.T) (root string, st *graph.Store) {
	t.Helper()
	root, head := preciseGoappRepo(t)
	st, err := graph.Open(filepath.Join(t.TempDir(), "store"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f, err := os.Open(filepath.Join("..", "..", "testdata", "scip", "goapp.scip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := scip.Import(context.Background(), st, f, scip.Options{Root: root, Commit: head}); err != nil {
		t.Fatal(err)
	}
	return root, st
}

// preciseGoappRepo copies testdata/goapp into a fresh git repository and returns
// its root and commit.
func preciseGoappRepo(t *testing.T) (root, head string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root = copyGoapp(t)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	return root, git("rev-parse", "HEAD")
}

// upstreamOf returns the impact of id as "d=N symbol" lines, sorted.
func upstreamOf(t *testing.T, st *graph.Store, id string) []string {
	t.Helper()
	ctx := context.Background()
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	target, ok, err := r.Symbol(ctx, id)
	if err != nil || !ok {
		t.Fatalf("Symbol(%s) = %v, %v", id, ok, err)
	}
	a, err := impact.Compute(ctx, r, target, impact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			out = append(out, fmt.Sprintf("d=%d %s", g.Depth, d.Symbol))
		}
	}
	sort.Strings(out)
	return out
}

func editFile(t *testing.T, root, rel string, edit func(string) string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	text, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	next := edit(string(text))
	if next == string(text) {
		t.Fatalf("edit of %s changed nothing", rel)
	}
	if err := os.WriteFile(p, []byte(next), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOverlayOverSCIPKeepsPreciseIdentities: a document re-extracted over
// a SCIP base speaks the base's identities, so that impact walks through
// it as through the base; a new definition keeps its syntax identity, and
// removing its call leaves no ghost.
func TestOverlayOverSCIPKeepsPreciseIdentities(t *testing.T) {
	ctx := context.Background()
	root, st := preciseGoapp(t)
	sync := func() {
		t.Helper()
		if _, err := overlay.Sync(ctx, st, root); err != nil {
			t.Fatal(err)
		}
	}
	before := upstreamOf(t, st, preciseSave)
	for _, want := range []string{"d=1 " + preciseImport, "d=2 " + preciseRun} {
		if !slices.Contains(before, want) {
			t.Fatalf("impact of Save on the base = %v; lacks %q", before, want)
		}
	}

	// (1) An edit inside Catalog.Import's body: the same answer.
	editFile(t, root, "service/catalog.go", func(s string) string {
		return strings.Replace(s, "\tn := 0\n", "\tn := 0\n\t// counted below\n", 1)
	})
	sync()
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err := r.Document(ctx, "service/catalog.go"); err != nil || d.Layer != graph.Live || d.Source != graph.SourceSyntax {
		t.Fatalf("service/catalog.go = %+v, %v; want the live syntax document", d, err)
	}
	syms, err := r.DocumentSymbols(ctx, "service/catalog.go")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range syms {
		ids = append(ids, s.ID)
		if strings.HasPrefix(s.ID, "syntax ") {
			t.Errorf("live catalog.go defines %s: every definition was in the base and should keep its SCIP id", s.ID)
		}
	}
	if !slices.Contains(ids, preciseSave) || !slices.Contains(ids, preciseImport) {
		t.Errorf("live catalog.go defines %v; want the SCIP ids of Save and Import", ids)
	}
	// A reference from the changed document to another document's symbol
	// reaches the SCIP id: Save calls c.st.Put, the store.Store interface
	// method.
	out, err := r.Outgoing(ctx, preciseSave, graph.EdgeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range out {
		if e.To == precisePut && e.Layer == graph.Live {
			found = true
			if e.Confidence < 0.7 || !strings.HasSuffix(e.Reason, "→scip") {
				t.Errorf("Save → Store.Put = %+v; want a syntax confidence ≥ 0.7 and a reason ending in →scip", e)
			}
		}
		if strings.HasPrefix(e.To, "syntax go example.com/goapp/") {
			t.Errorf("Save → %s: a workspace target with a syntax id over a SCIP base", e.To)
		}
	}
	if !found {
		t.Errorf("Save's outgoing edges %+v lack the live call to %s", out, precisePut)
	}
	r.Close()
	if after := upstreamOf(t, st, preciseSave); !slices.Equal(after, before) {
		t.Errorf("impact of Save after an edit inside Import:\n got %v\nwant %v", after, before)
	}

	// (2) A new function calling Save in another document.
	const caller = "syntax go example.com/goapp/cmd/goapp saveOne"
	editFile(t, root, "cmd/goapp/main.go", func(s string) string {
		return s + "\nfunc saveOne(c *service.Catalog) error { return c.Save(\"k\", \"v\") }\n"
	})
	sync()
	got := upstreamOf(t, st, preciseSave)
	if !slices.Contains(got, "d=1 "+caller) {
		t.Errorf("impact of Save after adding saveOne = %v; lacks %q", got, "d=1 "+caller)
	}
	for _, want := range before {
		if !slices.Contains(got, want) {
			t.Errorf("impact of Save after adding saveOne = %v; lost %q", got, want)
		}
	}

	// (3) The call removed again: no ghost, first with saveOne kept, then
	// with main.go back at its base content.
	editFile(t, root, "cmd/goapp/main.go", func(s string) string {
		return strings.Replace(s, "return c.Save(\"k\", \"v\")", "_ = c; return nil", 1)
	})
	sync()
	if got := upstreamOf(t, st, preciseSave); slices.Contains(got, "d=1 "+caller) {
		t.Errorf("impact of Save after removing the call = %v; still lists %s", got, caller)
	}
	editFile(t, root, "cmd/goapp/main.go", func(s string) string {
		return strings.Replace(s, "\nfunc saveOne(c *service.Catalog) error { _ = c; return nil }\n", "", 1)
	})
	sync()
	if got := upstreamOf(t, st, preciseSave); !slices.Equal(got, before) {
		t.Errorf("impact of Save after removing saveOne:\n got %v\nwant %v", got, before)
	}
	r, err = st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if s, err := r.FindSymbols(ctx, "saveOne", false, 0); err != nil || len(s) != 0 {
		t.Errorf("FindSymbols(saveOne) after its removal = %v, %v", s, err)
	}
}

// TestOverlayOverSCIPRename: a renamed document inherits the base symbols
// of its old path, so the base's references still reach its definitions.
func TestOverlayOverSCIPRename(t *testing.T) {
	ctx := context.Background()
	root, st := preciseGoapp(t)
	const newMem = "scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/store/memstore`/New()."
	before := upstreamOf(t, st, newMem)
	if !slices.Contains(before, "d=1 "+preciseRun) {
		t.Fatalf("impact of memstore.New on the base = %v; lacks run at d=1", before)
	}
	cmd := exec.Command("git", "-C", root, "mv", "store/memstore/mem.go", "store/memstore/memory.go")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git mv: %v\n%s", err, out)
	}
	if _, err := overlay.Sync(ctx, st, root); err != nil {
		t.Fatal(err)
	}
	if after := upstreamOf(t, st, newMem); !slices.Equal(after, before) {
		t.Errorf("impact of memstore.New after renaming its file:\n got %v\nwant %v", after, before)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if s, ok, err := r.Symbol(ctx, newMem); err != nil || !ok || s.Def.Path != "store/memstore/memory.go" {
		t.Errorf("Symbol(memstore.New) = %+v, %v, %v; want it defined in the renamed file", s, ok, err)
	}
}

// TestImpactAndContextSyncTheLiveLayer: the impact and context commands
// bring the live layer up to date before answering, so a caller added
// since the SCIP import is listed; with the store held by another lspgraph
// the sync is skipped without a warning (the owner keeps its own overlay).
func TestImpactAndContextSyncTheLiveLayer(t *testing.T) {
	t.Parallel()
	root, st := preciseGoapp(t)
	dir := st.Dir()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	editFile(t, root, "cmd/goapp/main.go", func(s string) string {
		return s + "\nfunc saveOne(c *service.Catalog) error { return c.Save(\"k\", \"v\") }\n"
	})

	// Held by another lspgraph (a proxy): no sync, no warning.
	held, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "impact", "--store", dir, "--root", root, "--json", preciseSave)
	held.Close()
	switch {
	case strings.Contains(errs, "warning"):
		t.Errorf("impact with the store held elsewhere warned about the sync: %s", errs)
	case code == 0 && strings.Contains(out, "saveOne"):
		t.Errorf("impact with the store held elsewhere lists saveOne: the store was written under its owner")
	case code != 0 && !strings.Contains(errs, "in use"):
		t.Errorf("impact with the store held elsewhere: exit %d, %s; want the store-in-use message", code, errs)
	}

	code, out, errs = runCLI(t, "impact", "--store", dir, "--root", root, "--json", preciseSave)
	if code != 0 {
		t.Fatalf("impact: exit %d: %s", code, errs)
	}
	var a impact.Answer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("decoding JSON: %v\n%s", err, out)
	}
	var d1 []string
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			if g.Depth == 1 {
				d1 = append(d1, d.Symbol)
			}
		}
	}
	if !slices.Contains(d1, "syntax go example.com/goapp/cmd/goapp saveOne") || !slices.Contains(d1, preciseImport) {
		t.Errorf("impact d=1 = %v; want Catalog.Import and the new saveOne", d1)
	}

	code, out, errs = runCLI(t, "context", "--store", dir, "--root", root, "--json", preciseSave)
	if code != 0 {
		t.Fatalf("context: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "saveOne") {
		t.Errorf("context of Save does not mention the new caller saveOne:\n%s", out)
	}
}

// TestOverlayOverLSPCrawlKeepsIdentities: the same over a base crawled from
// gopls (`index --lsp`), whose symbols are named by location and whose
// methods are displayed in receiver form ("(*Catalog).Save").
func TestOverlayOverLSPCrawlKeepsIdentities(t *testing.T) {
	t.Parallel()
	gopls := lspServer(t, "gopls")
	ctx := context.Background()
	root, _ := preciseGoappRepo(t)
	dir := filepath.Join(t.TempDir(), "store")
	code, out, errs := runCLI(t, "index", "--lsp", "--store", dir, "--root", root, "--", gopls)
	if code != 0 {
		t.Fatalf("index --lsp: exit %d\n%s\n%s", code, out, errs)
	}
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const save, imp, caller = "lsp service/catalog.go:29:19", "lsp service/catalog.go:37:19", "syntax go example.com/goapp/cmd/goapp saveOne"
	before := upstreamOf(t, st, save)
	if !slices.Contains(before, "d=1 "+imp) || !slices.Contains(before, "d=2 lsp cmd/goapp/main.go:19:6") {
		t.Fatalf("impact of Save on the crawled base = %v; want Import at d=1 and run at d=2", before)
	}
	editFile(t, root, "service/catalog.go", func(s string) string {
		return strings.Replace(s, "\tn := 0\n", "\tn := 0\n\t// counted below\n", 1)
	})
	if _, err := overlay.Sync(ctx, st, root); err != nil {
		t.Fatal(err)
	}
	if after := upstreamOf(t, st, save); !slices.Equal(after, before) {
		t.Errorf("impact of Save after an edit inside Import:\n got %v\nwant %v", after, before)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	s, ok, err := r.Symbol(ctx, save)
	r.Close()
	if err != nil || !ok || s.DisplayName != "(*Catalog).Save" || s.Def.Path != "service/catalog.go" {
		t.Errorf("Symbol(%s) over the live document = %+v, %v, %v; want the base's name", save, s, ok, err)
	}
	editFile(t, root, "cmd/goapp/main.go", func(s string) string {
		return s + "\nfunc saveOne(c *service.Catalog) error { return c.Save(\"k\", \"v\") }\n"
	})
	if _, err := overlay.Sync(ctx, st, root); err != nil {
		t.Fatal(err)
	}
	got := upstreamOf(t, st, save)
	want := append(slices.Clone(before), "d=1 "+caller)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("impact of Save after adding saveOne:\n got %v\nwant %v", got, want)
	}
}
