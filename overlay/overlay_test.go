package overlay

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/syntax"
)

// workspace is a copy of a fixture project in a scripted git repository.
type workspace struct {
	t    *testing.T
	root string
}

func newWorkspace(t *testing.T, fixture string) *workspace {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	w := &workspace{t: t, root: t.TempDir()}
	if err := copyTree(filepath.Join("..", "testdata", fixture), w.root); err != nil {
		t.Fatal(err)
	}
	w.git("init", "-q", "-b", "main")
	w.git("config", "user.email", "test@example.com")
	w.git("config", "user.name", "test")
	w.git("config", "commit.gpgsign", "false")
	w.commit("base")
	return w
}

func (w *workspace) git(args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", w.root}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (w *workspace) commit(msg string) string {
	w.t.Helper()
	w.git("add", "-A")
	w.git("commit", "-q", "--allow-empty", "-m", msg)
	return w.git("rev-parse", "HEAD")
}

func (w *workspace) read(p string) string {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(p)))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(data)
}

func (w *workspace) write(p, text string) {
	w.t.Helper()
	full := filepath.Join(w.root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// edit replaces old (which must occur once) with new in p.
func (w *workspace) edit(p, old, new string) {
	w.t.Helper()
	text := w.read(p)
	if strings.Count(text, old) != 1 {
		w.t.Fatalf("%s: %q occurs %d times", p, old, strings.Count(text, old))
	}
	w.write(p, strings.Replace(text, old, new, 1))
}

// fullIndex builds a syntax-only base generation of root's current files in
// a new in-memory store with syntax.Index, as `lspgraph index` does. Buffers
// stand in for their files: the tree is then indexed from a copy holding
// them, with the original's file list.
func fullIndex(t *testing.T, name, root, commit string, buffers map[string][]byte) *graph.Store {
	t.Helper()
	ctx := context.Background()
	s, err := graph.Open(name, graph.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	opts := syntax.IndexOptions{Root: root, Commit: commit, Workers: 2}
	if len(buffers) > 0 {
		if opts.Files, err = syntax.ListFiles(ctx, root); err != nil {
			t.Fatal(err)
		}
		opts.Root = t.TempDir()
		if err := copyTree(root, opts.Root); err != nil {
			t.Fatal(err)
		}
		for p, text := range buffers {
			if err := os.WriteFile(filepath.Join(opts.Root, filepath.FromSlash(p)), text, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := syntax.Index(ctx, s, opts); err != nil {
		t.Fatal(err)
	}
	return s
}

// copyTree copies a directory tree, leaving out .git.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

// answers renders what queries see: every visible symbol, its references,
// its incoming edges and its upstream traversal, every document's terms
// and every word's postings, one fact per line, sorted.
func answers(t *testing.T, s *graph.Store) []string {
	t.Helper()
	ctx := context.Background()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ids := map[string]bool{}
	words := map[string]bool{}
	var lines []string
	err = r.Documents(ctx, func(d graph.Document) error {
		ts, err := r.DocumentTerms(ctx, d.Path)
		if err != nil {
			return err
		}
		for _, tm := range ts {
			words[tm.Word] = true
			lines = append(lines, fmt.Sprintf("term %s %s/%s×%d", d.Path, tm.Word, tm.Field, tm.Count))
		}
		syms, err := r.DocumentSymbols(ctx, d.Path)
		for _, s := range syms {
			ids[s.ID] = true
		}
		occs, err2 := r.Occurrences(ctx, d.Path)
		for _, o := range occs {
			ids[o.Symbol] = true
		}
		if err == nil {
			err = err2
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every word's postings: the index a search reads, with the live
	// layer hiding what it replaced.
	for w := range words {
		ps, err := r.Postings(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			lines = append(lines, fmt.Sprintf("posting %s %s len=%d counts=%v", w, p.Path, p.Length, p.Counts))
		}
	}
	st, err := r.TermStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, fmt.Sprintf("term stats %+v", st))
	for id := range ids {
		sym, ok, err := r.Symbol(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			// Definition locations are compared through the references
			// (definitions included): a symbol several documents define
			// (a Go package) has no single one.
			lines = append(lines, fmt.Sprintf("sym %s kind=%s name=%s pkg=%s", id, sym.Kind, sym.DisplayName, sym.Package))
		}
		refs, err := r.References(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range refs {
			lines = append(lines, fmt.Sprintf("ref %s %s:%s roles=%d in=%s", id, o.Path, o.Range, o.Roles, o.Enclosing))
		}
		in, err := r.Incoming(ctx, id, graph.EdgeFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range in {
			lines = append(lines, fmt.Sprintf("in %s <-%s- %s count=%d conf=%.2f", id, e.Kind, e.From, e.Count, e.Confidence))
		}
		// Outgoing edges too: an edge left pointing at a symbol that is
		// gone shows only here.
		out, err := r.Outgoing(ctx, id, graph.EdgeFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out {
			lines = append(lines, fmt.Sprintf("out %s -%s-> %s count=%d conf=%.2f", id, e.Kind, e.To, e.Count, e.Confidence))
		}
		visits, _, err := r.Traverse(ctx, []string{id}, graph.TraverseOptions{Direction: graph.Upstream, MaxDepth: 3, MinConfidence: 0.7})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range visits {
			lines = append(lines, fmt.Sprintf("up %s d%d %s", id, v.Depth, v.Symbol))
		}
	}
	sort.Strings(lines)
	return lines
}

// compare fails when the incremental graph answers differently from the
// full rebuild.
func compare(t *testing.T, step string, incremental, full []string) {
	t.Helper()
	if len(full) == 0 {
		t.Fatalf("%s: the full rebuild answers nothing", step)
	}
	in := map[string]bool{}
	for _, l := range incremental {
		in[l] = true
	}
	fu := map[string]bool{}
	for _, l := range full {
		fu[l] = true
	}
	var ghost, missing []string
	for _, l := range incremental {
		if !fu[l] {
			ghost = append(ghost, l)
		}
	}
	for _, l := range full {
		if !in[l] {
			missing = append(missing, l)
		}
	}
	if len(ghost)+len(missing) > 0 {
		limit := func(s []string) string {
			if len(s) > 30 {
				s = append(s[:30:30], fmt.Sprintf("… %d more", len(s)-30))
			}
			return strings.Join(s, "\n  ")
		}
		t.Errorf("%s: incremental differs from full rebuild\nghost (incremental only):\n  %s\nmissing (full only):\n  %s", step, limit(ghost), limit(missing))
	}
}
