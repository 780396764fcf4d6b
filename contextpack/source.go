package contextpack

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrEscapes marks a document path that leads outside the workspace root.
var ErrEscapes = errors.New("contextpack: path escapes the workspace")

// ErrAbsent marks a document whose text is not available (no work tree, or
// the file is gone).
var ErrAbsent = errors.New("contextpack: source absent")

// Source reads document text for snippets. Overlay, when set, supplies
// unsaved editor buffers by root-relative path and is asked first; the work
// tree under Root is read otherwise. An empty Root means no work tree:
// snippets degrade to locations.
type Source struct {
	Root    string
	Overlay func(path string) ([]byte, bool)
}

// checkRel validates a root-relative document path: not empty, not
// absolute, no ".." element.
func checkRel(p string) error {
	if p == "" {
		return fmt.Errorf("%w: empty path", ErrEscapes)
	}
	s := filepath.ToSlash(p)
	if path.IsAbs(s) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return fmt.Errorf("%w: %q is absolute", ErrEscapes, p)
	}
	for _, el := range strings.Split(s, "/") {
		if el == ".." {
			return fmt.Errorf("%w: %q has a \"..\" element", ErrEscapes, p)
		}
	}
	return nil
}

// Read returns the text of a root-relative document path. Errors wrap
// ErrEscapes or ErrAbsent.
func (s Source) Read(p string) ([]byte, error) {
	if err := checkRel(p); err != nil {
		return nil, err
	}
	if s.Overlay != nil {
		if b, ok := s.Overlay(p); ok {
			return b, nil
		}
	}
	if s.Root == "" {
		return nil, fmt.Errorf("%w: %s (no work tree)", ErrAbsent, p)
	}
	root, err := filepath.EvalSymlinks(s.Root)
	if err != nil {
		return nil, fmt.Errorf("%w: workspace root %s: %v", ErrAbsent, s.Root, err)
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("%w: workspace root %s: %v", ErrAbsent, s.Root, err)
	}
	full := filepath.Join(root, filepath.FromSlash(p))
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrAbsent, p)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrAbsent, p, err)
	}
	if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return nil, fmt.Errorf("%w: %s resolves to %s, outside %s", ErrEscapes, p, real, root)
	}
	// Read through os.Root as well: it refuses to follow a symlink out of
	// the root even if one appears between the check above and the read.
	rt, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("%w: opening workspace root %s: %v", ErrAbsent, root, err)
	}
	defer rt.Close()
	fi, err := rt.Stat(filepath.FromSlash(p))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrAbsent, p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrAbsent, p)
	}
	b, err := rt.ReadFile(filepath.FromSlash(p))
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrAbsent, p, err)
	}
	return b, nil
}
