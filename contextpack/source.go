package contextpack

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lspgraph/lspgraph/internal/rootfs"
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
	// Cache, when set, keeps the work tree's documents across packs.
	Cache *TextCache
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
	return s.read(p, nil)
}

// docReader reads many documents of one Source through one opened root.
type docReader struct {
	src Source
	fs  *rootfs.Root // nil: no work tree, or it could not be opened
	// stats are what statAll found of documents, for readLines to check
	// its cache against.
	stats map[string]fs.FileInfo
}

// statAll describes the documents at paths (root-relative, those a pack is
// about to read) for readLines, a directory at a time: each directory is
// resolved once, not once per document in it. A document that is not a
// regular file there (a symbolic link, an error) is left to readLines.
func (d *docReader) statAll(paths []string) {
	if d.src.Cache == nil || d.fs == nil {
		return
	}
	byDir := map[string][]string{}
	var dirs []string
	for _, p := range paths {
		if checkRel(p) != nil || path.Clean(p) != p || d.stats[p] != nil {
			continue
		}
		dir, name := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
		if _, ok := byDir[dir]; !ok {
			dirs = append(dirs, dir)
		}
		if !slices.Contains(byDir[dir], name) {
			byDir[dir] = append(byDir[dir], name)
		}
	}
	if d.stats == nil {
		d.stats = map[string]fs.FileInfo{}
	}
	for _, dir := range dirs {
		names := byDir[dir]
		_, fis, errs, err := d.fs.LstatIn(dir, names)
		if err != nil {
			continue
		}
		for i, fi := range fis {
			if errs[i] == nil && fi != nil && fi.Mode().IsRegular() {
				d.stats[path.Join(dir, names[i])] = fi
			}
		}
	}
}

// stat is what statAll found of p, else the root's Stat.
func (d *docReader) stat(p string) (fs.FileInfo, error) {
	if fi, ok := d.stats[p]; ok {
		return fi, nil
	}
	return d.fs.Stat(p)
}

func (s Source) open() *docReader {
	d := &docReader{src: s}
	if s.Root != "" {
		d.fs, _ = rootfs.Open(s.Root) // a failure shows on each read
	}
	return d
}

func (d *docReader) Read(p string) ([]byte, error) { return d.src.read(p, d.fs) }

// readLines returns a document's lines: from the cache when the file is
// unchanged since it was cached, else read and split (and cached, unless it
// came from an unsaved buffer).
func (d *docReader) readLines(p string) ([]string, error) {
	c := d.src.Cache
	cacheable := c != nil && d.fs != nil && checkRel(p) == nil
	if cacheable && d.src.Overlay != nil {
		if _, ok := d.src.Overlay(p); ok {
			cacheable = false
		}
	}
	if cacheable {
		if fi, err := d.stat(p); err == nil && fi.Mode().IsRegular() {
			if t, ok := c.get(p, fi.Size(), fi.ModTime()); ok {
				return t.lines, nil
			}
			// Read as a string, which the lines are cut from: the text
			// is not copied again.
			text, err := d.fs.ReadFileString(p)
			if err != nil {
				return nil, readError(err)
			}
			ls := splitLines(text)
			// The size and time seen before the read: a file written
			// meanwhile is read again next time.
			c.put(p, cachedText{size: fi.Size(), mod: fi.ModTime(), bytes: len(text), lines: ls})
			return ls, nil
		}
	}
	b, err := d.Read(p)
	if err != nil {
		return nil, err
	}
	return lines(b), nil
}

func (d *docReader) Close() {
	if d.fs != nil {
		d.fs.Close()
	}
}

// read is Read through fsys when it is open, else through a root opened
// for the one read.
func (s Source) read(p string, fsys *rootfs.Root) ([]byte, error) {
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
	// The root refuses a symbolic link out of it (without saying where it
	// leads) and anything but a regular file.
	if fsys == nil {
		var err error
		if fsys, err = rootfs.Open(s.Root); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrAbsent, err)
		}
		defer fsys.Close()
	}
	b, err := fsys.ReadFile(p)
	if err != nil {
		return nil, readError(err)
	}
	return b, nil
}

// readError is a failed read of the work tree as Read reports it: wrapping
// ErrEscapes or ErrAbsent.
func readError(err error) error {
	if errors.Is(err, rootfs.ErrOutside) {
		return fmt.Errorf("%w: %w", ErrEscapes, err)
	}
	return fmt.Errorf("%w: %w", ErrAbsent, err)
}
