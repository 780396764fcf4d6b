package goplsshim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tool writes an executable file.
func tool(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFindSkipsSelf(t *testing.T) {
	d := t.TempDir()
	self := tool(t, filepath.Join(d, "install", "lspgraph"))
	shimDir := filepath.Join(d, "shim")
	if err := os.MkdirAll(shimDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(shimDir, "gopls")); err != nil {
		t.Fatal(err)
	}
	// A hard link is the same file too.
	hard := filepath.Join(d, "hard")
	if err := os.MkdirAll(hard, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, filepath.Join(hard, "gopls")); err != nil {
		t.Fatal(err)
	}
	real := tool(t, filepath.Join(d, "gopath", "bin", "gopls"))
	f := Finder{Self: self, Getenv: env(map[string]string{
		"PATH":   strings.Join([]string{shimDir, "", "relative", hard, filepath.Join(d, "empty")}, string(os.PathListSeparator)),
		"GOPATH": filepath.Join(d, "gopath"),
	})}
	got, err := f.Find()
	if err != nil || got != real {
		t.Fatalf("Find() = %q, %v; want %q (past the symlink and the hard link to the shim)", got, err, real)
	}

	// Nothing else: the error names the directories and the skipped shim.
	f.Getenv = env(map[string]string{"PATH": shimDir, "HOME": filepath.Join(d, "nohome")})
	_, err = f.Find()
	if err == nil || !strings.Contains(err.Error(), "skipped "+filepath.Join(shimDir, "gopls")) || !strings.Contains(err.Error(), EnvGopls) {
		t.Fatalf("Find() with only the shim: %v; want an error naming the skipped shim and %s", err, EnvGopls)
	}
}

func TestFindOrder(t *testing.T) {
	d := t.TempDir()
	self := tool(t, filepath.Join(d, "lspgraph"))
	onPath := tool(t, filepath.Join(d, "path", "gopls"))
	inGobin := tool(t, filepath.Join(d, "gobin", "gopls"))
	inHome := tool(t, filepath.Join(d, "home", "go", "bin", "gopls"))
	vars := map[string]string{"PATH": filepath.Join(d, "path"), "GOBIN": filepath.Join(d, "gobin"), "HOME": filepath.Join(d, "home")}
	for _, c := range []struct {
		drop string
		want string
	}{{"", onPath}, {"PATH", inGobin}, {"GOBIN", inHome}} {
		delete(vars, c.drop)
		got, err := Finder{Self: self, Getenv: env(vars)}.Find()
		if err != nil || got != c.want {
			t.Errorf("without %s: Find() = %q, %v; want %q", c.drop, got, err, c.want)
		}
	}
}

func TestFindEnv(t *testing.T) {
	d := t.TempDir()
	self := tool(t, filepath.Join(d, "lspgraph"))
	real := tool(t, filepath.Join(d, "real-gopls"))
	got, err := Finder{Self: self, Getenv: env(map[string]string{EnvGopls: real, "PATH": d})}.Find()
	if err != nil || got != real {
		t.Fatalf("Find() with %s = %q, %v; want %q", EnvGopls, got, err, real)
	}
	for _, bad := range []string{self, filepath.Join(d, "missing")} {
		if _, err := (Finder{Self: self, Getenv: env(map[string]string{EnvGopls: bad})}).Find(); err == nil || !strings.Contains(err.Error(), EnvGopls) {
			t.Errorf("%s=%s: %v; want an error naming it", EnvGopls, bad, err)
		}
	}
}
