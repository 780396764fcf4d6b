package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/workspace"
)

const rootDoc = "Absolute path of the workspace (repository) to answer for; default: the workspace the server was started in."

const targetDoc = "The symbol: a name (Save, Catalog.Save, service.Catalog.Save), FILE:LINE:COL (1-based, FILE relative to the workspace root) or a symbol string; the symbols tool gives the exact string."

// StatusIn is the status tool's arguments.
type StatusIn struct {
	Root string `json:"root,omitempty" jsonschema:"Absolute path of the workspace (repository) to answer for; default: the workspace the server was started in."`
}

// SymbolsIn is the symbols tool's arguments.
type SymbolsIn struct {
	Query string `json:"query" jsonschema:"A symbol name or the start of one, optionally qualified by its container: Save, Sav, Catalog.Save, Catalog.S (case sensitive)."`
	Kind  string `json:"kind,omitempty" jsonschema:"Keep only symbols of this kind: function, method, type, interface, struct, class, field, variable, constant."`
	Limit int    `json:"limit,omitempty" jsonschema:"The most candidates to return (1-200, default 20)."`
	Root  string `json:"root,omitempty" jsonschema:"Absolute path of the workspace (repository) to answer for; default: the workspace the server was started in."`
}

// ImpactIn is the impact tool's arguments.
type ImpactIn struct {
	Target        string   `json:"target" jsonschema:"The symbol: a name (Save, Catalog.Save, service.Catalog.Save), FILE:LINE:COL (1-based, FILE relative to the workspace root) or a symbol string; the symbols tool gives the exact string."`
	Depth         int      `json:"depth,omitempty" jsonschema:"How far to follow dependents: 1 = what will break, 2 = likely affected, 3 = may need testing (default 3)."`
	Direction     string   `json:"direction,omitempty" jsonschema:"upstream (default): who depends on the target; downstream: what the target depends on."`
	IncludeTests  *bool    `json:"include_tests,omitempty" jsonschema:"List dependents in test files (default true)."`
	MinConfidence *float64 `json:"min_confidence,omitempty" jsonschema:"Ignore edges below this confidence, 0-1 (default 0.7; syntax-only guesses are 0.3-0.9, precise indexes 1)."`
	Root          string   `json:"root,omitempty" jsonschema:"Absolute path of the workspace (repository) to answer for; default: the workspace the server was started in."`
}

// ContextIn is the context tool's arguments.
type ContextIn struct {
	Target string `json:"target" jsonschema:"The symbol: a name (Save, Catalog.Save, service.Catalog.Save), FILE:LINE:COL (1-based, FILE relative to the workspace root) or a symbol string; the symbols tool gives the exact string."`
	Budget int    `json:"budget,omitempty" jsonschema:"Tokens the code snippets may take (default 8000; the answer cap may lower it)."`
	Scope  string `json:"scope,omitempty" jsonschema:"closure (default): the target's package and the packages it depends on; repo: the whole repository."`
	Root   string `json:"root,omitempty" jsonschema:"Absolute path of the workspace (repository) to answer for; default: the workspace the server was started in."`
}

// ChangesIn is the changes tool's arguments.
type ChangesIn struct {
	Base   string `json:"base,omitempty" jsonschema:"The git revision to compare with (default: the commit the index was built from, else HEAD)."`
	Staged bool   `json:"staged,omitempty" jsonschema:"Compare the staged changes (the index) instead of the work tree and unsaved buffers."`
	Root   string `json:"root,omitempty" jsonschema:"Absolute path of the workspace (repository) to answer for; default: the workspace the server was started in."`
}

func ptr[T any](v T) *T { return &v }

func (s *server) register(ms *mcp.Server) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	addTool[StatusIn, *StatusOut](ms, s, &mcp.Tool{Name: "status", Annotations: readOnly,
		Description: "Which index answers for the workspace and how fresh it is: the base index (commit, indexer, counts), the live layer, whether an editor's session with a live language server is attached, and the freshness block. Call it when answers look stale or empty."},
		nil, (*server).status)
	registerSearch(ms, s, readOnly)
	addTool[SymbolsIn, *SymbolsOut](ms, s, &mcp.Tool{Name: "symbols", Annotations: readOnly,
		Description: "Find symbols by name or name prefix: each candidate with its kind, package, definition location and the exact target string to pass to impact or context. Use it first when a name may be ambiguous or you only know part of it."},
		func(in *jsonschema.Schema) {
			in.Properties["query"].MinLength = ptr(1)
			in.Properties["limit"].Minimum, in.Properties["limit"].Maximum = ptr(1.0), ptr(200.0)
		}, (*server).symbols)
	addTool[ImpactIn, *ImpactOut](ms, s, &mcp.Tool{Name: "impact", Annotations: readOnly,
		Description: "Blast radius of changing a symbol: the dependents by depth (d=1 will break, d=2 likely affected, d=3 may need testing), interface dispatch and satisfaction sites, the tests and packages reached, and a risk level; d=1 is checked against the editor's live language server when one is attached. Call it before changing a function's signature or behaviour. Use downstream to see what the symbol depends on instead."},
		func(in *jsonschema.Schema) {
			in.Properties["target"].MinLength = ptr(1)
			in.Properties["depth"].Minimum, in.Properties["depth"].Maximum = ptr(1.0), ptr(3.0)
			in.Properties["depth"].Default = []byte("3")
			in.Properties["direction"].Enum = []any{"upstream", "downstream"}
			in.Properties["min_confidence"].Minimum, in.Properties["min_confidence"].Maximum = ptr(0.0), ptr(1.0)
		}, (*server).impact)
	addTool[ContextIn, *ContextOut](ms, s, &mcp.Tool{Name: "context", Annotations: readOnly,
		Description: "What to read to work on a symbol, within a token budget: its definition, callers, callees, the types it uses and its tests, ranked, as code snippets, limited to the target's dependency closure (or the repository). Call it instead of reading whole files."},
		func(in *jsonschema.Schema) {
			in.Properties["target"].MinLength = ptr(1)
			in.Properties["budget"].Minimum, in.Properties["budget"].Maximum = ptr(100.0), ptr(float64(HardMaxTokens))
			in.Properties["budget"].Default = []byte("8000")
			in.Properties["scope"].Enum = []any{"closure", "repo"}
		}, (*server).context)
	addTool[ChangesIn, *ChangesOut](ms, s, &mcp.Tool{Name: "changes", Annotations: readOnly,
		Description: "What the current change touches: the files and symbols changed since a git revision (work tree and unsaved editor buffers included, or only what is staged) and their combined blast radius and risk. Call it before committing or to review a diff."},
		nil, (*server).changes)
}

// --- status ---------------------------------------------------------------

// StatusOut is the status tool's answer.
type StatusOut struct {
	Root   string     `json:"root"`
	Store  string     `json:"store"`
	Empty  bool       `json:"empty"`
	Layers []LayerOut `json:"layers"`
	// Session is the process that answers: an editor's proxy (with its
	// live server) or this server's one-shot session.
	Session   SessionOut `json:"session"`
	Freshness Freshness  `json:"freshness"`
	Omitted   []string   `json:"omitted,omitempty"`
}

// LayerOut is one layer of the store.
type LayerOut struct {
	Layer     string `json:"layer"`
	Commit    string `json:"commit,omitempty"`
	Tool      string `json:"tool,omitempty"`
	State     string `json:"state,omitempty"`
	Documents int    `json:"documents"`
	Symbols   int    `json:"symbols"`
	Edges     int    `json:"edges"`
}

// SessionOut describes the answering session.
type SessionOut struct {
	PID        int      `json:"pid"`
	LiveServer bool     `json:"liveServer"`
	Clients    []string `json:"clients"`
}

func (s *server) status(ctx context.Context, in StatusIn) (shaped, error) {
	root, err := s.root(in.Root)
	if err != nil {
		return nil, err
	}
	var st workspace.Status
	if err := s.ask.Ask(ctx, root, workspace.CommandStatus, nil, &st); err != nil {
		return nil, &toolError{err.Error()}
	}
	out := &StatusOut{Root: st.Root, Store: st.Store, Empty: st.Empty, Layers: []LayerOut{},
		Session: SessionOut{PID: st.Session.PID, LiveServer: st.Session.Server, Clients: []string{}}}
	for _, l := range st.Layers {
		out.Layers = append(out.Layers, LayerOut{Layer: l.Layer, Commit: l.Commit, Tool: joinNonEmpty(" ", l.Tool, l.ToolVersion),
			State: l.State, Documents: l.Documents, Symbols: l.Symbols, Edges: l.Edges})
	}
	for _, c := range st.Session.Clients {
		out.Session.Clients = append(out.Session.Clients, joinNonEmpty(" ", c.Kind, c.Server))
	}
	if st.Freshness != nil {
		out.Freshness = freshnessOf(*st.Freshness)
	} else {
		out.Freshness = freshnessOf(freshness.Block{Partial: true, Reasons: []string{"the session gave no freshness block"}})
	}
	return out, nil
}

func (o *StatusOut) trim() bool {
	if o.Freshness.shrink() {
		o.Omitted = append(o.Omitted, "freshness lists cut to their counts")
		return true
	}
	return false
}

func (o *StatusOut) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## lspgraph status of %s\nstore %s", o.Root, o.Store)
	if o.Empty {
		b.WriteString(" — **empty**: run `lspgraph index` (syntax) or `lspgraph scip import INDEX.scip` in the workspace")
	}
	b.WriteString("\n")
	for _, l := range o.Layers {
		fmt.Fprintf(&b, "- %s: %s, %s, %s", l.Layer, plural(l.Documents, "document"), plural(l.Symbols, "symbol"), plural(l.Edges, "edge"))
		if l.Commit != "" {
			fmt.Fprintf(&b, ", commit %s", short(l.Commit))
		}
		if l.Tool != "" {
			fmt.Fprintf(&b, ", from %s", l.Tool)
		}
		if l.State != "" {
			fmt.Fprintf(&b, " (%s)", l.State)
		}
		b.WriteString("\n")
	}
	live := "no live language server (answers are not verified against one)"
	if o.Session.LiveServer {
		live = "an editor's live language server verifies answers"
	}
	fmt.Fprintf(&b, "session pid %d: %s", o.Session.PID, live)
	if len(o.Session.Clients) > 0 {
		fmt.Fprintf(&b, "; clients: %s", strings.Join(o.Session.Clients, ", "))
	}
	b.WriteString("\n")
	writeOmitted(&b, o.Omitted, "")
	b.WriteString(o.Freshness.markdown())
	return b.String()
}

// --- symbols --------------------------------------------------------------

// SymbolsOut is the symbols tool's answer.
type SymbolsOut struct {
	Query   string                `json:"query"`
	Symbols []workspace.SymbolHit `json:"symbols"`
	// Truncated is set when more symbols match than were returned.
	Truncated bool      `json:"truncated"`
	Freshness Freshness `json:"freshness"`
	Omitted   []string  `json:"omitted,omitempty"`
	cut       int
}

func (s *server) symbols(ctx context.Context, in SymbolsIn) (shaped, error) {
	root, err := s.root(in.Root)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, invalidParams("symbols: query is empty: give a name or the start of one")
	}
	var a workspace.SymbolsAnswer
	if err := s.ask.Ask(ctx, root, workspace.CommandSymbols, workspace.SymbolsRequest{Query: in.Query, Kind: in.Kind, Limit: in.Limit}, &a); err != nil {
		return nil, &toolError{err.Error()}
	}
	out := &SymbolsOut{Query: a.Query, Symbols: a.Symbols, Truncated: a.Truncated, Freshness: freshnessOf(a.Freshness)}
	if out.Symbols == nil {
		out.Symbols = []workspace.SymbolHit{}
	}
	return out, nil
}

func (o *SymbolsOut) trim() bool {
	if n := len(o.Symbols); n > 1 {
		o.cut += n - n/2
		o.Symbols, o.Truncated = o.Symbols[:n/2], true
		o.Omitted = []string{fmt.Sprintf("the last %s", plural(o.cut, "candidate"))}
		return true
	}
	if o.Freshness.shrink() {
		o.Omitted = append(o.Omitted, "freshness lists cut to their counts")
		return true
	}
	return false
}

func (o *SymbolsOut) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Symbols matching `%s`: %d", o.Query, len(o.Symbols))
	if o.Truncated {
		b.WriteString(" (more match: add kind, qualify the name or raise limit)")
	}
	b.WriteString("\n")
	if len(o.Symbols) == 0 {
		b.WriteString("No symbol has that name or prefix. Names are case sensitive; try a shorter prefix, or check status for the index.\n")
	}
	for _, h := range o.Symbols {
		fmt.Fprintf(&b, "- `%s` %s", h.Name, h.Kind)
		if h.Package != "" {
			fmt.Fprintf(&b, " in %s", h.Package)
		}
		if h.Location != "" {
			fmt.Fprintf(&b, " at %s", h.Location)
		}
		if h.External {
			b.WriteString(" (external)")
		}
		fmt.Fprintf(&b, " — target: `%s`\n", h.Target)
	}
	writeOmitted(&b, o.Omitted, "")
	b.WriteString(o.Freshness.markdown())
	return b.String()
}

// writeOmitted says what an answer left out for the cap, and how to
// narrow the question.
func writeOmitted(b *strings.Builder, omitted []string, narrow string) {
	if len(omitted) == 0 {
		return
	}
	fmt.Fprintf(b, "\n**Left out to stay within the size cap:** %s.", strings.Join(omitted, "; "))
	if narrow != "" {
		fmt.Fprintf(b, " %s", narrow)
	}
	b.WriteString("\n")
}

// --- targets --------------------------------------------------------------

// targetError is the tool error of a target that resolved to no symbol or
// to several: the session's message and the candidates by name.
func (s *server) targetError(ctx context.Context, root, target string, err error) error {
	msg := err.Error()
	name := targetName(target)
	if name == "" {
		return &toolError{msg}
	}
	var a workspace.SymbolsAnswer
	for _, q := range []string{name, name[:min(len(name), 3)]} {
		if s.ask.Ask(ctx, root, workspace.CommandSymbols, workspace.SymbolsRequest{Query: q, Limit: 10}, &a) == nil && len(a.Symbols) > 0 {
			break
		}
	}
	if len(a.Symbols) == 0 {
		return &toolError{msg + "\nNo symbol has a similar name; the symbols tool finds names by prefix."}
	}
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString("\nCandidates (pass one's target):")
	for _, h := range a.Symbols {
		fmt.Fprintf(&b, "\n- `%s` %s", h.Name, h.Kind)
		if h.Package != "" {
			fmt.Fprintf(&b, " in %s", h.Package)
		}
		if h.Location != "" {
			fmt.Fprintf(&b, " at %s", h.Location)
		}
		fmt.Fprintf(&b, " — target: `%s`", h.Target)
	}
	return &toolError{b.String()}
}

// targetName is the name part of a target given by name ("Catalog.Save"
// → "Save"); "" for FILE:LINE:COL and symbol strings.
func targetName(t string) string {
	t = strings.TrimSpace(t)
	if strings.ContainsAny(t, " /:`#") {
		return ""
	}
	if i := strings.LastIndex(t, "."); i >= 0 {
		t = t[i+1:]
	}
	return strings.TrimRight(t, "()")
}

// isTargetError reports whether a session's error is about the target
// (unknown or ambiguous) rather than the store or the arguments.
func isTargetError(err error) bool {
	m := err.Error()
	return strings.Contains(m, "ambiguous") || strings.Contains(m, "no symbol") || strings.Contains(m, "unknown symbol") || strings.Contains(m, "no document")
}

// --- impact ---------------------------------------------------------------

func (s *server) impact(ctx context.Context, in ImpactIn) (shaped, error) {
	root, err := s.root(in.Root)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Target) == "" {
		return nil, invalidParams("impact: target is empty: give a symbol name, FILE:LINE:COL or a symbol string")
	}
	q := workspace.ImpactRequest{Target: in.Target, Direction: in.Direction, Depth: in.Depth, MinConfidence: in.MinConfidence}
	if q.Depth == 0 {
		q.Depth = 3
	}
	if in.IncludeTests != nil {
		q.NoTests = !*in.IncludeTests
	}
	if _, err := q.Options(); err != nil {
		return nil, invalidParams("impact: %v", err)
	}
	var a impact.Answer
	if err := s.ask.Ask(ctx, root, workspace.CommandImpact, q, &a); err != nil {
		if isTargetError(err) {
			return nil, s.targetError(ctx, root, in.Target, err)
		}
		return nil, &toolError{err.Error()}
	}
	return impactOut(&a), nil
}
