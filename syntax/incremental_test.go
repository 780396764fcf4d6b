package syntax

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// copyGoTree copies the Go files of GOROOT/src/dir into root/dir.
func copyGoTree(t *testing.T, root, dir string) {
	t.Helper()
	src := filepath.Join(runtime.GOROOT(), "src", dir)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "/testdata/") {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(root, dir, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// editFile applies fn to a file of root.
func editFile(t *testing.T, root, rel string, fn func(string) string) {
	t.Helper()
	p := filepath.Join(root, rel)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	after := fn(string(data))
	if after == string(data) {
		t.Fatalf("editing %s changed nothing", rel)
	}
	if err := os.WriteFile(p, []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
}

// deleteFunc removes the top-level function whose declaration line starts
// with decl, up to its closing brace at the start of a line.
func deleteFunc(decl string) func(string) string {
	return func(s string) string {
		i := strings.Index(s, "\n"+decl)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i+1:], "\n}\n")
		if j < 0 {
			return s
		}
		return s[:i+1] + s[i+1+j+3:]
	}
}

// generationLines is the dump of a store's base generation, its symbol
// table left out (a patched generation keeps the ids of symbols no
// document names any more).
func generationLines(t *testing.T, st *graph.Store) []string {
	t.Helper()
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	if err := r.Dump(&buf); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, "gen") && !strings.Contains(l, "/symid ") {
			out = append(out, l)
		}
	}
	return out
}

// openTestStore opens a new store named name in a directory of the test's.
func openTestStore(t *testing.T, name string) *graph.Store {
	t.Helper()
	st, err := graph.Open(filepath.Join(t.TempDir(), name), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestIncrementalIndexEqualsFull indexes a copy of real Go packages,
// changes them (a function added, one renamed, one deleted, a comment
// added, a file deleted, a file added) and indexes again: the generation
// brought up to date must hold exactly the facts, term index included, of
// a full index of the changed tree.
func TestIncrementalIndexEqualsFull(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for _, dir := range []string{"go/token", "go/scanner", "go/ast", "go/parser"} {
		copyGoTree(t, root, dir)
	}
	cache, err := OpenFactCache(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// As the command line's index runs: the table of definitions mapped.
	opts := IndexOptions{Root: root, Workers: 2, Cache: cache, TempDir: t.TempDir(), ExitsAfter: true}
	inc := openTestStore(t, "incremental")
	first, err := Index(ctx, inc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Incremental {
		t.Fatal("the first index of a store was incremental")
	}
	checkDocStates(t, inc)

	steps := []struct {
		name string
		edit func()
	}{
		{"comment", func() {
			editFile(t, root, "go/ast/ast.go", func(s string) string { return s + "\n// a comment\n" })
		}},
		{"add function", func() {
			editFile(t, root, "go/token/position.go", func(s string) string {
				return s + "\nfunc AddedByTest(f *File) Pos { return f.Pos(0) }\n"
			})
		}},
		{"comment after a change", func() {
			// The table an incremental index wrote, with its indexes,
			// serves the next one.
			editFile(t, root, "go/token/position.go", func(s string) string { return s + "\n// another comment\n" })
		}},
		{"rename function", func() {
			editFile(t, root, "go/token/token.go", func(s string) string {
				return strings.Replace(s, "func Lookup(", "func LookupRenamed(", 1)
			})
		}},
		{"delete function", func() {
			editFile(t, root, "go/token/token.go", deleteFunc("func IsExported("))
			// The table of definitions damaged: the store's definitions
			// serve instead.
			if err := os.WriteFile(filepath.Join(inc.Dir(), defTableFile), []byte("damaged"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"delete file", func() {
			if err := os.Remove(filepath.Join(root, "go/ast/walk.go")); err != nil {
				t.Fatal(err)
			}
			// The documents' states damaged: the store's serve instead.
			if err := os.WriteFile(filepath.Join(inc.Dir(), docStatesFile), []byte("damaged"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"add file", func() {
			src := "package ast\n\n// Walk2 is Inspect under another name.\nfunc Walk2(node Node, f func(Node) bool) { Inspect(node, f) }\n\n" +
				"func Walk(v Visitor, node Node) { Walk2(node, func(n Node) bool { return v.Visit(n) != nil }) }\n"
			if err := os.WriteFile(filepath.Join(root, "go/ast/walk2.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	tableToken := func() int { return graphtest.BaseManifest(t, inc).Extra[extraDefTable] }
	for k, step := range steps {
		before := tableToken()
		step.edit()
		sum, err := Index(ctx, inc, opts)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		// The table of definitions the next index reads: the same when
		// no definition changed (the index read it), else a new one.
		token := tableToken()
		if _, err := readDefTable(inc.Dir(), token, false); err != nil {
			t.Errorf("%s: the table of definitions: %v", step.name, err)
		}
		if keep := strings.HasPrefix(step.name, "comment"); (token == before) != keep {
			t.Errorf("%s: the table of definitions was kept: %v, want %v", step.name, token == before, keep)
		}
		if !sum.Incremental {
			t.Fatalf("%s: the index was not incremental", step.name)
		}
		checkDocStates(t, inc)
		if sum.Resolved >= first.Indexed/2 {
			t.Errorf("%s: %d documents resolved again of %d", step.name, sum.Resolved, first.Indexed)
		}
		full := openTestStore(t, "full"+string(rune('a'+k)))
		fopts := opts
		fopts.Full = true
		fsum, err := Index(ctx, full, fopts)
		if err != nil {
			t.Fatal(err)
		}
		got, want := generationLines(t, inc), generationLines(t, full)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the incremental index differs from the full one (resolved %d, changed %d, deleted %d)\n%s",
				step.name, sum.Resolved, sum.Changed, sum.Deleted, incrementalDiff(got, want))
		}
		if sum.Symbols != fsum.Symbols || sum.Indexed != fsum.Indexed || sum.Files != fsum.Files {
			t.Errorf("%s: summary %d symbols %d indexed %d files, full %d %d %d", step.name,
				sum.Symbols, sum.Indexed, sum.Files, fsum.Symbols, fsum.Indexed, fsum.Files)
		}
		t.Logf("%s: changed %d, resolved %d, deleted %d of %d documents", step.name, sum.Changed, sum.Resolved, sum.Deleted, sum.Files)
	}
}

// checkDocStates checks that the documents' states the last commit of st
// left beside it are the store's.
func checkDocStates(t *testing.T, st *graph.Store) {
	t.Helper()
	m := graphtest.BaseManifest(t, st)
	got, err := readDocStates(st.Dir(), m.Extra[extraDocStates], false)
	if err != nil {
		t.Fatalf("the documents' states of the last commit: %v", err)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want, err := readStoreDocStates(context.Background(), r, m.Documents)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != m.Documents {
		t.Errorf("the file holds %d documents' states, the store %d, the manifest counts %d", len(got), len(want), m.Documents)
	}
	for p, w := range want {
		g, ok := got[p]
		if !ok || g.hash != w.hash || g.language != w.language || g.lookups != w.lookups {
			t.Errorf("%s: the file's state (%v: %.12s %s, %d bytes of lookups) is not the store's (%.12s %s, %d bytes)",
				p, ok, g.hash, g.language, len(g.lookups), w.hash, w.language, len(w.lookups))
		}
	}
}

// incrementalDiff lists the lines only one side has (at most 20 of each).
func incrementalDiff(got, want []string) string {
	in := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var b strings.Builder
	n := 0
	for _, s := range got {
		if !w[s] && n < 20 {
			b.WriteString("  incremental only: " + s + "\n")
			n++
		}
	}
	n = 0
	for _, s := range want {
		if !g[s] && n < 20 {
			b.WriteString("  full only:        " + s + "\n")
			n++
		}
	}
	return b.String()
}

// TestIncrementalIndexDeletesEqualFull deletes the files of the other
// languages' fixtures one at a time (TS/JS default exports, Python star
// imports, Java and Rust packages): after each, the generation brought up
// to date must hold exactly the facts of a full index.
func TestIncrementalIndexDeletesEqualFull(t *testing.T) {
	ctx := context.Background()
	for _, fixture := range []string{"jsapp", "pystar", "javaapp", "rustcrate"} {
		t.Run(fixture, func(t *testing.T) {
			root := t.TempDir()
			src := filepath.Join("testdata", fixture)
			var files []string
			err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(src, p)
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
					return err
				}
				if grammarFor(filepath.ToSlash(rel)) != "" {
					files = append(files, rel)
				}
				return os.WriteFile(filepath.Join(root, rel), data, 0o644)
			})
			if err != nil {
				t.Fatal(err)
			}
			opts := IndexOptions{Root: root, Workers: 2, TempDir: t.TempDir()}
			inc, err := graph.Open(filepath.Join(t.TempDir(), "incremental"), graph.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer inc.Close()
			if _, err := Index(ctx, inc, opts); err != nil {
				t.Fatal(err)
			}
			// Up to a third of the files: an index that loses half is
			// built in full (see IndexOptions.AllowShrink).
			for _, rel := range files[:max(1, len(files)/3)] {
				if err := os.Remove(filepath.Join(root, rel)); err != nil {
					t.Fatal(err)
				}
				sum, err := Index(ctx, inc, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !sum.Incremental || sum.Deleted != 1 {
					t.Fatalf("deleting %s: incremental %v, %d deleted", rel, sum.Incremental, sum.Deleted)
				}
				full, err := graph.Open(filepath.Join(t.TempDir(), "full"), graph.Options{})
				if err != nil {
					t.Fatal(err)
				}
				fopts := opts
				fopts.Full = true
				if _, err := Index(ctx, full, fopts); err != nil {
					t.Fatal(err)
				}
				if got, want := generationLines(t, inc), generationLines(t, full); !slices.Equal(got, want) {
					t.Errorf("deleting %s: the incremental index differs from the full one (resolved %d)\n%s",
						rel, sum.Resolved, incrementalDiff(got, want))
				}
				full.Close()
				t.Logf("deleting %s: resolved %d of %d", rel, sum.Resolved, sum.Files)
			}
		})
	}
}

// TestIncrementalIndexReadsChangedFiles: a file whose size and time are
// those its document recorded is not read again; one written since is, and
// the index still equals a full one.
func TestIncrementalIndexReadsChangedFiles(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	copyGoTree(t, root, "go/token")
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := IndexOptions{Root: root, Workers: 2, TempDir: t.TempDir()}
	inc, err := graph.Open(filepath.Join(t.TempDir(), "incremental"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer inc.Close()
	if _, err := Index(ctx, inc, opts); err != nil {
		t.Fatal(err)
	}
	sum, err := Index(ctx, inc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Incremental || sum.Hashed != 0 || sum.Changed != 0 {
		t.Fatalf("nothing changed: incremental %v, %d files hashed, %d changed", sum.Incremental, sum.Hashed, sum.Changed)
	}
	editFile(t, root, "go/token/token.go", func(s string) string {
		return strings.Replace(s, "func Lookup(", "func LookupRenamed(", 1)
	})
	if sum, err = Index(ctx, inc, opts); err != nil {
		t.Fatal(err)
	}
	if !sum.Incremental || sum.Hashed != 1 || sum.Changed != 1 {
		t.Fatalf("one file changed: incremental %v, %d files hashed, %d changed", sum.Incremental, sum.Hashed, sum.Changed)
	}
	// The edit was read within rootfs.RacyWindow of its time, which vouches for
	// nothing: the next index reads it again. Once its time is older than
	// the window when it is read, it is recorded, and not read after.
	for _, step := range []struct {
		what   string
		age    time.Duration // the edited file's time set back by this much first (0: left)
		hashed int
	}{
		{"the edit's time is too recent", 0, 1},
		{"its time is set back past the window", 2 * rootfs.RacyWindow, 1},
		{"its time was recorded", 0, 0},
	} {
		if step.age > 0 {
			back := time.Now().Add(-step.age)
			if err := os.Chtimes(filepath.Join(root, "go/token/token.go"), back, back); err != nil {
				t.Fatal(err)
			}
		}
		if sum, err = Index(ctx, inc, opts); err != nil {
			t.Fatal(err)
		}
		if !sum.Incremental || sum.Hashed != step.hashed || sum.Changed != 0 {
			t.Fatalf("%s: incremental %v, %d files hashed (want %d), %d changed", step.what, sum.Incremental, sum.Hashed, step.hashed, sum.Changed)
		}
		checkDocStates(t, inc) // the time recorded there too
	}
	full, err := graph.Open(filepath.Join(t.TempDir(), "full"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	fopts := opts
	fopts.Full = true
	if _, err := Index(ctx, full, fopts); err != nil {
		t.Fatal(err)
	}
	if got, want := generationLines(t, inc), generationLines(t, full); !slices.Equal(got, want) {
		t.Errorf("the incremental index differs from the full one\n%s", incrementalDiff(got, want))
	}
}

// TestIndexTakesListing: an index given a listing started ahead uses it
// (a file added after the walk is not indexed), once: the next index with
// the same options lists again. A listing no index took is released by
// Close.
func TestIndexTakesListing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	copyGoTree(t, root, "go/token")
	opts := IndexOptions{Root: root, Workers: 2, TempDir: t.TempDir()}
	st := openTestStore(t, "listed")
	for _, incremental := range []bool{false, true} {
		opts.Listing = StartListing(ctx, opts)
		<-opts.Listing.done
		added := fmt.Sprintf("go/token/added_%v.go", incremental)
		if err := os.WriteFile(filepath.Join(root, added), []byte("package token\n\nfunc Added() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		listed := opts.Listing.plan.listed
		sum, err := Index(ctx, st, opts)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Incremental != incremental || sum.Files != listed {
			t.Errorf("with the listing: incremental %v, %d files; want %v, %d (the listing's)", sum.Incremental, sum.Files, incremental, listed)
		}
		if sum, err = Index(ctx, st, opts); err != nil {
			t.Fatal(err)
		}
		if sum.Files != listed+1 {
			t.Errorf("the listing taken, the next index listed %d files, want %d", sum.Files, listed+1)
		}
		opts.Listing.Close() // taken: nothing to release
	}
	l := StartListing(ctx, opts)
	l.Close()
	if _, ok, _ := l.take(); ok {
		t.Error("a closed listing could still be taken")
	}
}
