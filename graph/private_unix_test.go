//go:build unix

package graph

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestStoreFilesPrivate checks that, even under umask 000 and in an
// existing directory open to everyone, every file a store creates is mode
// 0600 and every directory 0700. It sets the process umask, so it must not
// run in parallel with other tests (none in this package calls t.Parallel).
func TestStoreFilesPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	check := func(when string, wantAny ...string) {
		t.Helper()
		seen := map[string]bool{}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			want := filePerm
			if d.IsDir() {
				want = dirPerm
			}
			if got := fi.Mode().Perm(); got != want {
				t.Errorf("%s: %s is mode %v, want %v", when, path, got, want)
			}
			base := filepath.Base(path)
			stem, _, _ := strings.Cut(base, "-")
			stem, _, _ = strings.Cut(stem, ".")
			seen[base], seen[stem], seen[filepath.Ext(base)] = true, true, true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wantAny {
			if !seen[w] {
				t.Errorf("%s: no %s file to check (saw %v)", when, w, seen)
			}
		}
	}

	s := openDisk(t, dir, Options{})
	gw, err := s.BeginGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gw.limit = 1 // spill a run file per document
	for i := range 3 {
		if err := gw.PutDocument(ctx, DocumentFacts{
			Document: Document{Path: fmt.Sprintf("f%d.go", i)},
			Symbols:  []Symbol{{ID: fmt.Sprintf("s%d", i), DisplayName: "s"}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	check("while a generation is written", ".run", "LOCK", pidFile)
	if err := gw.Commit(ctx, Manifest{Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDocument(ctx, Live, DocumentFacts{Document: Document{Path: "live.go"}}); err != nil {
		t.Fatal(err)
	}
	if err := WritePrivateFile(filepath.Join(dir, "overlay.state"), []byte("state")); err != nil {
		t.Fatal(err)
	}
	check("with a generation and live facts", ".sst", ".log", "MANIFEST", "OPTIONS", "marker", "overlay.state")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("closed")

	// Reopened read-only, then writable: still private.
	s = openDisk(t, dir, Options{ReadOnly: true})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if err := s.PutDocument(ctx, Live, DocumentFacts{Document: Document{Path: "again.go"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("reopened")
}

// TestOpenNarrowsExistingFiles checks that files an older version left
// wider are made private when the store writes them again.
func TestOpenNarrowsExistingFiles(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	s.Close()
	for _, name := range []string{"LOCK", pidFile} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, name), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	s = openDisk(t, dir, Options{})
	defer s.Close()
	for _, name := range []string{"LOCK", pidFile} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != filePerm {
			t.Errorf("%s is mode %v after Open, want %v", name, fi.Mode().Perm(), filePerm)
		}
	}
}
