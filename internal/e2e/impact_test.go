package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
)

// TestImpactLiveOnly checks lspgraph.impact's verification against the live
// server: the base layer (testdata/scip/goapp.scip) is made to lack run's
// call of (*Catalog).Import (cmd/goapp/main.go:21), as an index built
// before that call was written would; gopls knows it. Asked through the
// proxy, the answer lists run at depth 1 marked live-only, and after the
// session the graph holds the call.
func TestImpactLiveOnly(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	importSCIP(t, store, root, "goapp.scip")

	const cat, main = "service/catalog.go", "cmd/goapp/main.go"
	target := dropReferences(t, store, root, main)

	c := startClient(t, "lspgraph proxy -- gopls", root, proxyArgv(t, store, logFile, []string{gopls})...)
	c.initialize(nil)
	c.open(cat, "go")
	// gopls answers once it has loaded the workspace.
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": c.uri(cat)}})
	arg := c.docPos(cat, posOf(t, root, cat, 37, "Import")) // verified by default
	raw := c.mustCall("workspace/executeCommand", map[string]any{"command": "lspgraph.impact", "arguments": []any{arg}})
	c.shutdown()

	a := decodeImpact(t, raw)
	if a.Target == nil || a.Target.Symbol != target {
		t.Fatalf("lspgraph.impact at Import answered for %+v; want %s", a.Target, target)
	}
	if v := a.Verification; v == nil || !v.Ran || v.Error != "" {
		t.Fatalf("lspgraph.impact through the proxy did not verify against gopls: %+v\n%s", v, raw)
	}
	// TestImport is in the graph and in gopls's answer; run only in gopls's.
	wantSites(t, "impact d=1 of Import, with verification", a.depth(1, true),
		"TestImport service/catalog_test.go:9 /verified", "run cmd/goapp/main.go:19 /live-only")
	if a.Verification.LiveOnly != 1 || len(a.LiveOnly) != 1 {
		t.Errorf("verification counts %d live-only dependents and lists %d live-only sites; want 1 and 1: %s",
			a.Verification.LiveOnly, len(a.LiveOnly), raw)
	}

	t.Logf("verification %+v, live-only sites %s", *a.Verification, a.LiveOnly)

	// The proxy wrote the site it learned into the live layer.
	r := reader(t, store)
	refs, err := r.References(context.Background(), target, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sites []string
	for _, o := range refs {
		if o.Path == main {
			sites = append(sites, o.Range.String())
		}
	}
	if want := "21:14-21:20"; !slices.Contains(sites, want) {
		t.Errorf("after the session the graph has references to %s in %s at %v; want %s (c.Import in run)", target, main, sites, want)
	}
}

// dropReferences rewrites the base facts of document path without its
// references to (*Catalog).Import and the edges they justify, and returns
// Import's symbol. It checks that the base had them before.
func dropReferences(t *testing.T, store, root, path string) (target string) {
	t.Helper()
	ctx := context.Background()
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	st, err := graph.Open(store, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	target = defAt(t, r, root, "service/catalog.go", 37, "Import")
	r.Close()

	// The document's facts as the importer makes them.
	f, err := os.Open(filepath.Join(mod, "testdata", "scip", "goapp.scip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var facts graph.DocumentFacts
	found := false
	_, err = scip.ConvertStream(ctx, f, scip.Options{Root: root}, func(_ context.Context, df graph.DocumentFacts) error {
		if df.Document.Path == path {
			facts, found = df, true
		}
		return nil
	})
	if err != nil || !found {
		t.Fatalf("converting goapp.scip: %v (document %s found: %v)", err, path, found)
	}
	n := len(facts.Occurrences)
	facts.Occurrences = slices.DeleteFunc(facts.Occurrences, func(o graph.Occurrence) bool { return o.Symbol == target })
	facts.Edges = slices.DeleteFunc(facts.Edges, func(e graph.Edge) bool { return e.To == target })
	if len(facts.Occurrences) != n-1 {
		t.Fatalf("%s held %d references to %s in the dump; want 1", path, n-len(facts.Occurrences), target)
	}
	if err := st.PutDocument(ctx, graph.Base, facts); err != nil {
		t.Fatal(err)
	}

	// The base now lacks run as a caller of Import.
	r, err = st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	in, err := r.Incoming(ctx, target, graph.EdgeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range in {
		if e.Path == path {
			t.Fatalf("after rewriting %s the graph still has %+v", path, e)
		}
	}
	return target
}
