package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchPaths runs lspgraph.search through the proxy and returns the hits'
// paths.
func searchPaths(t *testing.T, a map[string]any) []string {
	t.Helper()
	hits, _ := a["hits"].([]any)
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprint(h.(map[string]any)["path"]))
	}
	return out
}

// waitSearch repeats lspgraph.search until ok accepts its hits' paths.
func waitSearch(t *testing.T, call func(id int) map[string]any, ok func([]string) bool, what string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(overlayBound)
	for id := 0; ; id++ {
		a := call(id)
		if ok(searchPaths(t, a)) {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: hits %v, freshness %v", what, searchPaths(t, a), a["freshness"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestProxySearchFreshness: a word typed into an unsaved buffer is found
// by lspgraph.search through the proxy, with the buffer's document served
// by the live layer; after didClose and the file's deletion the word is
// gone and the file is no hit for anything.
func TestProxySearchFreshness(t *testing.T) {
	ed, root, _ := overlaySession(t, false)
	mainGo := filepath.Join(root, "cmd", "goapp", "main.go")
	const word = "zanzibarquota"
	ask := func(base int) func(int) map[string]any {
		return func(id int) map[string]any {
			return execCommand(t, ed, base+id, "lspgraph.search", `[{"query":"`+word+` zanzibar"}]`)
		}
	}
	if a := execCommand(t, ed, 2, "lspgraph.search", `["catalog"]`); len(searchPaths(t, a)) == 0 {
		t.Fatalf("search for catalog on the base found nothing: %v", a)
	}
	if p := searchPaths(t, execCommand(t, ed, 3, "lspgraph.search", `["`+word+`"]`)); len(p) != 0 {
		t.Fatalf("the word is found before it is typed: %v", p)
	}

	didOpen(t, ed, mainGo)
	didInsert(t, ed, mainGo, 2, 27, "\n// zanzibarQuota caps the orders of one day.\nfunc zanzibarQuota() int { return 3 }\n")
	a := waitSearch(t, ask(100), func(p []string) bool { return len(p) > 0 && p[0] == "cmd/goapp/main.go" }, "the unsaved word is never found")
	hit := a["hits"].([]any)[0].(map[string]any)
	if hit["layer"] != "live" {
		t.Errorf("the buffer's hit is served by the %v layer, want live", hit["layer"])
	}
	matches := fmt.Sprint(hit["matches"])
	for _, want := range []string{"zanzibarquota", "name:1", "doc:1"} {
		if !strings.Contains(matches, want) {
			t.Errorf("matches %s lack %q", matches, want)
		}
	}

	ed.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":%q}}}`, fileURI(mainGo)))
	if err := os.Remove(mainGo); err != nil {
		t.Fatal(err)
	}
	waitSearch(t, ask(600), func(p []string) bool { return len(p) == 0 }, "the word outlives the buffer and the file")
	a = execCommand(t, ed, 2000, "lspgraph.search", `["goapp main catalog"]`)
	if p := searchPaths(t, a); strings.Contains(fmt.Sprint(p), "cmd/goapp/main.go") {
		t.Errorf("the deleted file is still a hit: %v", p)
	}
}

// TestSearchCLI: lspgraph search over a syntax index of goapp finds the
// catalog's file by words of its comments and names, in each output
// format, and context --query builds the pack around the definition whose
// name holds the most query words.
func TestSearchCLI(t *testing.T) {
	root, store := proxyFixtureRepo(t, false)
	runCLI := func(args ...string) (string, string, int) {
		var stdout, stderr strings.Builder
		e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		code := run(context.Background(), e, append(args[:1:1], append([]string{"--store", store, "--root", root}, args[1:]...)...))
		return stdout.String(), stderr.String(), code
	}
	out, errOut, code := runCLI("search", "--limit", "2", "product", "names", "by", "sku")
	if code != 0 {
		t.Fatalf("search exited %d: %s", code, errOut)
	}
	// service/catalog.go: "Catalog maps SKUs to product names." and Lookup
	// "returns the product name for sku".
	for _, want := range []string{"words: product nam sku", " 1. service/catalog.go", "sku (", "bm25 "} {
		if !strings.Contains(out, want) {
			t.Errorf("search output lacks %q:\n%s", want, out)
		}
	}
	md, _, _ := runCLI("search", "--format", "markdown", "--limit", "1", "product", "sku")
	if !strings.HasPrefix(md, "## Search: product sku") || !strings.Contains(md, "1. `service/catalog.go`") {
		t.Errorf("markdown output:\n%s", md)
	}
	js, _, _ := runCLI("search", "--json", "--limit", "1", "product", "sku")
	if !strings.Contains(js, `"path": "service/catalog.go"`) || !strings.Contains(js, `"freshness"`) {
		t.Errorf("JSON output:\n%s", js)
	}
	if _, errOut, code := runCLI("search", "--scope", "package", "sku"); code != 2 || !strings.Contains(errOut, "unknown scope") {
		t.Errorf("search --scope package exited %d: %s", code, errOut)
	}
	out, errOut, code = runCLI("context", "--budget", "400", "--query", "describe a product for display")
	if code != 0 {
		t.Fatalf("context --query exited %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "context for Describe") || !strings.Contains(out, "Describe") {
		t.Errorf("context --query did not start from Describe:\n%s\n%s", errOut, out)
	}
}
