package rootfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// layout is a workspace root with links inside and out of it, a canary
// file outside that no read may return, and a sibling directory whose name
// starts with the root's.
type layout struct {
	base, root, outside, sibling string
	canary                       string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	l := layout{
		base:    base,
		root:    filepath.Join(base, "repo"),
		outside: filepath.Join(base, "outside"),
		sibling: filepath.Join(base, "repo-evil"),
		canary:  "CANARY-" + hex.EncodeToString(b),
	}
	files := map[string]string{
		"repo/a.go":          "package a\n",
		"repo/sub/b.go":      "package sub\n",
		"outside/evil.go":    "package evil\n// " + l.canary + "\nfunc Leak() {}\n",
		"repo-evil/c.go":     "package evil\n// " + l.canary + "\nfunc Leak() {}\n",
		"repo/.keep":         "",
		"outside/.keep":      "",
		"repo-evil/sub/d.go": "package sub\n// " + l.canary + "\n",
	}
	for name, text := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"link.go":       "a.go",
		"abslink.go":    filepath.Join(l.root, "sub", "b.go"),
		"chain.go":      "link.go",
		"updown.go":     "../repo/a.go",
		"sublink":       "sub",
		"sub/uplink.go": "../a.go",
		"rootlink":      ".",
		"evil.go":       filepath.Join(l.outside, "evil.go"),
		"relevil.go":    "../outside/evil.go",
		"sibling.go":    "../repo-evil/c.go",
		"abssibling.go": filepath.Join(l.sibling, "c.go"),
		"outdir":        l.outside,
		"siblingdir":    "../repo-evil/sub",
		"missing.go":    filepath.Join(l.base, "nowhere", "x.go"),
		"dev.go":        "/dev/zero",
		"sub/escape.go": "../../outside/evil.go",
		"loop.go":       "loop.go",
		"dangling.go":   "absent.go",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(l.root, filepath.FromSlash(name))); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	return l
}

func open(t *testing.T, dir string) *Root {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func TestReadFile(t *testing.T) {
	l := newLayout(t)
	r := open(t, l.root)
	tests := []struct {
		rel     string
		want    string // content, when the read succeeds
		real    string // RealPath, when it succeeds
		wantErr error
		promise string
	}{
		{"a.go", "package a\n", "a.go", nil, "a regular file is read"},
		{"sub/b.go", "package sub\n", "sub/b.go", nil, "a file in a subdirectory is read"},
		{"./sub/../a.go", "package a\n", "a.go", nil, "a path is cleaned lexically"},
		{"link.go", "package a\n", "a.go", nil, "a relative link inside is followed to its real path"},
		{"abslink.go", "package sub\n", "sub/b.go", nil, "an absolute link inside is followed"},
		{"chain.go", "package a\n", "a.go", nil, "a chain of links inside is followed"},
		{"updown.go", "package a\n", "a.go", nil, "a link that climbs out and comes back is inside"},
		{"sublink/b.go", "package sub\n", "sub/b.go", nil, "a directory link inside is followed"},
		{"sub/uplink.go", "package a\n", "a.go", nil, "a link is resolved from its own directory"},
		{"rootlink/a.go", "package a\n", "a.go", nil, "a link to the root itself is inside"},
		{"evil.go", "", "", ErrOutside, "an absolute file link out is refused"},
		{"relevil.go", "", "", ErrOutside, "a relative file link out is refused"},
		{"sibling.go", "", "", ErrOutside, "a link into a prefix sibling is refused"},
		{"abssibling.go", "", "", ErrOutside, "an absolute link into a prefix sibling is refused"},
		{"outdir/evil.go", "", "", ErrOutside, "a directory link out is refused"},
		{"siblingdir/d.go", "", "", ErrOutside, "a directory link into a prefix sibling is refused"},
		{"missing.go", "", "", ErrOutside, "a dangling link out is refused like any other"},
		{"dev.go", "", "", ErrOutside, "a link to a device outside is refused without opening it"},
		{"sub/escape.go", "", "", ErrOutside, "a link climbing out from a subdirectory is refused"},
		{"../outside/evil.go", "", "", ErrOutside, "a path climbing out is refused"},
		{"sub/../../outside/evil.go", "", "", ErrOutside, "a path climbing out through a directory is refused"},
		{filepath.Join(l.outside, "evil.go"), "", "", ErrOutside, "an absolute path is refused"},
		{"sub", "", "sub", ErrNotRegular, "a directory is not read"},
		{"sublink", "", "sub", ErrNotRegular, "a link to a directory is not read"},
		{"absent.go", "", "", fs.ErrNotExist, "a missing file is not found"},
		{"dangling.go", "", "", fs.ErrNotExist, "a dangling link inside is not found"},
		{"a.go/x", "", "", nil, "a file is not a directory"},
		{"loop.go", "", "", nil, "a link loop stops"},
		{"", "", "", fs.ErrInvalid, "an empty path is refused"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			got, err := r.ReadFile(tt.rel)
			failing := tt.want == ""
			switch {
			case !failing && err != nil:
				t.Fatalf("ReadFile(%q) = %v; want it read (%s)", tt.rel, err, tt.promise)
			case !failing && string(got) != tt.want:
				t.Fatalf("ReadFile(%q) = %q; want %q (%s)", tt.rel, got, tt.want, tt.promise)
			case failing && err == nil:
				t.Fatalf("ReadFile(%q) = %q; want an error (%s)", tt.rel, got, tt.promise)
			case failing && tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("ReadFile(%q) error = %v; want %v (%s)", tt.rel, err, tt.wantErr, tt.promise)
			}
			if failing && strings.Contains(string(got), l.canary) {
				t.Fatalf("ReadFile(%q) returned the canary (%s)", tt.rel, tt.promise)
			}
			// ReadFileString reads and refuses the same.
			str, serr := r.ReadFileString(tt.rel)
			switch {
			case str != string(got) || (serr == nil) != (err == nil):
				t.Fatalf("ReadFileString(%q) = %q, %v; ReadFile %q, %v (%s)", tt.rel, str, serr, got, err, tt.promise)
			case failing && tt.wantErr != nil && !errors.Is(serr, tt.wantErr):
				t.Fatalf("ReadFileString(%q) error = %v; want %v (%s)", tt.rel, serr, tt.wantErr, tt.promise)
			}
			real, err := r.RealPath(tt.rel)
			switch {
			case tt.real != "" && (err != nil || real != tt.real):
				t.Errorf("RealPath(%q) = %q, %v; want %q (%s)", tt.rel, real, err, tt.real, tt.promise)
			case errors.Is(tt.wantErr, ErrOutside) && !errors.Is(err, ErrOutside):
				t.Errorf("RealPath(%q) error = %v; want ErrOutside (%s)", tt.rel, err, tt.promise)
			}
			if _, err := r.Stat(tt.rel); errors.Is(tt.wantErr, ErrOutside) && !errors.Is(err, ErrOutside) {
				t.Errorf("Stat(%q) error = %v; want ErrOutside (%s)", tt.rel, err, tt.promise)
			}
		})
	}
}

// TestOutsideErrorsTellNothing: a refusal names the path asked for and
// says nothing about the target: not where it points, whether it exists,
// what kind of file it is, its size or its content.
func TestOutsideErrorsTellNothing(t *testing.T) {
	l := newLayout(t)
	r := open(t, l.root)
	links := []string{"evil.go", "relevil.go", "sibling.go", "abssibling.go", "missing.go", "dev.go", "sub/escape.go", "outdir/evil.go", "siblingdir/d.go"}
	var shape string
	for _, rel := range links {
		_, rerr := r.ReadFile(rel)
		_, serr := r.Stat(rel)
		_, perr := r.RealPath(rel)
		for _, err := range []error{rerr, serr, perr} {
			if !errors.Is(err, ErrOutside) {
				t.Fatalf("%s: error = %v; want ErrOutside", rel, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, rel) {
				t.Errorf("%s: error %q does not name the path asked for", rel, msg)
			}
			for _, secret := range []string{l.canary, l.outside, l.sibling, "repo-evil", "outside/", "nowhere", "/dev", "zero", "exist", "such file", "Leak", "package"} {
				if strings.Contains(msg, secret) {
					t.Errorf("%s: error %q reveals %q about the target", rel, msg, secret)
				}
			}
			// One shape for every target, existing or not.
			if s := strings.Replace(msg, rel, "PATH", 1); shape == "" {
				shape = s
			} else if s != shape {
				t.Errorf("%s: error %q differs in shape from %q", rel, s, shape)
			}
		}
	}
}

func TestRel(t *testing.T) {
	l := newLayout(t)
	r := open(t, l.root)
	tests := []struct {
		abs     string
		want    string
		promise string
	}{
		{l.root, ".", "the root itself"},
		{l.root + string(filepath.Separator), ".", "the root with a trailing separator"},
		{filepath.Join(l.root, "a.go"), "a.go", "a file inside"},
		{filepath.Join(l.root, "never", "made.go"), "never/made.go", "lexical: a path that does not exist"},
		{l.root + "/sub/../a.go", "a.go", "cleaned first"},
		{filepath.Join(l.root, "evil.go"), "evil.go", "lexical: a link is not looked at"},
		{filepath.Join(l.sibling, "c.go"), "", "a prefix sibling is outside"},
		{l.sibling, "", "the prefix sibling itself is outside"},
		{l.root + "/../repo-evil/c.go", "", "climbing into a prefix sibling is outside"},
		{filepath.Join(l.outside, "evil.go"), "", "another directory is outside"},
		{l.base, "", "the root's parent is outside"},
		{"a.go", "", "a relative path is refused"},
		{"", "", "an empty path is refused"},
	}
	for _, tt := range tests {
		t.Run(tt.abs, func(t *testing.T) {
			got, err := r.Rel(tt.abs)
			if tt.want == "" {
				if !errors.Is(err, ErrOutside) {
					t.Fatalf("Rel(%q) = %q, %v; want ErrOutside (%s)", tt.abs, got, err, tt.promise)
				}
				if _, data, err := r.ReadAbs(tt.abs); !errors.Is(err, ErrOutside) || data != nil {
					t.Fatalf("ReadAbs(%q) = %q, %v; want ErrOutside (%s)", tt.abs, data, err, tt.promise)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Rel(%q) = %q, %v; want %q (%s)", tt.abs, got, err, tt.want, tt.promise)
			}
		})
	}
	rel, data, err := r.ReadAbs(filepath.Join(l.root, "link.go"))
	if err != nil || rel != "link.go" || string(data) != "package a\n" {
		t.Errorf("ReadAbs(root/link.go) = %q, %q, %v; want link.go and a.go's text", rel, data, err)
	}
}

// TestOpenRelative: a relative directory is made absolute and cleaned.
func TestOpenRelative(t *testing.T) {
	l := newLayout(t)
	t.Chdir(l.base)
	r := open(t, "./repo/sub/..")
	if r.Dir() != l.root {
		t.Errorf("Dir() = %q; want %q", r.Dir(), l.root)
	}
	if b, err := r.ReadFile("a.go"); err != nil || string(b) != "package a\n" {
		t.Errorf("ReadFile(a.go) = %q, %v", b, err)
	}
}

// TestRootThroughLink: a root opened through a symbolic link accepts
// absolute paths in both its forms and still refuses what leaves it.
func TestRootThroughLink(t *testing.T) {
	l := newLayout(t)
	via := filepath.Join(l.base, "via")
	if err := os.Symlink(l.root, via); err != nil {
		t.Skip(err)
	}
	r := open(t, via)
	for _, abs := range []string{filepath.Join(via, "a.go"), filepath.Join(l.root, "a.go")} {
		if rel, err := r.Rel(abs); err != nil || rel != "a.go" {
			t.Errorf("Rel(%q) = %q, %v; want a.go", abs, rel, err)
		}
	}
	if b, err := r.ReadFile("abslink.go"); err != nil || string(b) != "package sub\n" {
		t.Errorf("ReadFile(abslink.go) = %q, %v; want sub/b.go's text", b, err)
	}
	if _, err := r.ReadFile("sibling.go"); !errors.Is(err, ErrOutside) {
		t.Errorf("ReadFile(sibling.go) error = %v; want ErrOutside", err)
	}
}

// TestNoRoot: a nil Root, or one never opened, reads nothing.
func TestNoRoot(t *testing.T) {
	if _, err := Open(""); !errors.Is(err, ErrNoRoot) {
		t.Errorf("Open(\"\") error = %v; want ErrNoRoot", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("Open of a missing directory succeeded")
	}
	for name, r := range map[string]*Root{"nil": nil, "zero": {}} {
		if b, err := r.ReadFile("a.go"); !errors.Is(err, ErrNoRoot) || b != nil {
			t.Errorf("%s: ReadFile = %q, %v; want ErrNoRoot", name, b, err)
		}
		if _, err := r.Stat("a.go"); !errors.Is(err, ErrNoRoot) {
			t.Errorf("%s: Stat error = %v; want ErrNoRoot", name, err)
		}
		if _, err := r.RealPath("a.go"); !errors.Is(err, ErrNoRoot) {
			t.Errorf("%s: RealPath error = %v; want ErrNoRoot", name, err)
		}
		if _, err := r.Rel("/a.go"); !errors.Is(err, ErrNoRoot) {
			t.Errorf("%s: Rel error = %v; want ErrNoRoot", name, err)
		}
		if _, _, err := r.ReadAbs("/etc/passwd"); !errors.Is(err, ErrNoRoot) {
			t.Errorf("%s: ReadAbs error = %v; want ErrNoRoot", name, err)
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s: Close = %v", name, err)
		}
	}
	if d := (*Root)(nil).Dir(); d != "" {
		t.Errorf("nil Dir() = %q", d)
	}
}

// TestLstatIn holds LstatIn to RealStat: for every entry of the layout's
// directories (links to directories among them), an entry that is not a
// link is what RealStat says of its path, at the directory's real path; a
// link is reported as one, not followed; a directory leading outside is
// refused.
func TestLstatIn(t *testing.T) {
	l := newLayout(t)
	r := open(t, l.root)
	for _, dir := range []string{".", "sub", "sublink", "rootlink", "rootlink/sub"} {
		entries, err := os.ReadDir(filepath.Join(l.root, filepath.FromSlash(dir)))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		names = append(names, "absent.go")
		real, fis, errs, err := r.LstatIn(dir, names)
		if err != nil {
			t.Fatalf("LstatIn(%s): %v", dir, err)
		}
		for i, name := range names {
			p := dir + "/" + name
			wantReal, wantFi, wantErr := r.RealStat(p)
			switch {
			case errs[i] != nil:
				if wantErr == nil && !isLink(l, p) {
					t.Errorf("LstatIn(%s) %s: %v, RealStat found %s", dir, name, errs[i], wantReal)
				}
			case fis[i].Mode()&fs.ModeSymlink != 0:
				if !isLink(l, p) {
					t.Errorf("LstatIn(%s) %s: a link, but %s is none", dir, name, p)
				}
			case wantErr != nil:
				t.Errorf("LstatIn(%s) %s: found, RealStat: %v", dir, name, wantErr)
			default:
				got := path.Join(real, name)
				if got != wantReal || fis[i].Size() != wantFi.Size() || fis[i].Mode() != wantFi.Mode() || !fis[i].ModTime().Equal(wantFi.ModTime()) {
					t.Errorf("LstatIn(%s) %s: %s %v, RealStat: %s %v", dir, name, got, fis[i].Mode(), wantReal, wantFi.Mode())
				}
			}
		}
	}
	for _, dir := range []string{"outdir", "siblingdir", "../outside", l.outside} {
		if _, _, _, err := r.LstatIn(dir, []string{"evil.go"}); !errors.Is(err, ErrOutside) {
			t.Errorf("LstatIn(%s) = %v, want ErrOutside", dir, err)
		}
	}
	if _, _, _, err := r.LstatIn("a.go", []string{"x"}); err == nil {
		t.Error("LstatIn of a file succeeded")
	}
	if _, _, errs, err := r.LstatIn(".", []string{"..", "sub/b.go", ""}); err != nil || errs[0] == nil || errs[1] == nil || errs[2] == nil {
		t.Errorf("LstatIn accepted a name that is not one: %v %v", err, errs)
	}
}

// isLink reports whether the workspace path p is a symbolic link itself.
func isLink(l layout, p string) bool {
	fi, err := os.Lstat(filepath.Join(l.root, filepath.FromSlash(p)))
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// TestListerAsLstatIn holds a Lister, asked for directories in an order
// that enters, leaves and re-enters them through links and "..", to
// LstatIn: the same real paths, entries and refusals.
func TestListerAsLstatIn(t *testing.T) {
	l := newLayout(t)
	for _, d := range []string{"sub/x/y", "sub/z"} {
		if err := os.MkdirAll(filepath.Join(l.root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(l.root, filepath.FromSlash(d), "f.go"), []byte("package f\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../../sub", filepath.Join(l.root, "sub", "x", "back")); err != nil {
		t.Fatal(err)
	}
	r := open(t, l.root)
	ls := r.NewLister()
	defer ls.Close()
	names := []string{"f.go", "b.go", "y", "absent.go", "back", "..", ""}
	for _, dir := range []string{".", "sub", "sub/x", "sub/x/y", "sub/x/back", "sub/x/back/x/y", "sub/x/y/..",
		"sub/z", "outdir", "sub/x/y", "sublink/x", "sub/x/y", "rootlink/sub/z", "../outside", "sub", "a.go", "sub/x/y"} {
		wantReal, wantFis, wantErrs, wantErr := r.LstatIn(dir, names)
		real, fis, errs, err := ls.LstatIn(dir, names)
		if (err != nil) != (wantErr != nil) || errors.Is(err, ErrOutside) != errors.Is(wantErr, ErrOutside) {
			t.Errorf("Lister.LstatIn(%s) = %v, LstatIn: %v", dir, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if real != wantReal {
			t.Errorf("Lister.LstatIn(%s) real %s, LstatIn: %s", dir, real, wantReal)
		}
		for i, name := range names {
			if (errs[i] != nil) != (wantErrs[i] != nil) {
				t.Errorf("Lister.LstatIn(%s) %s: %v, LstatIn: %v", dir, name, errs[i], wantErrs[i])
				continue
			}
			if errs[i] == nil && (fis[i].Mode() != wantFis[i].Mode() || fis[i].Size() != wantFis[i].Size() || !fis[i].ModTime().Equal(wantFis[i].ModTime())) {
				t.Errorf("Lister.LstatIn(%s) %s: %v, LstatIn: %v", dir, name, fis[i].Mode(), wantFis[i].Mode())
			}
		}
	}
	if n := len(ls.open); n == 0 || n > 3 || ls.open[n-1].path != "sub/x/y" {
		t.Errorf("after sub/x/y the lister holds %v open, want sub/x/y and some of its parents", ls.open)
	}
}

// TestListerReadFile holds a Lister's ReadFile, asked for files in an
// order that enters, leaves and re-enters directories through links and
// "..", to ReadFile: the same contents and the same refusals, the canary
// outside never read.
func TestListerReadFile(t *testing.T) {
	l := newLayout(t)
	for _, d := range []string{"sub/x/y", "sub/z"} {
		if err := os.MkdirAll(filepath.Join(l.root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(l.root, filepath.FromSlash(d), "f.go"), []byte("package "+path.Base(d)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"sub/x/back": "../../sub", "sub/x/y/out": "../../../../outside"} {
		if err := os.Symlink(target, filepath.Join(l.root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	r := open(t, l.root)
	ls := r.NewLister()
	defer ls.Close()
	into := r.NewLister() // ReadFileInto, one buffer for every file
	defer into.Close()
	buf := make([]byte, 0, 4096)
	for _, rel := range []string{"a.go", "sub/b.go", "sub/x/y/f.go", "sub/x/y/out/evil.go", "sub/x/y/f.go", "sub/x/back/z/f.go",
		"sub/x/back/x/y/f.go", "sub/x/back/b.go", "sub/x/back/uplink.go", "sub/x/y/../../z/f.go", "sub/z/f.go", "sub/x/y/f.go", "outdir/evil.go", "sub/x/y/f.go",
		"sublink/x/y/f.go", "sub/escape.go", "sub/uplink.go", "rootlink/sub/z/f.go", "../outside/evil.go", "sub/x/y",
		"sub/x/y/absent.go", "sub/x/y/f.go/x", "link.go", "abslink.go", "evil.go", "dev.go", "sub/z/f.go", "a.go", ""} {
		want, wantErr := r.ReadFile(rel)
		got, err := ls.ReadFile(rel)
		switch {
		case (err != nil) != (wantErr != nil):
			t.Errorf("Lister.ReadFile(%q) = %q, %v; ReadFile: %q, %v", rel, got, err, want, wantErr)
		case err != nil:
			for _, kind := range []error{ErrOutside, ErrNotRegular, fs.ErrNotExist, fs.ErrInvalid} {
				if errors.Is(err, kind) != errors.Is(wantErr, kind) {
					t.Errorf("Lister.ReadFile(%q) = %v; ReadFile: %v", rel, err, wantErr)
				}
			}
		case string(got) != string(want):
			t.Errorf("Lister.ReadFile(%q) = %q; ReadFile: %q", rel, got, want)
		}
		if strings.Contains(string(got), l.canary) {
			t.Errorf("Lister.ReadFile(%q) returned the canary", rel)
		}
		reused, err := into.ReadFileInto(rel, buf)
		if (err != nil) != (wantErr != nil) || string(reused) != string(want) {
			t.Errorf("Lister.ReadFileInto(%q) = %q, %v; ReadFile: %q, %v", rel, reused, err, want, wantErr)
		}
		if len(reused) > 0 && &reused[:1][0] != &buf[:1][0] {
			t.Errorf("Lister.ReadFileInto(%q) read %d bytes into new memory, not the buffer of %d", rel, len(reused), cap(buf))
		}
	}
	// A file larger than the buffer is read into memory of its own.
	large := strings.Repeat("x", 2*cap(buf))
	if err := os.WriteFile(filepath.Join(l.root, "large.go"), []byte(large), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := into.ReadFileInto("large.go", buf); err != nil || string(got) != large {
		t.Errorf("Lister.ReadFileInto(large.go) = %d bytes, %v; want the %d bytes written", len(got), err, len(large))
	}
	if _, err := ls.ReadFile("sub/x/y/f.go"); err != nil {
		t.Fatal(err)
	}
	if n := len(ls.open); n == 0 || ls.open[n-1].path != "sub/x/y" {
		t.Errorf("after sub/x/y/f.go the lister holds %v open, want sub/x/y last", ls.open)
	}
}
