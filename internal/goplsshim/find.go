package goplsshim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EnvGopls names the real gopls explicitly, overriding the search.
const EnvGopls = "LSPGRAPH_GOPLS"

// EnvShimmed is set in the environment of the real gopls the shim starts.
// A shim that finds it set was started by another shim (a second lspgraph
// installed as gopls found on PATH), and stops instead of looping.
const EnvShimmed = "LSPGRAPH_SHIM_OF"

// Finder looks for the real gopls.
type Finder struct {
	// Getenv reads the environment (os.Getenv).
	Getenv func(string) string
	// Self is the running executable (os.Executable); no candidate that
	// is the same file is chosen.
	Self string
}

// Find returns the path of the real gopls: $LSPGRAPH_GOPLS when set (an
// error when it is the shim), else the first executable named gopls on
// PATH (absolute entries), in $GOBIN, or in the bin directory of each
// GOPATH entry ($HOME/go when GOPATH is unset) that is not the running
// executable.
func (f Finder) Find() (string, error) {
	self, selfErr := os.Stat(f.Self)
	isSelf := func(p string) bool {
		if selfErr != nil {
			return false
		}
		st, err := os.Stat(p) // follows symlinks: a link to the shim is the shim
		return err == nil && os.SameFile(st, self)
	}
	if p := f.Getenv(EnvGopls); p != "" {
		if !executable(p) {
			return "", fmt.Errorf("%s=%s is not an executable file", EnvGopls, p)
		}
		if isSelf(p) {
			return "", fmt.Errorf("%s=%s is lspgraph itself; name the real gopls", EnvGopls, p)
		}
		return p, nil
	}
	var looked, skipped []string
	for _, dir := range f.dirs() {
		p := filepath.Join(dir, "gopls")
		looked = append(looked, dir)
		if !executable(p) {
			continue
		}
		if isSelf(p) {
			skipped = append(skipped, p)
			continue
		}
		return p, nil
	}
	msg := "no real gopls found in PATH, $GOBIN or GOPATH/bin (looked in " + strings.Join(looked, ", ") + ")"
	if len(skipped) > 0 {
		msg += "; skipped " + strings.Join(skipped, ", ") + " (lspgraph itself)"
	}
	return "", errors.New(msg + ": install it (go install golang.org/x/tools/gopls@latest) or set " + EnvGopls + " to its path")
}

// dirs are the directories searched, in order, without repeats.
func (f Finder) dirs() []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		// Relative entries (also an empty one, the current directory)
		// are skipped, as os/exec refuses them (exec.ErrDot).
		if !filepath.IsAbs(d) {
			return
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, d := range filepath.SplitList(f.Getenv("PATH")) {
		add(d)
	}
	if gobin := f.Getenv("GOBIN"); gobin != "" {
		add(gobin)
	}
	gopath := f.Getenv("GOPATH")
	if gopath == "" {
		if home := f.Getenv("HOME"); home != "" {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, d := range filepath.SplitList(gopath) {
		add(filepath.Join(d, "bin"))
	}
	return out
}

// executable reports whether p is a regular file someone may execute.
func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
