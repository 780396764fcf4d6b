package indexbench

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// CopyStats describes what CopyTree wrote.
type CopyStats struct {
	Files   int   `json:"files"`    // regular files copied
	GoFiles int   `json:"go_files"` // of which Go files
	GoLines int   `json:"go_lines"` // lines of the Go files
	Bytes   int64 `json:"bytes"`
	// Rewritten counts the import paths changed to the copy's module.
	Rewritten int `json:"rewritten_imports"`
}

// ModulePath is the module path of copy n of a tree.
func ModulePath(n int) string { return "scale.example/copy" + strconv.Itoa(n) }

// CopyTree writes copy n of the Go source tree src (GOROOT/src, or any
// tree of Go modules) into dst, which must not exist. Every go.mod's module
// path M becomes ModulePath(n)/M ("std" becomes ModulePath(n) itself), and
// every import of a package of the tree — a path naming a directory of src
// that holds Go files — gets the same prefix, so that the copy's packages
// import each other and not another copy's. Everything else is copied
// byte for byte; symbolic links are left out.
func CopyTree(src, dst string, n int) (CopyStats, error) {
	var st CopyStats
	if _, err := os.Stat(dst); err == nil {
		return st, fmt.Errorf("copying %s: %s exists", src, dst)
	}
	// The tree's packages: directories holding Go files.
	pkgs := map[string]bool{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".go") {
			rel, _ := filepath.Rel(src, filepath.Dir(p))
			pkgs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("listing %s: %w", src, err)
	}
	prefix := ModulePath(n)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(out, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case d.Name() == "go.mod":
			data = rewriteModule(data, prefix)
		case strings.HasSuffix(p, ".go"):
			var k int
			data, k = rewriteImports(data, prefix, pkgs)
			st.Rewritten += k
			st.GoFiles++
			st.GoLines += bytes.Count(data, []byte("\n"))
		}
		st.Files++
		st.Bytes += int64(len(data))
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return err
		}
		// The copy keeps the source's modification time, as a checkout
		// made a while ago has its files' times: a tree indexed seconds
		// after every file was written is one whose recorded times an
		// incremental index cannot trust (they fall within the clock's
		// tick of the listing), which no edited work tree resembles.
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chtimes(out, info.ModTime(), info.ModTime())
	})
	if err != nil {
		return st, fmt.Errorf("copying %s to %s: %w", src, dst, err)
	}
	return st, nil
}

// rewriteModule prefixes the module path of a go.mod.
func rewriteModule(gomod []byte, prefix string) []byte {
	lines := bytes.Split(gomod, []byte("\n"))
	for i, l := range lines {
		f := strings.Fields(string(l))
		if len(f) == 2 && f[0] == "module" {
			m := strings.Trim(f[1], `"`)
			if m == "std" {
				m = prefix
			} else {
				m = prefix + "/" + m
			}
			lines[i] = []byte("module " + m)
			break
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// rewriteImports prefixes the import paths of src that name packages of
// the tree; a file that does not parse is returned unchanged.
func rewriteImports(src []byte, prefix string, pkgs map[string]bool) ([]byte, int) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly)
	if err != nil {
		return src, 0
	}
	type edit struct {
		off  int
		path string
	}
	var edits []edit
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || !pkgs[p] || path.IsAbs(p) {
			continue
		}
		edits = append(edits, edit{fset.Position(imp.Path.Pos()).Offset, p})
	}
	if len(edits) == 0 {
		return src, 0
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.off - b.off })
	var out bytes.Buffer
	out.Grow(len(src) + len(edits)*(len(prefix)+1))
	last := 0
	for _, e := range edits {
		// The literal starts with its quote (or backquote).
		out.Write(src[last : e.off+1])
		out.WriteString(prefix + "/")
		last = e.off + 1
	}
	out.Write(src[last:])
	return out.Bytes(), len(edits)
}

// GoSourceTree returns $(go env GOROOT)/src.
func GoSourceTree() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("finding GOROOT (go env GOROOT): %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src"), nil
}
