package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/resolve"
)

// impactFlags are the flags `impact` and `changes` share.
type impactFlags struct {
	store, root   string
	direction     string
	depth         int
	minConfidence float64
	kinds         string
	noTests       bool
	limit         int
	json          bool
	format        string
}

func (f *impactFlags) register(fs interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
	Float64Var(*float64, string, float64, string)
	BoolVar(*bool, string, bool, string)
}, direction bool) {
	fs.StringVar(&f.store, "store", "", "graph store `DIR` (default: the user cache directory for the root)")
	fs.StringVar(&f.root, "root", "", "workspace root `DIR` (default: the git top level of the current directory, else the current directory)")
	if direction {
		fs.StringVar(&f.direction, "direction", "up", "up: who depends on the target; down: what it depends on")
	}
	fs.IntVar(&f.depth, "depth", 3, "maximum depth `N`")
	fs.Float64Var(&f.minConfidence, "min-confidence", 0.7, "ignore edges below confidence `X` (syntax guesses are 0.3-0.9)")
	fs.StringVar(&f.kinds, "kinds", "references,calls,implements,type-of", "edge kinds to follow, comma-separated")
	fs.BoolVar(&f.noTests, "no-tests", false, "leave out dependents in test files")
	fs.IntVar(&f.limit, "limit", 0, "at most `N` dependents per depth (0: no limit)")
	fs.BoolVar(&f.json, "json", false, "print JSON")
	fs.StringVar(&f.format, "format", "text", "output format: text or markdown")
}

// options turns the flags into impact options.
func (f *impactFlags) options() (impact.Options, error) {
	o := impact.DefaultOptions()
	switch f.direction {
	case "", "up", "upstream":
	case "down", "downstream":
		o.Direction = graph.Downstream
	default:
		return o, fmt.Errorf("%w: --direction must be up or down, not %q", errUsage, f.direction)
	}
	if f.depth < 1 {
		return o, fmt.Errorf("%w: --depth must be at least 1", errUsage)
	}
	if f.minConfidence < 0 || f.minConfidence > 1 {
		return o, fmt.Errorf("%w: --min-confidence must be within [0, 1]", errUsage)
	}
	if f.format != "text" && f.format != "markdown" {
		return o, fmt.Errorf("%w: --format must be text or markdown, not %q", errUsage, f.format)
	}
	o.MaxDepth, o.MinConfidence, o.IncludeTests, o.LimitPerDepth = f.depth, f.minConfidence, !f.noTests, f.limit
	o.Kinds = nil
	known := map[graph.EdgeKind]bool{graph.EdgeReferences: true, graph.EdgeCalls: true, graph.EdgeImplements: true,
		graph.EdgeTypeOf: true, graph.EdgeContains: true, graph.EdgeImports: true, graph.EdgeTypeDef: true}
	for _, k := range strings.Split(f.kinds, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if !known[graph.EdgeKind(k)] {
			return o, fmt.Errorf("%w: unknown edge kind %q in --kinds (known: references, calls, implements, type-of, contains, imports, type-definition)", errUsage, k)
		}
		o.Kinds = append(o.Kinds, graph.EdgeKind(k))
	}
	if len(o.Kinds) == 0 {
		return o, fmt.Errorf("%w: --kinds names no edge kind", errUsage)
	}
	return o, nil
}

// parseInterspersed parses flags that may follow positional arguments.
func parseInterspersed(fs interface {
	Parse([]string) error
	Args() []string
}, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func runImpact(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "impact", "impact [--store DIR] [--root DIR] [--direction up|down] [--depth N] [--min-confidence X] [--kinds a,b] [--no-tests] [--limit N] [--json] [--format text|markdown] TARGET\n\n"+
		"TARGET is a symbol name (Save, Catalog.Save, service.Catalog.Save), FILE:LINE:COL (1-based, column in bytes)\nor a SCIP symbol string.")
	var f impactFlags
	f.register(fs, true)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want exactly one TARGET, got %d", errUsage, len(pos))
	}
	o, err := f.options()
	if err != nil {
		return err
	}
	root, err := workspaceRoot(ctx, f.root)
	if err != nil {
		return err
	}
	syncLiveLayer(ctx, e, root, f.store)
	st, err := openQueryStore(root, f.store, true)
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := st.Reader()
	if err != nil {
		return fmt.Errorf("reading the store %s: %w", st.Dir(), err)
	}
	defer r.Close()
	target, err := resolve.ResolveIn(ctx, r, root, pos[0])
	if err != nil {
		return err
	}
	fb, err := freshness.Compute(ctx, r, root)
	if err != nil {
		return err
	}
	o.Freshness = &fb
	a, err := impact.Compute(ctx, r, target, o)
	if err != nil {
		return err
	}
	return writeImpactAnswer(e.stdout, a, f.json, f.format)
}

// writeImpactAnswer prints an answer as JSON, text or markdown.
func writeImpactAnswer(w io.Writer, a *impact.Answer, asJSON bool, format string) error {
	if asJSON {
		return writeJSON(w, a)
	}
	if format == "markdown" {
		return writeImpactMarkdown(w, a)
	}
	return writeImpactText(w, a)
}

// workspaceRoot returns the --root flag made absolute, else the git top
// level of the current directory, else the current directory.
func workspaceRoot(ctx context.Context, flagRoot string) (string, error) {
	if flagRoot != "" {
		abs, err := filepath.Abs(flagRoot)
		if err != nil {
			return "", fmt.Errorf("resolving --root %s: %w", flagRoot, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("--root %s is not a directory", flagRoot)
		}
		return abs, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("reading the current directory: %w", err)
	}
	out, err := exec.CommandContext(ctx, "git", "-C", cwd, "rev-parse", "--show-toplevel").Output()
	if err == nil {
		if top := strings.TrimSpace(string(out)); top != "" {
			return top, nil
		}
	}
	return cwd, nil
}

// openQueryStore opens the store for root (or dir) with a message that says
// what to do when it is missing or locked.
func openQueryStore(root, dir string, readOnly bool) (*graph.Store, error) {
	if dir == "" {
		d, err := graph.DefaultDir(root)
		if err != nil {
			return nil, fmt.Errorf("locating the store for %s: %w (pass --store)", root, err)
		}
		dir = d
	}
	if readOnly {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no graph store at %s for %s: run `lspgraph scip import INDEX.scip` or `lspgraph index` first, or pass --store", dir, root)
		}
	}
	st, err := graph.Open(dir, graph.Options{ReadOnly: readOnly})
	switch {
	case errors.Is(err, graph.ErrLocked):
		return nil, fmt.Errorf("%w; close the other lspgraph (an editor's proxy, an import) or pass another --store", err)
	case errors.Is(err, graph.ErrSchema):
		return nil, fmt.Errorf("%w; rebuild it with `lspgraph scip import` or `lspgraph index`", err)
	case err != nil:
		return nil, fmt.Errorf("opening the store %s: %w", dir, err)
	}
	return st, nil
}

// --- text -----------------------------------------------------------------

func writeImpactText(w io.Writer, a *impact.Answer) error {
	var b strings.Builder
	targets := a.Targets
	if a.Target != nil {
		targets = []impact.Ref{*a.Target}
	}
	verb := "impact of"
	if a.Direction == "downstream" {
		verb = "dependencies of"
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "%s %s\n", verb, impactRefLine(t))
	}
	if a.Risk.Level != "" {
		fmt.Fprintf(&b, "risk: %s\n  %s\n", a.Risk.Level, a.Risk.Rule)
	}
	b.WriteString(impactFreshnessLine(a) + "\n")
	var counts []string
	for _, g := range a.Depths {
		counts = append(counts, fmt.Sprintf("d=%d %s: %d", g.Depth, g.Label, len(g.Dependents)))
	}
	b.WriteString(strings.Join(counts, " · ") + "\n\n")

	// The tree: each dependent under the node that brought it in.
	children := map[string][]impact.Dependent{}
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			parent := d.Via.To
			if a.Direction == "downstream" {
				parent = d.Via.From
			}
			if g.Depth == 1 {
				parent = "\x00target:" + parent
			}
			children[parent] = append(children[parent], d)
		}
	}
	for _, t := range targets {
		fmt.Fprintf(&b, "%s\n", t.Name)
		writeImpactTree(&b, children, children["\x00target:"+t.Symbol], "")
	}
	writeImpactGroup(&b, "dispatch — calls through an interface method the target implements (keep compiling, may change behaviour)", a.Dispatch)
	writeImpactGroup(&b, "satisfaction — the target's type used as an interface it implements (break if it stops implementing it)", a.Satisfaction)
	writeImpactGroup(&b, "implementations", a.Implementations)
	if len(a.Implements) > 0 {
		fmt.Fprintf(&b, "\nimplements (%d)\n", len(a.Implements))
		for _, r := range a.Implements {
			fmt.Fprintf(&b, "  %s\n", impactRefLine(r))
		}
	}
	writeImpactGroup(&b, "tests", a.Tests)
	fmt.Fprintf(&b, "\npackages (%d)\n", len(a.Packages))
	for _, p := range a.Packages {
		note := ""
		if p.Target {
			note = " (target)"
		}
		fmt.Fprintf(&b, "  %s%s: %d dependents, %d tests, nearest d=%d\n", p.Package, note, p.Dependents, p.Tests, p.MinDepth)
	}
	if len(a.CrossPackage) > 0 {
		fmt.Fprintf(&b, "\ncross-package edges (%d)\n", len(a.CrossPackage))
		for _, c := range a.CrossPackage {
			fmt.Fprintf(&b, "  d=%d %s (%s) -%s-> %s (%s)\n", c.Depth, c.FromName, c.FromPackage, c.Kind, c.ToName, c.ToPackage)
		}
	}
	if v := a.Verification; v != nil {
		fmt.Fprintf(&b, "\nverification: ran=%v", v.Ran)
		if v.Ran && v.Error == "" {
			fmt.Fprintf(&b, ", %d live sites: %d verified, %d graph-only, %d live-only", v.LiveSites, v.Verified, v.GraphOnly, v.LiveOnly)
		}
		if v.Error != "" {
			fmt.Fprintf(&b, " (%s)", v.Error)
		}
		b.WriteString("\n")
	}
	if a.Truncated {
		b.WriteString("\ntruncated: --limit cut at least one depth short\n")
	}
	if a.Partial {
		b.WriteString("\npartial: the answer may be incomplete:\n")
		for _, r := range a.PartialReasons {
			fmt.Fprintf(&b, "  - %s\n", r)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeImpactTree(b *strings.Builder, children map[string][]impact.Dependent, ds []impact.Dependent, indent string) {
	for i, d := range ds {
		branch, next := "├─ ", "│  "
		if i == len(ds)-1 {
			branch, next = "└─ ", "   "
		}
		fmt.Fprintf(b, "%s%s[d=%d] %s\n", indent, branch, d.Depth, impactDepLine(d))
		if d.Symbol != "" {
			writeImpactTree(b, children, children[d.Symbol], indent+next)
		}
	}
}

func writeImpactGroup(b *strings.Builder, title string, ds []impact.Dependent) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s (%d)\n", title, len(ds))
	for _, d := range ds {
		prefix := ""
		if d.Group == "" {
			prefix = fmt.Sprintf("[d=%d] ", d.Depth)
		}
		fmt.Fprintf(b, "  %s%s\n", prefix, impactDepLine(d))
	}
}

func impactRefLine(r impact.Ref) string {
	s := r.Name
	if r.Kind != "" {
		s += " (" + r.Kind + ")"
	}
	if r.Package != "" {
		s += " in " + r.Package
	}
	if r.Location != nil {
		s += " at " + impactLoc(*r.Location)
	} else if r.External {
		s += " (external)"
	}
	return s
}

func impactDepLine(d impact.Dependent) string {
	var parts []string
	parts = append(parts, d.Name)
	if d.Kind != "" {
		parts = append(parts, d.Kind)
	}
	if d.Location != nil {
		parts = append(parts, impactLoc(*d.Location))
	}
	via := fmt.Sprintf("%s · %s %.2f · %d site", d.Via.Kind, orDash(d.Via.Source), d.Via.Confidence, d.Sites)
	if d.Sites != 1 {
		via += "s"
	}
	if len(d.SiteLocations) > 0 && d.SiteLocations[0].Path != "" {
		var ls []string
		for _, l := range d.SiteLocations {
			ls = append(ls, strconv.Itoa(l.Line))
		}
		via += " (line " + strings.Join(ls, ", ") + ")"
	}
	parts = append(parts, "["+via+"]")
	if d.Test {
		parts = append(parts, "test")
	}
	if d.Verification != "" {
		parts = append(parts, d.Verification)
	}
	if d.Group != "" && d.Via.Reason != "" {
		parts = append(parts, "— "+d.Via.Reason)
	}
	return strings.Join(parts, "  ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func impactLoc(l impact.Loc) string { return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Col) }

func impactFreshnessLine(a *impact.Answer) string {
	f := a.Freshness
	base := impactShortRev(f.BaseCommit)
	if f.BaseTool != "" {
		base += " (" + f.BaseTool + ")"
	}
	return fmt.Sprintf("freshness: base %s · head %s · %d changed · %d live · partial: %v",
		base, impactShortRev(f.Head), len(f.Changed), len(f.Live), a.Partial)
}

func impactShortRev(c string) string {
	switch {
	case c == "":
		return "unknown"
	case len(c) > 12:
		return c[:12]
	}
	return c
}

// --- markdown ---------------------------------------------------------------

func writeImpactMarkdown(w io.Writer, a *impact.Answer) error {
	var b strings.Builder
	targets := a.Targets
	if a.Target != nil {
		targets = []impact.Ref{*a.Target}
	}
	names := make([]string, 0, len(targets))
	for _, t := range targets {
		names = append(names, "`"+impactMD(t.Name)+"`")
	}
	if len(names) > 8 {
		names = append(names[:8], fmt.Sprintf("and %d more", len(names)-8))
	}
	level := a.Risk.Level
	if level == "" {
		level = "n/a"
	}
	fmt.Fprintf(&b, "### Impact of %s: **%s**\n\n", strings.Join(names, ", "), level)
	if a.Risk.Rule != "" {
		fmt.Fprintf(&b, "%s\n\n", impactMD(a.Risk.Rule))
	}
	rows := 0
	b.WriteString("| depth | symbol | kind | location | via | sites | check |\n|---|---|---|---|---|---|---|\n")
	for _, g := range a.Depths {
		for _, d := range g.Dependents {
			impactMDRow(&b, fmt.Sprintf("d=%d %s", g.Depth, g.Label), d)
			rows++
		}
	}
	for _, grp := range []struct {
		name string
		ds   []impact.Dependent
	}{{"dispatch", a.Dispatch}, {"satisfaction", a.Satisfaction}, {"implementation", a.Implementations}} {
		for _, d := range grp.ds {
			impactMDRow(&b, grp.name, d)
			rows++
		}
	}
	if rows == 0 {
		b.WriteString("| – | no dependents found | | | | | |\n")
	}
	if len(a.Tests) > 0 {
		var ts []string
		for _, t := range a.Tests {
			ts = append(ts, "`"+impactMD(t.Name)+"`")
		}
		fmt.Fprintf(&b, "\n**Tests to run (%d):** %s\n", len(a.Tests), strings.Join(ts, ", "))
	}
	if len(a.Packages) > 0 {
		var ps []string
		for _, p := range a.Packages {
			ps = append(ps, fmt.Sprintf("`%s` (%d)", impactMD(p.Package), p.Dependents))
		}
		fmt.Fprintf(&b, "\n**Packages:** %s\n", strings.Join(ps, ", "))
	}
	if len(a.CrossPackage) > 0 {
		fmt.Fprintf(&b, "\n**Cross-package edges:** %d\n", len(a.CrossPackage))
	}
	if a.Partial {
		b.WriteString("\n> [!WARNING]\n> Partial answer:\n")
		for _, r := range a.PartialReasons {
			fmt.Fprintf(&b, "> - %s\n", impactMD(r))
		}
	}
	fmt.Fprintf(&b, "\n<sub>%s</sub>\n", impactMD(impactFreshnessLine(a)))
	_, err := io.WriteString(w, b.String())
	return err
}

func impactMDRow(b *strings.Builder, depth string, d impact.Dependent) {
	loc := ""
	if d.Location != nil {
		loc = "`" + impactLoc(*d.Location) + "`"
	}
	name := "`" + impactMD(d.Name) + "`"
	if d.Test {
		name += " (test)"
	}
	fmt.Fprintf(b, "| %s | %s | %s | %s | %s %s %.2f | %d | %s |\n", depth, name, d.Kind, loc,
		d.Via.Kind, orDash(d.Via.Source), d.Via.Confidence, d.Sites, d.Verification)
}

func impactMD(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// --- verification against the live server ------------------------------------

// lspPos, lspRange and lspLocation are the LSP shapes the verifier reads.
type lspPos struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

type lspRange struct {
	Start lspPos `json:"start"`
	End   lspPos `json:"end"`
}

type lspLocation struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

// liveVerifier returns an [impact.Verifier] that asks the language server
// behind req for the references of the symbol defined at a graph location:
// textDocument/references (declaration excluded) united with
// callHierarchy/incomingCalls where the server supports it (with
// TypeScript project references, incoming calls stop at package
// boundaries while references cross them; other servers find calls that
// references miss). Positions are converted between the graph's UTF-8
// columns and the session's encoding enc with the text the server has:
// the editor's unsaved buffer where buffer (given a root-relative path
// with forward slashes) has one, else the file under root; locations
// outside root are dropped. buffer may be nil (no editor).
func liveVerifier(req lspproxy.Requester, root string, enc textpos.Encoding, buffer func(rel string) ([]byte, bool)) impact.Verifier {
	return func(ctx context.Context, def graph.Location) ([]graph.Location, error) {
		texts := map[string]*textpos.Mapper{}
		mapper := func(abs string) (*textpos.Mapper, error) {
			if m, ok := texts[abs]; ok {
				return m, nil
			}
			var b []byte
			inBuffer := false
			if rel, err := filepath.Rel(root, abs); buffer != nil && err == nil {
				b, inBuffer = buffer(filepath.ToSlash(rel))
			}
			if !inBuffer {
				var err error
				if b, err = os.ReadFile(abs); err != nil {
					return nil, err
				}
			}
			m := textpos.NewMapper(b)
			texts[abs] = m
			return m, nil
		}
		abs := filepath.Join(root, filepath.FromSlash(def.Path))
		m, err := mapper(abs)
		if err != nil {
			return nil, fmt.Errorf("verifying: reading %s: %w", def.Path, err)
		}
		col, err := m.ToColumn(def.Range.Start, enc)
		if err != nil {
			return nil, fmt.Errorf("verifying: position %s:%s: %w", def.Path, def.Range.Start, err)
		}
		doc := map[string]string{"uri": impactFileURI(abs)}
		pos := lspPos{Line: def.Range.Start.Line, Character: col}
		raw, err := req.Request(ctx, "textDocument/references", map[string]any{
			"textDocument": doc, "position": pos, "context": map[string]bool{"includeDeclaration": false},
		})
		if err != nil {
			return nil, fmt.Errorf("textDocument/references: %w", err)
		}
		var locs []lspLocation
		if err := json.Unmarshal(raw, &locs); err != nil && string(raw) != "null" {
			return nil, fmt.Errorf("textDocument/references: decoding %.200s: %w", raw, err)
		}
		locs = append(locs, incomingCalls(ctx, req, doc, pos)...)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var out []graph.Location
		seen := map[string]bool{}
		for _, l := range locs {
			p, err := uriToPath(l.URI)
			if err != nil {
				continue
			}
			rel, err := filepath.Rel(root, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue // outside the workspace (the standard library, dependencies)
			}
			m, err := mapper(p)
			if err != nil {
				continue
			}
			rg, err := m.FromRange(l.Range.Start.Line, l.Range.Start.Character, l.Range.End.Line, l.Range.End.Character, enc)
			if err != nil {
				continue
			}
			gl := graph.Location{Path: filepath.ToSlash(rel), Range: rg}
			k := gl.Path + ":" + rg.Start.String()
			if !seen[k] {
				seen[k] = true
				out = append(out, gl)
			}
		}
		return out, nil
	}
}

// incomingCalls returns the call sites callHierarchy/incomingCalls reports
// for the item at pos, or nothing when the server does not support it.
func incomingCalls(ctx context.Context, req lspproxy.Requester, doc map[string]string, pos lspPos) []lspLocation {
	raw, err := req.Request(ctx, "textDocument/prepareCallHierarchy", map[string]any{"textDocument": doc, "position": pos})
	if err != nil {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []lspLocation
	for _, item := range items {
		raw, err := req.Request(ctx, "callHierarchy/incomingCalls", map[string]json.RawMessage{"item": item})
		if err != nil {
			continue
		}
		var calls []struct {
			From struct {
				URI string `json:"uri"`
			} `json:"from"`
			FromRanges []lspRange `json:"fromRanges"`
		}
		if json.Unmarshal(raw, &calls) != nil {
			continue
		}
		for _, c := range calls {
			for _, r := range c.FromRanges {
				out = append(out, lspLocation{URI: c.From.URI, Range: r})
			}
		}
	}
	return out
}

// impactFileURI returns the file URI of an absolute path.
func impactFileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}
