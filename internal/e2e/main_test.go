package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// build is the lspgraph binary of this test run, built on first use by
// [lspgraphBin] into a directory TestMain removes at the end.
type build struct {
	dir  string
	once sync.Once
	bin  string
	err  error
}

// theBuild is set once by TestMain before any test runs and only read
// afterwards.
var theBuild *build

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lspgraph-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: creating the build directory:", err)
		os.Exit(1)
	}
	theBuild = &build{dir: dir}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// lspgraphBin returns the path of the lspgraph binary, building it from the
// module root the first time (`go build -o DIR/lspgraph ./cmd/lspgraph`).
func lspgraphBin(t testing.TB) string {
	t.Helper()
	b := theBuild
	b.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			b.err = err
			return
		}
		bin := filepath.Join(b.dir, "lspgraph")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/lspgraph")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("building lspgraph (go build -o %s ./cmd/lspgraph in %s): %w\n%s", bin, root, err, out)
			return
		}
		b.bin = bin
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}

// moduleRoot returns the directory of the go.mod above the working
// directory (the test runs in internal/e2e).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("e2e: working directory: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module github.com/lspgraph/lspgraph\n")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("e2e: no go.mod of github.com/lspgraph/lspgraph above %s", dir)
		}
	}
}

// needTool returns the path of a required executable. When it is missing
// the test skips, or fails when LSPGRAPH_E2E=1.
func needTool(t testing.TB, name string, alternatives ...string) string {
	t.Helper()
	for _, n := range append([]string{name}, alternatives...) {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("%s not found on PATH (install it with .ci/install-tools)", name)
	if os.Getenv("LSPGRAPH_E2E") == "1" {
		t.Fatal(msg + "; LSPGRAPH_E2E=1 requires it")
	}
	t.Skip(msg)
	return ""
}

// goplsPath finds gopls on PATH or in GOPATH/bin, where `go install` puts it.
func goplsPath(t testing.TB) string {
	t.Helper()
	alts := []string{}
	if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		alts = append(alts, filepath.Join(string(bytes.TrimSpace(gp)), "bin", "gopls"))
	}
	return needTool(t, "gopls", alts...)
}

// fixture copies testdata/NAME into a fresh temporary directory and returns
// the copy's absolute path (symlinks resolved, so that paths servers
// report match it).
func fixture(t testing.TB, name string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "testdata", name)
	dst := filepath.Join(t.TempDir(), name)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("e2e: copying fixture %s: %v", name, err)
	}
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// gitRepo makes root a git repository with everything in it committed,
// with no user or system git configuration, and returns the commit.
func gitRepo(t testing.TB, root string) string {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base"}} {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(head))
}
