package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/workspace"
)

// goapp opens a session over testdata/scip/goapp.scip imported into a
// temporary store.
func goapp(t *testing.T) SessionAsker {
	t.Helper()
	root, dir := goappStore(t)
	s, err := workspace.Open(workspace.Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return SessionAsker{Root: root, Session: s}
}

// goappStore imports testdata/scip/goapp.scip into a temporary store for a
// copy of testdata/goapp in a repository of its own, and returns the
// copy's root and the store's directory.
func goappStore(t *testing.T) (string, string) {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// A copy in a repository of its own, so that changes has a base
	// commit and edits touch nothing else.
	root := filepath.Join(t.TempDir(), "goapp")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(repo, "testdata", "goapp"))); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base"}} {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	dir := t.TempDir()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(repo, "testdata", "scip", "goapp.scip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	if _, err := scip.Import(context.Background(), st, f, scip.Options{Root: root, Commit: strings.TrimSpace(string(head))}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	return root, dir
}

// connect runs a server in process and returns a connected client.
func connect(t *testing.T, a Asker, o Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(a, o).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// answerTokens is the estimate the cap is held to.
func answerTokens(t *testing.T, r *mcp.CallToolResult) int {
	raw, err := json.Marshal(r.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return tokens(len(text(r)) + len(raw))
}

func TestToolsList(t *testing.T) {
	cs := connect(t, goapp(t), Options{Root: "/nowhere"})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"status":  {"root"},
		"symbols": {"query", "kind", "limit", "root"},
		"impact":  {"target", "depth", "direction", "include_tests", "min_confidence", "root"},
		"context": {"target", "budget", "scope", "root"},
		"changes": {"base", "staged", "root"},
		"search":  {"query", "limit", "scope", "from", "root"},
	}
	if len(res.Tools) != len(want) {
		t.Errorf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		props, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		if tool.Description == "" || tool.OutputSchema == nil {
			t.Errorf("%s: no description or output schema", tool.Name)
		}
		if b, _ := json.Marshal(tool.OutputSchema); !strings.HasPrefix(string(b), `{`) || !strings.Contains(string(b), `"type":"object"`) {
			t.Errorf("%s: output schema %s is not an object's", tool.Name, b)
		}
		var in struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		b, _ := json.Marshal(tool.InputSchema)
		json.Unmarshal(b, &in)
		if len(in.Properties) != len(props) {
			t.Errorf("%s: properties %v, want %v", tool.Name, in.Properties, props)
		}
		for _, p := range props {
			if _, ok := in.Properties[p]; !ok {
				t.Errorf("%s: no argument %s", tool.Name, p)
			}
		}
		switch tool.Name {
		case "impact", "context":
			if fmt.Sprint(in.Required) != "[target]" {
				t.Errorf("%s requires %v", tool.Name, in.Required)
			}
		case "symbols", "search":
			if fmt.Sprint(in.Required) != "[query]" {
				t.Errorf("%s requires %v", tool.Name, in.Required)
			}
		}
	}
}

// outputSchemas resolves each tool's output schema.
func outputSchemas(t *testing.T, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		out[tool.Name] = r
	}
	return out
}

// conforms checks an answer's structured content against its tool's
// output schema, as clients do.
func conforms(t *testing.T, schemas map[string]*jsonschema.Resolved, tool string, r *mcp.CallToolResult) {
	t.Helper()
	b, _ := json.Marshal(r.StructuredContent)
	var v any
	json.Unmarshal(b, &v)
	if err := schemas[tool].Validate(v); err != nil {
		t.Errorf("%s: structured content does not match the output schema: %v\n%s", tool, err, b)
	}
}

func TestTools(t *testing.T) {
	a := goapp(t)
	cs := connect(t, a, Options{Root: a.Root})
	schemas := outputSchemas(t, cs)
	// A function added after the base, for changes.
	cat := filepath.Join(a.Root, "service", "catalog.go")
	orig, err := os.ReadFile(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string // in the text
	}{
		{"status", nil, []string{"base: 7 documents", "scip-go", "**Freshness:** base "}},
		{"symbols", map[string]any{"query": "Catalog.S"}, []string{"`Catalog.Save` method", "target: `Catalog.Save`"}},
		{"search", map[string]any{"query": "save to the catalog", "limit": 3}, []string{"## Search `save to the catalog`", "1. `service/catalog.go` — matched sav (doc×2 name×1), catalog (doc×5 name×2 path×1)", "(test)", "**Freshness:**"}},
		{"impact", map[string]any{"target": "Catalog.Save"}, []string{"## Impact of `Catalog.Save`", "Risk **", "d=1 will break", "**Freshness:**"}},
		{"impact", map[string]any{"target": "Catalog.Save", "direction": "downstream", "depth": 1}, []string{"## Dependencies of"}},
		{"context", map[string]any{"target": "Catalog.Save", "budget": 2000}, []string{"## Context for", "```go", "**Freshness:**"}},
		{"changes", map[string]any{}, []string{"## Changes since", "service/catalog.go", "added `Extra`", "**Freshness:**"}},
	} {
		if c.tool == "changes" {
			os.WriteFile(cat, append(append([]byte{}, orig...), "\nfunc Extra() int { return 1 }\n"...), 0o644)
		}
		res, err := call(t, cs, c.tool, c.args)
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		txt := text(res)
		if res.IsError {
			t.Errorf("%s %v: tool error %s", c.tool, c.args, txt)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(txt, w) {
				t.Errorf("%s %v: %q not in\n%s", c.tool, c.args, w, txt)
			}
		}
		conforms(t, schemas, c.tool, res)
		var sc struct {
			Freshness *Freshness `json:"freshness"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &sc); err != nil || sc.Freshness == nil {
			t.Errorf("%s: structured content %s has no freshness block", c.tool, b)
		}
		if n := answerTokens(t, res); n > DefaultMaxTokens {
			t.Errorf("%s: %d tokens", c.tool, n)
		}
	}
}

func TestImpactStructured(t *testing.T) {
	a := goapp(t)
	cs := connect(t, a, Options{Root: a.Root})
	res, err := call(t, cs, "impact", map[string]any{"target": "Catalog.Save", "include_tests": false, "root": a.Root})
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	var out ImpactOut
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Target.Name != "Catalog.Save" || len(out.Depths) != 3 || out.Depths[0].Count == 0 || out.Freshness.BaseCommit == "" || out.Freshness.Partial {
		t.Errorf("answer %s", b)
	}
	for _, g := range out.Depths {
		for _, d := range g.Dependents {
			if d.Test {
				t.Errorf("include_tests=false lists test %s", d.Name)
			}
		}
	}
}

// TestImpactGroups checks that the groups say what they are and whether
// they break: Mem.Put's dispatch (through Store.Put) keeps compiling; its
// satisfaction sites would break, but the fixture was imported without the
// type checker's conversion sites, so that group is UNKNOWN, never empty.
func TestImpactGroups(t *testing.T) {
	a := goapp(t)
	cs := connect(t, a, Options{Root: a.Root})
	res, err := call(t, cs, "impact", map[string]any{"target": "Mem.Put"})
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	var out ImpactOut
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, g := range out.Groups {
		got[g.Kind] = fmt.Sprintf("breaks=%v count=%d unknown=%v", g.Breaks, g.Count, g.Unknown != "")
	}
	want := map[string]string{"dispatch": "breaks=false count=1 unknown=false", "satisfaction": "breaks=true count=0 unknown=true"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v\n%s", got, want, b)
	}
	if txt := text(res); !strings.Contains(txt, "### satisfaction: UNKNOWN") || !strings.Contains(txt, "### dispatch (1)") || !strings.Contains(txt, "Risk **at least ") {
		t.Errorf("markdown lacks the group headings:\n%s", txt)
	}
}

func TestTargetErrors(t *testing.T) {
	a := goapp(t)
	cs := connect(t, a, Options{Root: a.Root})
	for _, c := range []struct {
		tool   string
		target string
		want   []string
	}{
		{"impact", "Catalog.Sav", []string{"Candidates", "target: `Catalog.Save`"}},
		{"context", "Savee", []string{"Candidates", "Save"}},
		{"impact", "Zzzzzz", []string{"No symbol has a similar name"}},
	} {
		res, err := call(t, cs, c.tool, map[string]any{"target": c.target})
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.target, err)
		}
		if !res.IsError {
			t.Errorf("%s %s: not a tool error: %s", c.tool, c.target, text(res))
		}
		for _, w := range c.want {
			if !strings.Contains(text(res), w) {
				t.Errorf("%s %s: %q not in %s", c.tool, c.target, w, text(res))
			}
		}
	}
	// A name several symbols share lists them.
	res, err := call(t, cs, "impact", map[string]any{"target": "Put"})
	if err != nil {
		t.Fatal(err)
	}
	if txt := text(res); !res.IsError || !strings.Contains(txt, "ambiguous") || !strings.Contains(txt, "target: `Mem.Put`") || !strings.Contains(txt, "target: `File.Put`") {
		t.Errorf("ambiguous Put: %v %s", res.IsError, txt)
	}
}

func TestInvalidParams(t *testing.T) {
	a := goapp(t)
	cs := connect(t, a, Options{Root: a.Root})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"impact", map[string]any{"target": "Catalog.Save", "depth": 7}},
		{"impact", map[string]any{"target": "Catalog.Save", "depth": 0}},
		{"impact", map[string]any{"target": "Catalog.Save", "direction": "sideways"}},
		{"impact", map[string]any{"target": ""}},
		{"impact", map[string]any{"target": "  "}},
		{"impact", map[string]any{}},
		{"impact", map[string]any{"target": "Catalog.Save", "min_confidence": 2}},
		{"impact", map[string]any{"target": "Catalog.Save", "root": "relative/dir"}},
		{"impact", map[string]any{"target": "Catalog.Save", "deepness": 2}},
		{"context", map[string]any{"target": "Catalog.Save", "scope": "galaxy"}},
		{"symbols", map[string]any{"query": "Save", "limit": 0}},
		{"symbols", map[string]any{}},
		{"changes", map[string]any{"staged": "yes"}},
	} {
		res, err := call(t, cs, c.tool, c.args)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %v: %v, %v, want invalid params", c.tool, c.args, err, res)
		}
	}
}

func TestCap(t *testing.T) {
	a := goapp(t)
	cs := connect(t, a, Options{Root: a.Root, MaxTokens: MinMaxTokens})
	schemas := outputSchemas(t, cs)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"impact", map[string]any{"target": "store.Store"}},
		{"impact", map[string]any{"target": "Catalog.Save"}},
		{"context", map[string]any{"target": "Catalog.Save"}},
		{"symbols", map[string]any{"query": "S"}},
		{"status", nil},
		{"changes", nil},
	} {
		res, err := call(t, cs, c.tool, c.args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", c.tool, err, text(res))
		}
		conforms(t, schemas, c.tool, res)
		if n := answerTokens(t, res); n > MinMaxTokens {
			t.Errorf("%s %v: %d tokens over the cap of %d:\n%s", c.tool, c.args, n, MinMaxTokens, text(res))
		}
		if c.args["target"] == "store.Store" || c.tool == "context" {
			if txt := text(res); !strings.Contains(txt, "Left out") || !strings.Contains(txt, "To narrow") {
				t.Errorf("%s: does not say what was left out:\n%s", c.tool, txt)
			}
		}
	}
}
