package syntax

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"

	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// ListFiles returns the source files under root that have a grammar, as
// root-relative slash paths in sorted order. In a git work tree the list
// comes from `git ls-files -co --exclude-standard` (tracked and untracked
// files, minus what .gitignore excludes); otherwise the tree is walked. In
// both cases paths inside vendor/, node_modules/ or a hidden directory are
// left out, and a walk also leaves out directories tagged as caches
// (holding a CACHEDIR.TAG file, like Cargo's target/) and never descends
// a symbolic link. A listed symbolic link to a file inside the root is
// replaced by that file's own path (listed once); one leading outside the
// root is left out.
func ListFiles(ctx context.Context, root string) ([]string, error) {
	fsys, err := rootfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("syntax: %w", err)
	}
	defer fsys.Close()
	listed, stated, _, _, err := listFiles(ctx, fsys, root, runtime.NumCPU())
	if err != nil {
		return nil, err
	}
	files, _, _ := realFiles(fsys, listed, stated)
	return files, nil
}

// realFiles turns listed paths into the files to read, sorted, each once:
// a symbolic link to a file inside the root becomes the file's own path
// (skipped as SkipLink when that path is listed already, dropped when the
// listing would leave that path out), and one that leads outside the root
// is skipped as SkipOutside. A path that cannot be resolved otherwise
// (gone since the listing) is kept for its read to report. stats holds
// the size and modification time each file had then (zero when unknown).
// stated is what RealStat says of each listed path, when the listing
// knows it already; nil has it asked.
func realFiles(fsys *rootfs.Root, listed []string, stated []stat) (files []string, stats []rootfs.Stamp, skipped map[SkipReason]int) {
	skipped = map[SkipReason]int{}
	seen := make(map[string]rootfs.Stamp, len(listed))
	files = make([]string, 0, len(listed))
	add := func(p string, st rootfs.Stamp) bool {
		if _, ok := seen[p]; ok {
			return false
		}
		seen[p] = st
		files = append(files, p)
		return true
	}
	type link struct {
		real string
		st   rootfs.Stamp
	}
	var links []link
	if stated == nil {
		stated = statListed(fsys, listed)
	}
	for i, p := range listed {
		real, fi, err := stated[i].real, stated[i].fi, stated[i].err
		var st rootfs.Stamp
		if err == nil {
			st = rootfs.StampOf(fi)
		}
		switch {
		case errors.Is(err, rootfs.ErrOutside):
			skipped[SkipOutside]++
		case err != nil || real == p:
			add(p, st)
		default:
			links = append(links, link{real, st})
		}
	}
	// Links last, so that a file listed under its own path keeps it.
	for _, l := range links {
		if !keepPath(l.real) || !add(l.real, l.st) {
			skipped[SkipLink]++
		}
	}
	sort.Strings(files)
	stats = make([]rootfs.Stamp, len(files))
	for i, p := range files {
		stats[i] = seen[p]
	}
	return files, stats, skipped
}

// stat is what RealStat says of a path.
type stat struct {
	real string
	fi   fs.FileInfo
	err  error
}

// statListed is RealStat of every listed path, directory by directory:
// each directory is resolved once and each name in it looked up with one
// lstat (a walk from the root per path took a system call per component
// and two per directory on the way). A name that is a link, or that
// cannot be looked up so, goes through RealStat itself.
func statListed(fsys *rootfs.Root, listed []string) []stat {
	out := make([]stat, len(listed))
	byDir := map[string][]int{}
	var dirs []string
	for i, p := range listed {
		d := path.Dir(p)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], i)
	}
	var names []string
	l := fsys.NewLister()
	defer l.Close()
	for _, d := range dirs {
		idx := byDir[d]
		names = names[:0]
		for _, i := range idx {
			names = append(names, path.Base(listed[i]))
		}
		real, fis, errs, err := l.LstatIn(d, names)
		for k, i := range idx {
			if err != nil || errs[k] != nil || fis[k].Mode()&fs.ModeSymlink != 0 {
				out[i].real, out[i].fi, out[i].err = fsys.RealStat(listed[i])
				continue
			}
			out[i] = stat{real: path.Join(real, names[k]), fi: fis[k]}
		}
	}
	return out
}

// listFiles lists root (opened as fsys) as ListFiles describes, symbolic
// links unresolved, and when it walks the tree (with workers goroutines)
// returns what RealStat says of each path too, from the lstat of the walk
// (only links are resolved again); a listing by git returns no stats.
// goMods are the directories of the go.mod files among what it lists (or
// would, but that they are no source), sorted.
func listFiles(ctx context.Context, fsys *rootfs.Root, root string, workers int) (files []string, stats []stat, tree *treeListing, goMods []string, err error) {
	if isGitWorkTree(ctx, root) {
		out, err := gitcmd.Run(ctx, root, "ls-files", "-z", "-co", "--exclude-standard")
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("syntax: listing files in %s: %w", root, err)
		}
		goMods = []string{}
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" && keepPath(p) {
				files = append(files, p)
			} else if dir, ok := goModDir(p); ok {
				goMods = append(goMods, dir)
			}
		}
		sort.Strings(files)
		sort.Strings(goMods)
		return files, nil, nil, goMods, nil
	}
	tree = newTreeListing()
	walked, err := fsys.Walk(ctx, rootfs.WalkOptions{
		Workers: workers,
		Enter: func(rel string, entries []rootfs.DirEntry) bool {
			tree.note(rel, entries)
			return rel == "." || !(SkipDir(path.Base(rel)) || hasCacheTag(entries))
		},
		Keep: func(rel string, typ fs.FileMode) bool {
			return (typ.IsRegular() || typ&fs.ModeSymlink != 0) && keepPath(rel)
		},
	})
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("syntax: walking %s: %w", root, err)
	}
	goMods = []string{}
	for p := range tree.present {
		if dir, ok := goModDir(p); ok {
			goMods = append(goMods, dir)
		}
	}
	sort.Strings(goMods)
	files, stated := make([]string, len(walked)), make([]stat, len(walked))
	for i, w := range walked {
		files[i] = w.Path
		if w.Err == nil && w.Info.Mode()&fs.ModeSymlink == 0 {
			stated[i] = stat{real: w.Path, fi: w.Info}
		} else {
			stated[i].real, stated[i].fi, stated[i].err = fsys.RealStat(w.Path)
		}
	}
	return files, stated, tree, goMods, nil
}

// goModDir returns the directory of a listed path that is a go.mod file
// outside the directories a listing leaves out ("" for the root's).
func goModDir(p string) (string, bool) {
	dir, name := path.Split(p)
	if name != "go.mod" || inSkippedDir(p) {
		return "", false
	}
	return strings.TrimSuffix(dir, "/"), true
}

func isGitWorkTree(ctx context.Context, root string) bool {
	if _, ok := gitcmd.TopLevel(root); !ok {
		return false
	}
	out, err := gitcmd.Run(ctx, root, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// SkipDir reports whether ListFiles leaves a directory of this name out,
// with everything below it: vendor/, node_modules/ and hidden ones.
func SkipDir(name string) bool {
	return name == "vendor" || name == "node_modules" || (strings.HasPrefix(name, ".") && name != ".")
}

// hasCacheTag reports whether a directory of these entries is tagged as a
// cache (it holds a CACHEDIR.TAG file, as Cargo's target/ does): build
// output, not source.
func hasCacheTag(entries []rootfs.DirEntry) bool {
	for _, e := range entries {
		if e.Name == "CACHEDIR.TAG" {
			return true
		}
	}
	return false
}

// keepPath reports whether a root-relative path is a source file to index.
func keepPath(p string) bool {
	if grammarFor(p) == "" {
		return false
	}
	return !inSkippedDir(p)
}

// inSkippedDir reports whether a root-relative path is inside a directory
// a listing leaves out (skipDir).
func inSkippedDir(p string) bool {
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if SkipDir(d) {
			return true
		}
	}
	return false
}
