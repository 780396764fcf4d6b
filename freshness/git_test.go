package freshness

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// repo is a scripted git repository in a temporary directory.
type repo struct {
	t    *testing.T
	root string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &repo{t: t, root: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.git("config", "user.email", "test@example.com")
	r.git("config", "user.name", "test")
	r.git("config", "commit.gpgsign", "false")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.root}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(path, text string) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) remove(path string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.root, filepath.FromSlash(path))); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// body is a file body long enough for git's rename detection.
func body(name string) string {
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := range 20 {
		b.WriteString("// " + name + " line " + strings.Repeat("x", i) + "\n")
	}
	return b.String()
}

func TestHead(t *testing.T) {
	ctx := context.Background()
	if h, err := Head(ctx, t.TempDir()); err != nil || h != "" {
		t.Errorf("Head(not a repo) = %q, %v; want \"\", nil", h, err)
	}
	r := newRepo(t)
	if h, err := Head(ctx, r.root); err != nil || h != "" {
		t.Errorf("Head(no commits) = %q, %v; want \"\", nil", h, err)
	}
	r.write("a.go", body("a"))
	c := r.commit("one")
	if h, err := Head(ctx, r.root); err != nil || h != c {
		t.Errorf("Head = %q, %v; want %q", h, err, c)
	}
}

func TestChanges(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write(".gitignore", "*.log\n")
	r.write("keep.go", body("keep"))
	r.write("mod.go", body("mod"))
	r.write("del.go", body("del"))
	r.write("old/name.go", body("rename me"))
	r.write("staged.go", body("staged"))
	r.write("unstaged.go", body("unstaged"))
	base := r.commit("base")

	if got, err := Changes(ctx, r.root, base); err != nil || len(got) != 0 {
		t.Fatalf("Changes at base = %v, %v; want none", got, err)
	}

	// Committed since base.
	r.write("mod.go", body("mod")+"func F() {}\n")
	r.remove("del.go")
	r.write("new/name.go", body("rename me"))
	r.remove("old/name.go")
	r.write("added.go", body("added"))
	r.commit("second")
	// Staged, unstaged, untracked and ignored.
	r.write("staged.go", body("staged")+"var S = 1\n")
	r.git("add", "staged.go")
	r.write("unstaged.go", body("unstaged")+"var U = 1\n")
	r.write("untracked/u.go", body("untracked"))
	r.write("debug.log", "ignored\n")

	got, err := Changes(ctx, r.root, base)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Status: "A", Path: "added.go"},
		{Status: "D", Path: "del.go"},
		{Status: "M", Path: "mod.go"},
		{Status: "R", Path: "new/name.go", OldPath: "old/name.go"},
		{Status: "M", Path: "staged.go"},
		{Status: "M", Path: "unstaged.go"},
		{Status: "?", Path: "untracked/u.go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Changes =\n%v\nwant\n%v", got, want)
	}

	// A change undone in the work tree is no change.
	r.write("mod.go", body("mod"))
	got, err = Changes(ctx, r.root, base)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got {
		if c.Path == "mod.go" {
			t.Errorf("mod.go restored to its base content is still listed: %v", c)
		}
	}

	// Empty base compares with HEAD: only the work tree's changes.
	got, err = Changes(ctx, r.root, "")
	if err != nil {
		t.Fatal(err)
	}
	want = []Change{
		{Status: "M", Path: "mod.go"},
		{Status: "M", Path: "staged.go"},
		{Status: "M", Path: "unstaged.go"},
		{Status: "?", Path: "untracked/u.go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Changes(base \"\") =\n%v\nwant\n%v", got, want)
	}
}

func TestChangesSubdirectoryRoot(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("outside.go", body("outside"))
	r.write("ws/a.go", body("a"))
	r.write("ws/pkg/b.go", body("b"))
	base := r.commit("base")
	r.write("outside.go", body("outside")+"var X = 1\n")
	r.write("ws/pkg/b.go", body("b")+"var Y = 1\n")
	r.write("ws/new.go", body("new"))
	r.write("other/untracked.go", body("other"))

	got, err := Changes(ctx, filepath.Join(r.root, "ws"), base)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Status: "?", Path: "new.go"},
		{Status: "M", Path: "pkg/b.go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Changes(ws) =\n%v\nwant\n%v", got, want)
	}
}

func TestChangesErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Changes(ctx, t.TempDir(), "abc"); !errors.Is(err, ErrNotGit) {
		t.Errorf("Changes(not a repo) error = %v; want ErrNotGit", err)
	}
	r := newRepo(t)
	r.write("a.go", body("a"))
	r.commit("one")
	_, err := Changes(ctx, r.root, "0123456789abcdef0123456789abcdef01234567")
	if !errors.Is(err, ErrUnknownBase) {
		t.Errorf("Changes(unknown base) error = %v; want ErrUnknownBase", err)
	}
}

func TestChangesUnbornRepository(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.go", body("a"))
	r.git("add", "a.go")
	r.write("b.go", body("b"))
	got, err := Changes(ctx, r.root, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Status: "A", Path: "a.go"}, {Status: "?", Path: "b.go"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Changes(unborn) = %v; want %v", got, want)
	}
}

func TestParseNameStatus(t *testing.T) {
	got, err := parseNameStatus([]byte("M\x00a b.go\x00R087\x00x.go\x00y.go\x00C100\x00s.go\x00t.go\x00T\x00l\x00"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Status: "M", Path: "a b.go"},
		{Status: "R", Path: "y.go", OldPath: "x.go"},
		{Status: "A", Path: "t.go"},
		{Status: "M", Path: "l"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseNameStatus = %v; want %v", got, want)
	}
	if _, err := parseNameStatus([]byte("R100\x00only.go\x00")); err == nil {
		t.Error("rename with one path: want an error")
	}
}
