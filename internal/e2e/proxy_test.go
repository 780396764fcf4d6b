package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// proxyArgv is the command line an editor configures: lspgraph proxy in
// front of the server, with the store and log in the test's directory.
func proxyArgv(t testing.TB, store, logFile string, server []string) []string {
	return append([]string{lspgraphBin(t), "proxy", "--store", store, "--log", logFile, "--"}, server...)
}

// logOnFailure logs a file's tail at cleanup when the test failed.
func logOnFailure(t testing.TB, what, path string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Logf("%s: %v", what, err)
			return
		}
		t.Logf("%s (last 6000 bytes):\n%s", what, tail(string(data), 6000))
	})
}

// directAndProxied plays sc against the server directly and then through
// `lspgraph proxy --store STORE`, on the same copy of the fixture, and
// compares every answer. It returns the copy's root, the store directory
// (the proxy has exited, so it can be opened) and the proxied session.
func directAndProxied(t *testing.T, sc scenario) (root, store string, proxied session) {
	server := sc.argv(t) // skips when the server is missing
	lspgraphBin(t)
	root = fixture(t, sc.fixture)
	dir := t.TempDir()
	store = filepath.Join(dir, "store")
	logFile := filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)

	direct := play(t, sc, sc.name, root, server)
	direct.client.shutdown()
	if t.Failed() {
		t.FailNow() // the direct answers are the reference: they must be right
	}

	if sc.base != "" {
		importSCIP(t, store, root, sc.base)
	}
	proxied = play(t, sc, "lspgraph proxy -- "+sc.name, root, proxyArgv(t, store, logFile, server))
	added := compareInitialize(t, sc.name, direct.init, proxied.init)
	t.Logf("%s: the proxy added %v to the server's commands", sc.name, added)
	compareAnswers(t, sc.name, direct.answers, proxied.answers)
	// The server's own requests (configuration, progress, registrations)
	// reach the editor through the proxy, and the editor's answers reach
	// the server: the same kinds arrive as without it.
	if d, p := methodSet(direct.client.requestsFromServer()), methodSet(proxied.client.requestsFromServer()); !slices.Equal(d, p) || len(d) == 0 {
		t.Errorf("%s: requests from the server: direct %v, through the proxy %v", sc.name, d, p)
	}
	if sc.proxied != nil {
		sc.proxied(t, proxied.client)
	}

	status := proxied.client.mustCall("workspace/executeCommand", map[string]any{"command": "lspgraph.status"})
	checkStatus(t, status, sc.name)
	proxied.client.shutdown()
	return root, store, proxied
}

// methodSet returns the distinct methods, sorted.
func methodSet(methods []string) []string {
	out := slices.Clone(methods)
	slices.Sort(out)
	return slices.Compact(out)
}

// proxyStatus is the part of lspgraph.status the tests check.
type proxyStatus struct {
	Proxy struct {
		Server     string   `json:"server"`
		ServerArgs []string `json:"serverArgs"`
		PID        int      `json:"pid"`
		Commands   []string `json:"commands"`
		Stats      struct {
			FromEditor int64 `json:"fromEditor"`
			FromServer int64 `json:"fromServer"`
			Observed   int64 `json:"observed"`
			Dropped    int64 `json:"dropped"`
		} `json:"stats"`
	} `json:"proxy"`
	Store      json.RawMessage `json:"store"`
	StoreError string          `json:"storeError"`
}

// checkStatus checks lspgraph.status after a session: it names the server,
// counts the forwarded frames, and reports the store without error.
func checkStatus(t testing.TB, raw json.RawMessage, server string) proxyStatus {
	t.Helper()
	var st proxyStatus
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("decoding lspgraph.status %s: %v", raw, err)
	}
	p := st.Proxy
	if p.Server == "" || p.PID == 0 || p.Stats.FromEditor == 0 || p.Stats.FromServer == 0 || p.Stats.Observed == 0 {
		t.Errorf("lspgraph.status of a %s session lacks the server, its pid or message counts: %s", server, raw)
	}
	if p.Stats.Dropped != 0 {
		t.Errorf("lspgraph.status: %d observations dropped in a small session: %s", p.Stats.Dropped, raw)
	}
	if !contains(p.Commands, "lspgraph.status") {
		t.Errorf("lspgraph.status lists commands %v, without itself", p.Commands)
	}
	if st.StoreError != "" || len(st.Store) == 0 || string(st.Store) == "null" {
		t.Errorf("lspgraph.status reports no store (error %q): %s", st.StoreError, raw)
	}
	return st
}

// openStore opens a store read-only once the proxy that held it has
// exited and released its lock (retrying for a few seconds).
func openStore(t testing.TB, dir string) *graph.Store {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := graph.Open(dir, graph.Options{ReadOnly: true})
		if err == nil {
			t.Cleanup(func() { st.Close() })
			return st
		}
		if !errors.Is(err, graph.ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("opening the proxy's store %s: %v", dir, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// defAt returns the symbol the graph defines at the first occurrence of
// needle on a 1-based line of path (an ASCII line, so the LSP column is the
// byte column).
func defAt(t testing.TB, r *graph.Reader, root, path string, line int, needle string) string {
	t.Helper()
	p := posOf(t, root, path, line, needle)
	occs, err := r.SymbolsAt(context.Background(), path, textpos.Position{Line: uint32(p.Line), Col: uint32(p.Character)})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range occs {
		if o.Roles&graph.RoleDefinition != 0 {
			return o.Symbol
		}
	}
	t.Fatalf("the graph has no definition at %s:%d (%q); occurrences there: %+v", path, line, needle, occs)
	return ""
}

// liveReferences returns the symbol defined at needle on line of path and
// its non-definition occurrences as sorted "path:line" strings.
func liveReferences(t testing.TB, r *graph.Reader, root, path string, line int, needle string) (sym string, refs []string) {
	t.Helper()
	sym = defAt(t, r, root, path, line, needle)
	all, err := r.References(context.Background(), sym, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range all {
		if o.Roles&graph.RoleDefinition == 0 {
			refs = append(refs, fmt.Sprintf("%s:%d", o.Path, o.Range.Start.Line+1))
		}
	}
	sortStrings(refs)
	return sym, refs
}

func TestProxyGopls(t *testing.T) {
	t.Parallel()
	root, store, _ := directAndProxied(t, goplsScenario())
	r := reader(t, store)
	ctx := context.Background()
	doc, ok, err := r.Document(ctx, "service/catalog.go")
	if err != nil || !ok || doc.Layer != graph.Live {
		t.Fatalf("after the session the graph has service/catalog.go = %+v, %v (err %v); want a live document", doc, ok, err)
	}
	// references of (*Catalog).Save: one call, in Import (catalog.go:44).
	sym, refs := liveReferences(t, r, root, "service/catalog.go", 29, "Save")
	wantSites(t, "graph references of "+sym, refs, "service/catalog.go:44")
	// incomingCalls of Save: a calls edge from Import, observed live.
	imp := defAt(t, r, root, "service/catalog.go", 37, "Import")
	in, err := r.Incoming(ctx, sym, graph.EdgeFilter{Kinds: []graph.EdgeKind{graph.EdgeCalls}})
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 1 || in[0].From != imp || in[0].Layer != graph.Live || in[0].Source != graph.SourceLSP {
		t.Errorf("graph calls into %s = %+v; want one live LSP edge from %s", sym, in, imp)
	}
}

func TestProxyGoplsWorkspace(t *testing.T) {
	t.Parallel()
	root, store, _ := directAndProxied(t, goworkScenario())
	r := reader(t, store)
	sym, refs := liveReferences(t, r, root, "pricing/pricing.go", 6, "Quote")
	wantSites(t, "graph references of "+sym, refs, "billing/billing.go:16", "pricing/pricing_test.go:6")
}

func TestProxyTypeScript(t *testing.T) {
	t.Parallel()
	root, store, _ := directAndProxied(t, tsScenario())
	r := reader(t, store)
	// The import binding (order/src/index.ts:1) and the call in linePrice (:29).
	sym, refs := liveReferences(t, r, root, "packages/pricing/src/index.ts", 7, "quote")
	wantSites(t, "graph references of "+sym, refs, "packages/order/src/index.ts:1", "packages/order/src/index.ts:29")
}

func TestProxyPyright(t *testing.T) {
	t.Parallel()
	root, store, _ := directAndProxied(t, pyrightScenario())
	r := reader(t, store)
	// pricing.quote(...) in Order.line_price.
	sym, refs := liveReferences(t, r, root, "shop/pricing.py", 34, "quote")
	wantSites(t, "graph references of "+sym, refs, "shop/orders.py:31")
}

// reader opens the store the proxy wrote and a reader on it.
func reader(t testing.TB, dir string) *graph.Reader {
	t.Helper()
	r, err := openStore(t, dir).Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// importSCIP imports testdata/scip/NAME into store as the base layer, with
// root as the workspace root, through `lspgraph scip import`.
func importSCIP(t testing.TB, store, root, name string) {
	t.Helper()
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(mod, "testdata", "scip", name)
	cmd := exec.Command(lspgraphBin(t), "scip", "import", "--store", store, "--root", root, "--commit", "fixture", "--json", dump)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lspgraph scip import %s: %v\n%s", name, err, out)
	}
}

// impactAnswer is the part of lspgraph.impact's answer the tests check.
type impactAnswer struct {
	Target *struct {
		Symbol string `json:"symbol"`
		Name   string `json:"name"`
	} `json:"target"`
	Depths []struct {
		Depth      int         `json:"depth"`
		Dependents []dependent `json:"dependents"`
	} `json:"depths"`
	Dispatch     []dependent `json:"dispatch"`
	Verification *struct {
		Ran       bool   `json:"ran"`
		Error     string `json:"error"`
		LiveSites int    `json:"liveSites"`
		Verified  int    `json:"verified"`
		GraphOnly int    `json:"graphOnly"`
		LiveOnly  int    `json:"liveOnly"`
	} `json:"verification"`
	LiveOnly  []json.RawMessage `json:"liveOnly"`
	Partial   bool              `json:"partial"`
	Freshness struct {
		BaseTool string   `json:"baseTool"`
		Dirty    []string `json:"dirty"`
	} `json:"freshness"`
}

type dependent struct {
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Location *struct {
		Path string `json:"path"`
		Line int    `json:"line"`
	} `json:"location"`
	Verification string `json:"verification"`
	Test         bool   `json:"test"`
}

// String is "name path:line".
func (d dependent) String() string {
	s := d.Name
	if d.Location != nil {
		s += fmt.Sprintf(" %s:%d", d.Location.Path, d.Location.Line)
	}
	return s
}

func decodeImpact(t testing.TB, raw json.RawMessage) impactAnswer {
	t.Helper()
	var a impactAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("decoding lspgraph.impact's answer %s: %v", raw, err)
	}
	return a
}

// depth returns the dependents at depth d as sorted strings; with marks,
// each is followed by " /" and its verification mark.
func (a impactAnswer) depth(d int, marks bool) []string {
	var out []string
	for _, g := range a.Depths {
		if g.Depth == d {
			for _, x := range g.Dependents {
				s := x.String()
				if marks {
					s += " /" + x.Verification
				}
				out = append(out, s)
			}
		}
	}
	sortStrings(out)
	return out
}
