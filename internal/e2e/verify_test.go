package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// verifyReport is the part of `lspgraph verify --json` the test checks.
type verifyReport struct {
	Compared  int     `json:"compared"`
	Failed    int     `json:"failed"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Drift     float64 `json:"drift"`
	Sources   []struct {
		Layer, Source string
		Symbols       int
	} `json:"sources"`
	Worst   []worstSymbol `json:"worst"`
	Callers *callerStat   `json:"callers"`
	Errors  []string      `json:"errors"`
	Server  string        `json:"server"`
	Over    bool          `json:"over"`
}

// callerStat is a verify report's pooled caller comparison.
type callerStat struct {
	Symbols   int     `json:"symbols"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

// worstSymbol is one of the worst symbols of a verify report.
type worstSymbol struct {
	Name    string   `json:"name"`
	Def     string   `json:"def"`
	Missing []string `json:"missing"`
	Extra   []string `json:"extra"`
	Callers *struct {
		Missing []string `json:"missing"`
		Extra   []string `json:"extra"`
	} `json:"callers"`
}

// runVerify runs `lspgraph verify --json ARGS -- SERVER` and returns its
// report and exit code.
func runVerify(t *testing.T, root, store string, server []string, args ...string) (verifyReport, int) {
	t.Helper()
	argv := append([]string{"verify", "--json", "--root", root, "--store", store}, args...)
	cmd := exec.Command(lspgraphBin(t), append(append(argv, "--"), server...)...)
	cmd.Dir = root
	var stderr []byte
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code, stderr = ee.ExitCode(), ee.Stderr
	case err != nil:
		t.Fatalf("lspgraph %v: %v", argv, err)
	}
	var rep verifyReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("lspgraph %v (exit %d): decoding %s: %v\n%s", argv, code, out, err, stderr)
	}
	t.Logf("lspgraph %v: exit %d\n%s", argv, code, out)
	return rep, code
}

// TestVerifyGoapp audits goapp's SCIP import against gopls: every sampled
// function, method and type agrees (the calls through store.Store that
// gopls counts as references of the memstore and filestore methods are
// the interface method's references in the graph, which the audit
// follows through the implements edges), so drift is 0 and the exit code
// 0. Then a caller of service.NewCatalog is written on disk, which the
// base layer does not know: `verify --layer base --max-drift 0` exits 1
// and names NewCatalog with the new site missing.
func TestVerifyGoapp(t *testing.T) {
	t.Parallel()
	gopls := []string{goplsPath(t)}
	root := fixture(t, "goapp")
	store := filepath.Join(t.TempDir(), "store")
	importSCIP(t, store, root, "goapp.scip")

	rep, code := runVerify(t, root, store, gopls)
	if code != 0 || rep.Compared == 0 || rep.Failed != 0 || rep.Precision != 1 || rep.Recall != 1 || rep.Drift != 0 || len(rep.Worst) != 0 {
		t.Fatalf("verify of the fresh import: exit %d, %+v; want exit 0, precision and recall 1, drift 0, no worst symbols", code, rep)
	}
	if len(rep.Sources) != 1 || rep.Sources[0].Layer != "base" || rep.Sources[0].Source != "scip" || rep.Sources[0].Symbols != rep.Compared {
		t.Errorf("sources %+v; want base/scip alone with all %d symbols", rep.Sources, rep.Compared)
	}
	// gopls's incoming calls of a concrete method include the calls
	// through the interface (Catalog.Save calls c.st.Put), which the graph
	// records on store.Store's Put.
	if c := rep.Callers; c == nil || c.Symbols == 0 || c.Precision != 1 || c.Recall != 1 || len(rep.Errors) != 0 {
		t.Errorf("callers %+v, errors %v; want callers compared with precision and recall 1, no errors", c, rep.Errors)
	}

	// Appended, so no site the graph knows moves.
	main := filepath.Join(root, "cmd", "goapp", "main.go")
	text, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	text = append(text, "\nfunc another() *service.Catalog {\n\treturn service.NewCatalog(memstore.New())\n}\n"...)
	if err := os.WriteFile(main, text, 0o644); err != nil {
		t.Fatal(err)
	}
	newSite := "cmd/goapp/main.go:" + strconv.Itoa(bytes.Count(text, []byte("\n"))-1)

	rep, code = runVerify(t, root, store, gopls, "--layer", "base", "--max-drift", "0")
	if code != 1 || rep.Drift <= 0 {
		t.Fatalf("verify after adding a caller: exit %d, drift %v; want exit 1 and drift > 0", code, rep.Drift)
	}
	i := slices.IndexFunc(rep.Worst, func(w worstSymbol) bool { return w.Name == "NewCatalog" })
	if i < 0 || !slices.Contains(rep.Worst[i].Missing, newSite) || len(rep.Worst[i].Extra) != 0 {
		t.Fatalf("worst symbols %+v; want NewCatalog missing %s and nothing extra", rep.Worst, newSite)
	}
}

// TestVerifyServers audits the SCIP imports of the TypeScript and Python
// fixtures against typescript-language-server and pyright, then makes each
// import stale on purpose: a new caller of quote appended on disk, which
// `--layer base --max-drift 0` must report (exit 1, the site missing).
//
// The fresh TypeScript import agrees on every reference site once verify
// accounts for what tsserver and scip-typescript disagree on by design
// (drift.related): `new C()` is C's reference for tsserver and C's
// constructor's for the indexer (at a constructor tsserver answers the
// class's references, the export line of pricing/src/index.ts among
// them), and tsserver lists the definitions of the methods of an
// implements hierarchy (PriceRule.apply, FlatRule.apply,
// PercentRule.apply) among each one's references. Its callers differ in
// two places, both calls from package order into package pricing:
// tsserver's incoming calls stay inside the project of the item, so
// Order.linePrice (calling quote) and checkout (calling new PercentRule)
// are graph callers the server does not report. pyright agrees on both.
func TestVerifyServers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, fixture, dump string
		server              func(t *testing.T) []string
		// edit is appended to file: a new caller of quote on the line
		// before the last.
		file, edit string
		// extraCallers are the graph callers the server does not report.
		extraCallers []string
	}{
		{
			name: "typescript-language-server", fixture: "tsworkspace", dump: "tsworkspace.scip",
			server: func(t *testing.T) []string {
				return []string{needTool(t, "typescript-language-server"), "--stdio"}
			},
			file: "packages/order/src/index.ts", edit: "\nexport function again(): number {\n  return quote(1, 2);\n}\n",
			extraCallers: []string{"packages/order/src/index.ts:28", "packages/order/src/index.ts:44"},
		},
		{
			name: "pyright", fixture: "pyproject", dump: "pyproject.scip",
			server: func(t *testing.T) []string {
				return []string{needTool(t, "pyright-langserver"), "--stdio"}
			},
			file: "shop/orders.py", edit: "\n\ndef again() -> int:\n    return pricing.quote(1, 2)\n\n",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			server := c.server(t)
			root := fixture(t, c.fixture)
			store := filepath.Join(t.TempDir(), "store")
			importSCIP(t, store, root, c.dump)

			rep, code := runVerify(t, root, store, server)
			if code != 0 || rep.Compared == 0 || rep.Failed != 0 || rep.Precision != 1 || rep.Recall != 1 || rep.Drift != 0 || len(rep.Errors) != 0 {
				t.Fatalf("verify of the fresh import: exit %d, %+v; want exit 0, precision and recall 1, drift 0, no errors", code, rep)
			}
			var extra []string
			for _, w := range rep.Worst {
				if len(w.Missing)+len(w.Extra) > 0 {
					t.Errorf("worst symbol %+v has reference sites in disagreement", w)
				}
				if w.Callers != nil {
					if len(w.Callers.Missing) > 0 {
						t.Errorf("%s %s: callers the graph lacks: %v", w.Name, w.Def, w.Callers.Missing)
					}
					extra = append(extra, w.Callers.Extra...)
				}
			}
			slices.Sort(extra)
			if rep.Callers == nil || rep.Callers.Symbols == 0 || !slices.Equal(extra, c.extraCallers) {
				t.Errorf("callers %+v with extra callers %v; want them compared, extra exactly %v", rep.Callers, extra, c.extraCallers)
			}

			path := filepath.Join(root, filepath.FromSlash(c.file))
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			text = append(text, c.edit...)
			if err := os.WriteFile(path, text, 0o644); err != nil {
				t.Fatal(err)
			}
			newSite := c.file + ":" + strconv.Itoa(bytes.Count(text, []byte("\n"))-1)
			rep, code = runVerify(t, root, store, server, "--layer", "base", "--max-drift", "0")
			if code != 1 || rep.Drift <= 0 || !rep.Over {
				t.Fatalf("verify after adding a caller: exit %d, drift %v, over %v; want exit 1 and drift > 0", code, rep.Drift, rep.Over)
			}
			i := slices.IndexFunc(rep.Worst, func(w worstSymbol) bool { return w.Name == "quote" })
			if i < 0 || !slices.Contains(rep.Worst[i].Missing, newSite) || len(rep.Worst[i].Extra) != 0 {
				t.Fatalf("worst symbols %+v; want quote missing %s and nothing extra", rep.Worst, newSite)
			}
		})
	}
}

// askVerify sends lspgraph.verify with arg through the proxy, asking again
// while gopls is still loading (the session refuses to audit a server
// that is not ready) and until done accepts the report.
func askVerify(t *testing.T, c *lspClient, arg any, done func(verifyReport) bool) verifyReport {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		raw, err := c.call("workspace/executeCommand", map[string]any{"command": "lspgraph.verify", "arguments": []any{arg}})
		var rep verifyReport
		if err == nil {
			if err := json.Unmarshal(raw, &rep); err != nil {
				t.Fatalf("decoding lspgraph.verify's answer %.500s: %v", raw, err)
			}
			if done(rep) {
				return rep
			}
		} else if !strings.Contains(err.Error(), "not ready") && !strings.Contains(err.Error(), "is opening") {
			// The server still loading, or the store still opening on a
			// loaded machine, is asked again; anything else fails.
			t.Fatalf("lspgraph.verify %v: %v", arg, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("lspgraph.verify %v: no accepted answer within 2 minutes; last %+v, %v", arg, rep, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestProxyVerifyGopls asks lspgraph.verify inside `lspgraph proxy --
// gopls` on goapp's SCIP import: the audit runs against the editor's warm
// gopls and answers what `lspgraph verify --json` prints. The fresh
// import agrees everywhere (references and callers). Then a caller of
// NewCatalog is written on disk and gopls is told (as an editor's file
// watcher does): the base layer lacks it, so {"layer": "base",
// "maxDrift": 0} is over, with the new site missing.
func TestProxyVerifyGopls(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	importSCIP(t, store, root, "goapp.scip")
	logFile := filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	c := startClient(t, "lspgraph proxy -- gopls", root, proxyArgv(t, store, logFile, []string{gopls})...)
	c.initialize(nil)
	c.open("service/catalog.go", "go")

	rep := askVerify(t, c, map[string]any{}, func(verifyReport) bool { return true })
	if rep.Server != "gopls" || rep.Compared == 0 || rep.Failed != 0 || rep.Precision != 1 || rep.Recall != 1 || rep.Drift != 0 || rep.Over || len(rep.Worst) != 0 || len(rep.Errors) != 0 {
		t.Fatalf("lspgraph.verify of the fresh import: %+v; want gopls, precision and recall 1, drift 0, no worst symbols", rep)
	}
	if cs := rep.Callers; cs == nil || cs.Symbols == 0 || cs.Precision != 1 || cs.Recall != 1 {
		t.Errorf("lspgraph.verify callers %+v; want compared, precision and recall 1", cs)
	}

	main := filepath.Join(root, "cmd", "goapp", "main.go")
	text, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	text = append(text, "\nfunc another() *service.Catalog {\n\treturn service.NewCatalog(memstore.New())\n}\n"...)
	if err := os.WriteFile(main, text, 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": c.uri("cmd/goapp/main.go"), "type": 2}}})
	newSite := "cmd/goapp/main.go:" + strconv.Itoa(bytes.Count(text, []byte("\n"))-1)
	missing := func(r verifyReport) bool {
		i := slices.IndexFunc(r.Worst, func(w worstSymbol) bool { return w.Name == "NewCatalog" })
		return i >= 0 && slices.Contains(r.Worst[i].Missing, newSite)
	}
	// gopls reads the change in its own time.
	rep = askVerify(t, c, map[string]any{"layer": "base", "maxDrift": 0}, missing)
	if !rep.Over || rep.Drift <= 0 {
		t.Errorf("lspgraph.verify of the base layer after a new caller: over %v, drift %v; want over, drift > 0", rep.Over, rep.Drift)
	}
	c.shutdown()
}
