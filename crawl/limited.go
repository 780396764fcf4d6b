package crawl

import (
	"os"
	"path/filepath"
)

// projectMarkers are the files that make a folder a project's root.
var projectMarkers = []string{"go.mod", "go.work", "package.json", "pyproject.toml", "setup.py", "Cargo.toml", "pom.xml", "build.gradle", ".git"}

// LimitedTo reports whether root is only a folder of a larger project: it
// holds no project marker (go.mod, package.json, .git, …) itself, and a
// folder above it does. A crawl of such a folder never asks about the
// callers outside it, so its layer cannot vouch for completeness. It
// returns the project's root.
func LimitedTo(root string) (string, bool) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", false
	}
	if hasMarker(abs) {
		return "", false
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if hasMarker(dir) {
			return dir, true
		}
		if parent := filepath.Dir(dir); parent == dir {
			return "", false
		}
	}
}

func hasMarker(dir string) bool {
	for _, m := range projectMarkers {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			return true
		}
	}
	return false
}
