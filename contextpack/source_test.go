package contextpack

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSourceRead(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFile(t, filepath.Join(root, "a", "a.go"), "package a\n")
	writeFile(t, filepath.Join(base, "secret.txt"), "SECRET\n")
	writeFile(t, filepath.Join(base, "outdir", "b.go"), "package b\n")
	writeFile(t, filepath.Join(base, "ws-evil", "c.go"), "package evil // SECRET\n")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(root, "leak.go")))
	must(os.Symlink("a/a.go", filepath.Join(root, "alias.go")))
	must(os.Symlink(filepath.Join(base, "outdir"), filepath.Join(root, "outlink")))
	must(os.Symlink("../../secret.txt", filepath.Join(root, "a", "rel.go")))
	must(os.Symlink("../ws-evil/c.go", filepath.Join(root, "sibling.go")))
	must(os.Symlink(filepath.Join(base, "nowhere.go"), filepath.Join(root, "dangling.go")))

	src := Source{Root: root}
	for _, tc := range []struct {
		path string
		want string // content, or "" for an error
		err  error
	}{
		{"a/a.go", "package a\n", nil},
		{"alias.go", "package a\n", nil}, // a symlink inside the root is fine
		{"leak.go", "", ErrEscapes},      // absolute symlink out of the root
		{"a/rel.go", "", ErrEscapes},     // relative symlink out of the root
		{"outlink/b.go", "", ErrEscapes}, // a directory symlink out of the root
		{"sibling.go", "", ErrEscapes},   // a symlink into a sibling named like the root plus a suffix
		{"dangling.go", "", ErrEscapes},  // out of the root, whether or not the target exists
		{"../secret.txt", "", ErrEscapes},
		{"a/../../secret.txt", "", ErrEscapes},
		{filepath.Join(base, "secret.txt"), "", ErrEscapes},
		{"/etc/passwd", "", ErrEscapes},
		{"", "", ErrEscapes},
		{"missing.go", "", ErrAbsent},
		{"a", "", ErrAbsent}, // a directory is not a document
	} {
		b, err := src.Read(tc.path)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("Read(%q) = %q, %v; want error %v", tc.path, b, err, tc.err)
			}
			if len(b) != 0 {
				t.Errorf("Read(%q) returned text with an error", tc.path)
			}
			if msg := err.Error(); strings.Contains(msg, "SECRET") || strings.Contains(msg, "secret.txt") && !strings.Contains(tc.path, "secret.txt") || strings.Contains(msg, base+string(filepath.Separator)) && !filepath.IsAbs(tc.path) {
				t.Errorf("Read(%q) error %q tells where the link leads", tc.path, msg)
			}
			continue
		}
		if err != nil || string(b) != tc.want {
			t.Errorf("Read(%q) = %q, %v; want %q", tc.path, b, err, tc.want)
		}
	}
}

func TestSourceOverlay(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.go"), "package a // on disk\n")
	src := Source{Root: root, Overlay: func(p string) ([]byte, bool) {
		if p == "a.go" || p == "../x.go" {
			return []byte("package a // unsaved\n"), true
		}
		return nil, false
	}}
	if b, err := src.Read("a.go"); err != nil || string(b) != "package a // unsaved\n" {
		t.Errorf("Read(a.go) = %q, %v; want the unsaved buffer", b, err)
	}
	// The path check comes before the overlay.
	if _, err := src.Read("../x.go"); !errors.Is(err, ErrEscapes) {
		t.Errorf("Read(../x.go) error = %v; want ErrEscapes even from the overlay", err)
	}
	if _, err := (Source{}).Read("a.go"); !errors.Is(err, ErrAbsent) {
		t.Errorf("Read without a root: error = %v; want ErrAbsent", err)
	}
}
