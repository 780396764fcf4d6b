package scip

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lspgraph/lspgraph/graph"
)

var update = flag.Bool("update", false, "rewrite golden files")

// snapshotFixtures are the fixture dumps whose facts are checked against
// their source in scip/testdata/snapshots/<name>/.
var snapshotFixtures = []struct{ name, dump, dir string }{
	{"goapp", "goapp", "goapp"},
	{"gowork", "gowork", "gowork"},
	{"tsworkspace", "tsworkspace", "tsworkspace"},
	{"pyproject", "pyproject", "pyproject"},
}

// TestSnapshots imports each fixture dump, reads the facts back from the
// graph and renders every document as annotated source: each source line
// is followed by one comment line per occurrence starting on it, with ^^^
// under the occurrence, its roles, symbol and enclosing symbol; a
// definition is followed by its symbol's kind, extent and outgoing edges.
func TestSnapshots(t *testing.T) {
	for _, fx := range snapshotFixtures {
		t.Run(fx.name, func(t *testing.T) {
			dump, root := fixtureDump(t, fx.dump, fx.dir)
			store := openStore(t)
			sum, err := importFile(t, store, dump, Options{Root: root, Commit: "fixture"})
			if err != nil {
				t.Fatal(err)
			}
			got := renderFixture(t, store, root, sum)
			dir := filepath.Join("testdata", "snapshots", fx.name)
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				for p, text := range got {
					file := filepath.Join(dir, filepath.FromSlash(p)+".golden")
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			want := make(map[string]string)
			err = filepath.WalkDir(dir, func(file string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(file)
				rel, _ := filepath.Rel(dir, file)
				want[strings.TrimSuffix(filepath.ToSlash(rel), ".golden")] = string(b)
				return err
			})
			if err != nil {
				t.Fatalf("reading goldens (run with -update to create them): %v", err)
			}
			for _, p := range sortedMapKeys(got) {
				if w, ok := want[p]; !ok {
					t.Errorf("%s: no golden file (run go test ./scip -run TestSnapshots -update)", p)
				} else if w != got[p] {
					t.Errorf("%s: snapshot differs (run with -update and review the diff):\n%s", p, lineDiff(w, got[p]))
				}
			}
			for p := range want {
				if _, ok := got[p]; !ok {
					t.Errorf("%s: golden file for a document the import no longer has", p)
				}
			}
		})
	}
}

// renderFixture renders every document of the store's base layer, plus a
// summary of the import, keyed by golden name.
func renderFixture(t *testing.T, store *graph.Store, root string, sum Summary) map[string]string {
	t.Helper()
	ctx := context.Background()
	r, err := store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := make(map[string]string)
	var paths []string
	err = r.Documents(ctx, func(d graph.Document) error {
		paths = append(paths, d.Path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		var text string
		var err error
		if p == ExternalPath {
			text, err = renderExternal(ctx, r)
			p = "_external"
		} else {
			text, err = renderDocument(ctx, r, root, p)
		}
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[p] = text
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tool: %s %s\n", sum.Tool, sum.ToolVersion)
	fmt.Fprintf(&b, "documents: %d\noccurrences: %d\nsymbols: %d\nedges: %d\nexternal symbols: %d\nunverified documents: %d\ninvalid occurrences: %d\n",
		sum.Documents, sum.Occurrences, sum.Symbols, sum.Edges, sum.ExternalSymbols, sum.UnverifiedDocuments, sum.InvalidOccurrences)
	for _, s := range sum.Skipped {
		fmt.Fprintf(&b, "skipped: %s (%d occurrences): %s\n", s.Reason, s.Occurrences, stableSkipPath(s.Path))
	}
	out["_summary"] = b.String()
	return out
}

// stableSkipPath hides the build-cache hash in scip-go's test mains, which
// changes from machine to machine.
func stableSkipPath(p string) string {
	if i := strings.Index(p, "go-build/"); i >= 0 {
		return p[:i] + "go-build/…"
	}
	return p
}

// renderDocument renders one document as annotated source.
func renderDocument(ctx context.Context, r *graph.Reader, root, p string) (string, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil {
		return "", err
	}
	doc, _, err := r.Document(ctx, p)
	if err != nil {
		return "", err
	}
	occs, err := r.Occurrences(ctx, p)
	if err != nil {
		return "", err
	}
	byLine := make(map[uint32][]graph.Occurrence)
	for _, o := range occs {
		byLine[o.Range.Start.Line] = append(byLine[o.Range.Start.Line], o)
	}
	comment := "//"
	if doc.Language == "python" {
		comment = "# "
	}
	pad := strings.Repeat(" ", len(comment))
	var b strings.Builder
	fmt.Fprintf(&b, "%s document %s: language %s, package %s, flags %s\n", comment, p, doc.Language, doc.Package, docFlags(doc.Flags))
	lines := strings.Split(string(src), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	defined := make(map[string]bool)
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			b.WriteString("\n")
		} else {
			b.WriteString(pad + line + "\n")
		}
		for _, o := range byLine[uint32(i)] {
			col := runeCol(line, o.Range.Start.Col)
			width := 1
			if o.Range.End.Line == o.Range.Start.Line {
				width = max(1, runeCol(line, o.Range.End.Col)-col)
			} else {
				width = max(1, utf8.RuneCountInString(line)-col)
			}
			indent := indentFor(line, col)
			fmt.Fprintf(&b, "%s%s%s %s %s", comment, indent, strings.Repeat("^", width), roleNames(o.Roles), shortSymbol(o.Symbol))
			if o.Range.End.Line != o.Range.Start.Line {
				fmt.Fprintf(&b, " (to line %d)", o.Range.End.Line+1)
			}
			if o.Enclosing != "" {
				fmt.Fprintf(&b, " in %s", shortSymbol(o.Enclosing))
			}
			b.WriteString("\n")
			if o.Roles&graph.RoleDefinition == 0 || defined[o.Symbol] {
				continue
			}
			defined[o.Symbol] = true
			if err := renderDefinition(ctx, r, &b, comment+indent+strings.Repeat(" ", width+1), o.Symbol); err != nil {
				return "", err
			}
		}
	}
	return b.String(), nil
}

// renderDefinition writes a defined symbol's kind, extent and outgoing
// edges, each line starting with prefix.
func renderDefinition(ctx context.Context, r *graph.Reader, b *strings.Builder, prefix, id string) error {
	s, ok, err := r.Symbol(ctx, id)
	if err != nil {
		return err
	}
	if ok {
		fmt.Fprintf(b, "%skind %s", prefix, s.Kind)
		if s.DisplayName != "" {
			fmt.Fprintf(b, ", name %s", s.DisplayName)
		}
		if s.Package != "" {
			fmt.Fprintf(b, ", package %s", s.Package)
		}
		if s.DefExtent != (graph.Symbol{}).DefExtent {
			fmt.Fprintf(b, ", extent %s", s.DefExtent)
		}
		b.WriteString("\n")
		if s.Signature != "" {
			fmt.Fprintf(b, "%ssignature %s\n", prefix, oneLine(s.Signature))
		}
		if s.Doc != "" {
			fmt.Fprintf(b, "%sdoc %s\n", prefix, oneLine(s.Doc))
		}
	}
	edges, err := r.Outgoing(ctx, id, graph.EdgeFilter{})
	if err != nil {
		return err
	}
	slices.SortFunc(edges, func(a, b graph.Edge) int {
		return strings.Compare(string(a.Kind)+" "+a.To, string(b.Kind)+" "+b.To)
	})
	for _, e := range edges {
		fmt.Fprintf(b, "%s%s → %s ×%d confidence %.1f (%s)\n", prefix, e.Kind, shortSymbol(e.To), e.Count, e.Confidence, e.Reason)
	}
	return nil
}

// renderExternal lists the symbols of the external symbols section.
func renderExternal(ctx context.Context, r *graph.Reader) (string, error) {
	syms, err := r.DocumentSymbols(ctx, ExternalPath)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range syms {
		fmt.Fprintf(&b, "%s: kind %s, package %s, external %v\n", shortSymbol(s.ID), s.Kind, s.Package, s.External)
		if s.Signature != "" {
			fmt.Fprintf(&b, "  signature %s\n", oneLine(s.Signature))
		}
		edges, err := r.Outgoing(ctx, s.ID, graph.EdgeFilter{})
		if err != nil {
			return "", err
		}
		for _, e := range edges {
			fmt.Fprintf(&b, "  %s → %s ×%d confidence %.1f (%s)\n", e.Kind, shortSymbol(e.To), e.Count, e.Confidence, e.Reason)
		}
	}
	return b.String(), nil
}

// indentFor returns blanks as wide as the first col characters of line,
// keeping its tabs so that markers line up whatever the tab width.
func indentFor(line string, col int) string {
	var b strings.Builder
	for i, r := range []rune(line) {
		if i >= col {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	for n := utf8.RuneCountInString(b.String()); n < col; n++ {
		b.WriteByte(' ')
	}
	return b.String()
}

// runeCol converts a UTF-8 byte column to a count of characters, so that
// markers line up under the text they point at.
func runeCol(line string, col uint32) int {
	if int(col) > len(line) {
		return utf8.RuneCountInString(line) + int(col) - len(line)
	}
	return utf8.RuneCountInString(line[:col])
}

// shortSymbol drops the scheme and the package version of a symbol
// ("scip-go gomod example.com/goapp 0.1.0 `example.com/goapp/service`/X."
// becomes "gomod example.com/goapp `example.com/goapp/service`/X.") and the
// document path of a local.
func shortSymbol(s string) string {
	if strings.HasPrefix(s, "local ") {
		f := strings.Fields(s)
		return f[0] + " " + f[1]
	}
	var fields []string
	rest := s
	for len(fields) < 4 {
		i := strings.IndexByte(rest, ' ')
		for i >= 0 && i+1 < len(rest) && rest[i+1] == ' ' {
			j := strings.IndexByte(rest[i+2:], ' ')
			if j < 0 {
				i = -1
				break
			}
			i += 2 + j
		}
		if i < 0 {
			return s
		}
		fields = append(fields, rest[:i])
		rest = rest[i+1:]
	}
	return fields[1] + " " + fields[2] + " " + rest
}

func roleNames(r graph.Role) string {
	var names []string
	if r&graph.RoleDefinition != 0 {
		names = append(names, "definition")
	}
	if r&graph.RoleReference != 0 {
		names = append(names, "reference")
	}
	for _, x := range []struct {
		bit  graph.Role
		name string
	}{
		{graph.RoleImport, "import"}, {graph.RoleWrite, "write"}, {graph.RoleRead, "read"},
		{graph.RoleCall, "call"}, {graph.RoleTest, "test"}, {graph.RoleGenerated, "generated"},
		{graph.RoleForwardDefinition, "forward-definition"},
	} {
		if r&x.bit != 0 {
			names = append(names, x.name)
		}
	}
	return strings.Join(names, "+")
}

func docFlags(f graph.DocumentFlags) string {
	var names []string
	if f&graph.DocPositionsUnverified != 0 {
		names = append(names, "positions-unverified")
	}
	if f&graph.DocTest != 0 {
		names = append(names, "test")
	}
	if f&graph.DocGenerated != 0 {
		names = append(names, "generated")
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func sortedMapKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// lineDiff shows the first differing lines of two texts.
func lineDiff(want, got string) string {
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	var b bytes.Buffer
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
