package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspgraph/lspgraph/mcpserver"
)

// TestMCPIndexesEmptyStore: `lspgraph mcp` on a workspace without a store
// builds its syntax index in the background from the first tool call,
// answers partial ("indexing; N s so far") meanwhile, and answers from the
// new base layer once it is done.
func TestMCPIndexesEmptyStore(t *testing.T) {
	root := copyGoapp(t)
	store := filepath.Join(t.TempDir(), "store")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	srv := mcpserver.New(mcpAsker{root: root, store: store}, mcpserver.Options{Root: root, IndexWhenEmpty: true})
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	type answer struct {
		text       string
		partial    bool
		reasons    []string
		baseTool   string
		dependents []string
	}
	impactOf := func() answer {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "impact", Arguments: map[string]any{"target": "Catalog.Save"}})
		if err != nil {
			t.Fatal(err)
		}
		var a answer
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				a.text += tc.Text
			}
		}
		if r.IsError {
			t.Fatalf("impact answered an error:\n%s", a.text)
		}
		raw, _ := json.Marshal(r.StructuredContent)
		var sc struct {
			Depths []struct {
				Dependents []struct{ Name string } `json:"dependents"`
			} `json:"depths"`
			Freshness struct {
				Partial  bool     `json:"partial"`
				Reasons  []string `json:"reasons"`
				BaseTool string   `json:"baseTool"`
			} `json:"freshness"`
		}
		if err := json.Unmarshal(raw, &sc); err != nil {
			t.Fatal(err)
		}
		a.partial, a.reasons, a.baseTool = sc.Freshness.Partial, sc.Freshness.Reasons, sc.Freshness.BaseTool
		if len(sc.Depths) > 0 {
			for _, d := range sc.Depths[0].Dependents {
				a.dependents = append(a.dependents, d.Name)
			}
		}
		return a
	}
	first := impactOf()
	if !first.partial || len(first.reasons) != 1 || !strings.HasPrefix(first.reasons[0], "indexing; 0 s so far") || !strings.Contains(first.text, "indexing;") {
		t.Fatalf("the first call on an empty store: partial %v, reasons %q; want partial, indexing; 0 s so far\n%s", first.partial, first.reasons, first.text)
	}
	deadline := time.Now().Add(45 * time.Second)
	for {
		a := impactOf()
		if len(a.reasons) == 0 || !strings.HasPrefix(a.reasons[0], "indexing;") {
			if a.baseTool == "" || !strings.Contains(a.baseTool, "syntax") || !slices.Contains(a.dependents, "Catalog.Import") {
				t.Errorf("impact after the background index: base tool %q, d=1 %v; want the syntax base with Catalog.Import\n%s", a.baseTool, a.dependents, a.text)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still indexing after 45 s: %q", a.reasons)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
