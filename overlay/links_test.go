package overlay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/syntax"
)

// TestSymlinksNeverLeak: neither the syntax index nor the overlay's sync
// reads a file outside the workspace root through a symbolic link, tracked
// or untracked, to a file or a directory, into a sibling directory whose
// name starts with the root's, or as a project file; a link that stays
// inside is recorded under its target's path, once. A canary Go file
// outside (a doc comment and a function name that would be extracted)
// must appear nowhere in the store: not in any raw key or value, its dump
// or any file of its directory.
func TestSymlinksNeverLeak(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	type link struct {
		name, target string // target: "@/" starts the temporary directory holding the root
		tracked      bool
	}
	tests := []struct {
		name    string
		links   []link
		files   []string // IndexOptions.Files; nil lists the root
		skipped map[syntax.SkipReason]int
		outside int      // SyncStats.Outside
		hidden  []string // paths the live layer hides with a tombstone
		promise string
	}{
		{
			name:    "file link out",
			links:   []link{{"x.go", "@/outside/evil.go", true}},
			skipped: map[syntax.SkipReason]int{syntax.SkipOutside: 1},
			outside: 1, hidden: []string{"x.go"},
			promise: "a tracked link to a file outside is never read",
		},
		{
			name:    "relative link out",
			links:   []link{{"sub/x.go", "../../outside/evil.go", true}},
			skipped: map[syntax.SkipReason]int{syntax.SkipOutside: 1},
			outside: 1, hidden: []string{"sub/x.go"},
			promise: "a relative link climbing out from a subdirectory is never read",
		},
		{
			name:    "directory link out",
			links:   []link{{"dir", "@/outside", true}},
			files:   []string{"a.go", "real.go", "dir/evil.go"},
			skipped: map[syntax.SkipReason]int{syntax.SkipOutside: 1},
			promise: "a directory link out is not listed into, and a path through it is refused",
		},
		{
			name:    "prefix sibling",
			links:   []link{{"c.go", "../repo-evil/c.go", true}},
			skipped: map[syntax.SkipReason]int{syntax.SkipOutside: 1},
			outside: 1, hidden: []string{"c.go"},
			promise: "a sibling directory named like the root plus a suffix is outside it",
		},
		{
			name:    "untracked link",
			links:   []link{{"u.go", "@/outside/evil.go", false}},
			skipped: map[syntax.SkipReason]int{syntax.SkipOutside: 1},
			outside: 1, hidden: []string{"u.go"},
			promise: "an untracked link, which the overlay syncs, is never read",
		},
		{
			name:    "project file out",
			links:   []link{{"go.mod", "@/outside/go.mod", true}},
			skipped: map[syntax.SkipReason]int{},
			promise: "a go.mod linked from outside names no module",
		},
		{
			name:    "link inside",
			links:   []link{{"in.go", "real.go", true}},
			skipped: map[syntax.SkipReason]int{syntax.SkipLink: 1},
			hidden:  []string{"in.go"},
			promise: "a link inside is recorded under its target's path, once",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			secret := hex.EncodeToString(b)
			evil := "package evil\n\n// CANARY-" + secret + " a doc comment\nfunc Leak" + secret + "() {}\n"
			base := t.TempDir()
			root := filepath.Join(base, "repo")
			for p, text := range map[string]string{
				"outside/evil.go": evil,
				"outside/go.mod":  "module example.com/CANARY-" + secret + "\n",
				"repo-evil/c.go":  evil,
				"repo/real.go":    "package p\n\n// Inside is defined once.\nfunc Inside() {}\n",
				"repo/a.go":       "package p\n\nfunc A() { Inside() }\n",
			} {
				writeFile(t, filepath.Join(base, filepath.FromSlash(p)), text)
			}
			w := &workspace{t: t, root: root}
			w.git("init", "-q", "-b", "main")
			w.git("config", "user.email", "test@example.com")
			w.git("config", "user.name", "test")
			w.git("config", "commit.gpgsign", "false")
			baseCommit := w.commit("base")
			for _, l := range tt.links {
				target := l.target
				if rest, ok := strings.CutPrefix(target, "@/"); ok {
					target = filepath.Join(base, filepath.FromSlash(rest))
				}
				p := filepath.Join(root, filepath.FromSlash(l.name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, p); err != nil {
					t.Skipf("symbolic links unavailable: %v", err)
				}
				if l.tracked {
					w.git("add", l.name)
				}
			}
			w.git("commit", "-q", "--allow-empty", "-m", "links")

			dir := filepath.Join(t.TempDir(), "store")
			st, err := graph.Open(dir, graph.Options{})
			if err != nil {
				t.Fatal(err)
			}
			closed := false
			defer func() {
				if !closed {
					_ = st.Close()
				}
			}()
			// The base is the commit before the links, so that the
			// overlay's sync sees every link as a change to read.
			sum, err := syntax.Index(ctx, st, syntax.IndexOptions{Root: root, Files: tt.files, Commit: baseCommit, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(sum.Skipped, tt.skipped) {
				t.Errorf("index skipped %v; want %v (%s)", sum.Skipped, tt.skipped, tt.promise)
			}
			stats, err := Sync(ctx, st, root)
			if err != nil {
				t.Fatal(err)
			}
			if stats.Outside != tt.outside {
				t.Errorf("sync: Outside = %d; want %d (%s)", stats.Outside, tt.outside, tt.promise)
			}

			r, err := st.Reader()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tt.hidden {
				d, ok, err := r.Document(ctx, p)
				if err != nil || !ok || d.Layer != graph.Live || d.Digest != "deleted" {
					t.Errorf("Document(%s) = %+v, %v, %v; want a live tombstone (%s)", p, d, ok, err, tt.promise)
				}
			}
			if syms, err := r.FindSymbols(ctx, "Inside", false, 10); err != nil || len(syms) != 1 || syms[0].Def.Path != "real.go" {
				t.Errorf("FindSymbols(Inside) = %+v, %v; want one, defined in real.go (%s)", syms, err, tt.promise)
			}
			var dump bytes.Buffer
			if err := r.Dump(&dump); err != nil {
				t.Fatal(err)
			}
			_ = r.Close()
			if strings.Contains(dump.String(), secret) {
				t.Errorf("the store's dump holds the canary (%s):\n%s", tt.promise, dump.String())
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			closed = true
			records := 0
			graphtest.EachRecord(t, dir, func(k, v []byte) {
				records++
				if bytes.Contains(k, []byte(secret)) || bytes.Contains(v, []byte(secret)) {
					t.Errorf("record %q => %q holds the canary (%s)", k, v, tt.promise)
				}
			})
			if records == 0 {
				t.Fatal("the raw scan saw no records")
			}
			err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				if err == nil && bytes.Contains(data, []byte(secret)) {
					t.Errorf("%s in the store's directory holds the canary (%s)", d.Name(), tt.promise)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
