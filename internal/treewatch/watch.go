package treewatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/lspgraph/lspgraph/internal/gitcmd"
)

// DefaultMaxDirs is the number of directories a watcher watches at most
// unless Options say otherwise: each is one inotify watch, and the user's
// watches are shared with every other program (editors watch too).
const DefaultMaxDirs = 16384

// DefaultCookieTimeout is how long Sync waits for its cookie's event.
const DefaultCookieTimeout = 2 * time.Second

// cookiePrefix starts the name of every cookie file.
const cookiePrefix = "lspgraph-cookie-"

var (
	// ErrTooManyDirs is returned when the tree has more directories than
	// the cap.
	ErrTooManyDirs = errors.New("treewatch: too many directories to watch")
	// ErrRulesChanged breaks a watcher whose ignore rules changed: the
	// directories it skips may no longer be the ones git ignores.
	ErrRulesChanged = errors.New("treewatch: ignore rules changed")
	// ErrGitDirMoved breaks a watcher whose git directory was removed,
	// renamed or created anew: its watches there are gone.
	ErrGitDirMoved = errors.New("treewatch: the git directory moved")
	// ErrClosed is returned by Sync after Close.
	ErrClosed = errors.New("treewatch: closed")
)

// Options configure Start.
type Options struct {
	// MaxDirs caps the directories watched; 0 means DefaultMaxDirs.
	MaxDirs int
	// CookieTimeout bounds Sync's wait; 0 means DefaultCookieTimeout.
	CookieTimeout time.Duration
	// SkipDir, when set, names the directories a tree outside git leaves
	// out, with everything below them: those no reader of the workspace
	// enters (its dependencies' node_modules, say), which would otherwise
	// take watches, and past MaxDirs make the tree unwatchable. In a git
	// work tree git's ignore rules decide.
	SkipDir func(name string) bool
}

// Watcher follows one work tree. Its methods are safe for concurrent use.
type Watcher struct {
	root      string // the workspace root (absolute)
	git       bool   // root lies in a git work tree
	gitDir    string // HEAD and the index (the worktree's own directory); outside git, the cookie directory
	commonDir string // refs, packed-refs, config, info/exclude
	heads     string // commonDir/refs/heads
	cookieDir string // outside git: a directory of this watcher's own for its cookies, removed at Close
	opts      Options
	fw        *fsnotify.Watcher
	seq       atomic.Uint64 // cookie numbers
	done      chan struct{} // closed when the event loop ends

	mu      sync.Mutex
	gen     uint64
	err     error                    // set once: the watcher is broken
	cookies map[string]chan struct{} // waiting cookies by file name
	dirs    map[string]bool          // watched work-tree directories
	gitDirs map[string]bool          // watched directories of git's state
	// above are the directories between the root and the work tree's
	// top: only their .gitignore files matter.
	above map[string]bool
	// changed are the work-tree paths events named, each with the
	// generation it made, for ChangedSince; gitGen is the last generation
	// a change of git's state made, and those up to lostGen were not
	// recorded (too many, or given out).
	changed []changedPath
	gitGen  uint64
	lostGen uint64
}

// changedPath is a path an event named (root-relative, slash-separated)
// and the generation the event made.
type changedPath struct {
	gen  uint64
	path string
}

// maxChanged bounds the paths a Watcher keeps for ChangedSince: past it,
// the ones kept are dropped.
const maxChanged = 4096

// Start watches the work tree at root and the git state a look at it
// reads. It asks git twice (the git directories, the ignored directories)
// and adds one watch per directory. Outside git it watches every
// directory under root but .git, and its cookies go to a temporary
// directory of its own.
func Start(ctx context.Context, root string, opts Options) (*Watcher, error) {
	if opts.MaxDirs <= 0 {
		opts.MaxDirs = DefaultMaxDirs
	}
	if opts.CookieTimeout <= 0 {
		opts.CookieTimeout = DefaultCookieTimeout
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("treewatch: resolving %s: %w", root, err)
	}
	w := &Watcher{
		root: root, opts: opts,
		done: make(chan struct{}), cookies: map[string]chan struct{}{},
		dirs: map[string]bool{}, gitDirs: map[string]bool{}, above: map[string]bool{},
	}
	var ignored map[string]bool
	if top, ok := gitcmd.TopLevel(root); ok {
		out, err := gitcmd.Run(ctx, root, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
		if err != nil {
			return nil, fmt.Errorf("treewatch: finding the git directories of %s: %w", root, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 {
			return nil, fmt.Errorf("treewatch: unexpected git directories %q", out)
		}
		w.git, w.gitDir, w.commonDir = true, filepath.Clean(lines[0]), filepath.Clean(lines[1])
		for d := filepath.Dir(root); top != root && strings.HasPrefix(root, d+string(filepath.Separator)); d = filepath.Dir(d) {
			w.above[d] = true
			if d == top || d == filepath.Dir(d) {
				break
			}
		}
		if ignored, err = ignoredDirs(ctx, root); err != nil {
			return nil, err
		}
	} else {
		// Outside git: no git state, no ignore rules; the cookies go to a
		// temporary directory watched too (events of one watcher arrive
		// in order whatever directory they are in).
		if w.cookieDir, err = os.MkdirTemp("", "lspgraph-watch-"); err != nil {
			return nil, fmt.Errorf("treewatch: creating the cookie directory: %w", err)
		}
		w.gitDir, w.commonDir = w.cookieDir, w.cookieDir
	}
	w.heads = filepath.Join(w.commonDir, "refs", "heads")
	fail := func(err error) (*Watcher, error) {
		if w.fw != nil {
			w.fw.Close()
		}
		if w.cookieDir != "" {
			os.RemoveAll(w.cookieDir)
		}
		return nil, err
	}
	if w.fw, err = fsnotify.NewBufferedWatcher(1024); err != nil {
		return fail(fmt.Errorf("treewatch: %w", watchErr(err)))
	}
	if err := w.watchAll(ignored); err != nil {
		return fail(err)
	}
	removeStaleCookies(w.gitDir)
	// A cookie must come back (a directory of cookies that cannot be
	// written to cannot be synced with).
	go w.loop()
	if _, err := w.Sync(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// watchAll adds the watches of git's state and of the work tree.
func (w *Watcher) watchAll(ignored map[string]bool) error {
	for _, d := range []string{w.gitDir, w.commonDir, filepath.Join(w.commonDir, "info")} {
		if err := w.addGitDir(d); err != nil {
			return err
		}
	}
	if err := w.addTree(w.heads, nil, true); err != nil {
		return err
	}
	for d := range w.above {
		if err := w.fw.Add(d); err != nil {
			return fmt.Errorf("treewatch: watching %s: %w", d, watchErr(err))
		}
	}
	return w.addTree(w.root, ignored, false)
}

// addGitDir watches one directory of git's state (absent ones are skipped).
func (w *Watcher) addGitDir(d string) error {
	if w.gitDirs[d] {
		return nil
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return nil
	}
	if err := w.fw.Add(d); err != nil {
		return fmt.Errorf("treewatch: watching %s: %w", d, watchErr(err))
	}
	w.gitDirs[d] = true
	return nil
}

// addTree watches dir and every directory below it, except .git, those in
// skip and, for the work tree, those git ignores. Under w.mu or before the
// loop starts.
func (w *Watcher) addTree(dir string, skip map[string]bool, git bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir || errors.Is(err, fs.ErrNotExist) {
				return nil // gone already: its removal was an event
			}
			return fmt.Errorf("treewatch: walking %s: %w", p, err)
		}
		if !d.IsDir() {
			return nil
		}
		if git {
			if err := w.addGitDir(p); err != nil {
				return err
			}
			return nil
		}
		if d.Name() == ".git" || skip[p] || w.skipName(p) {
			return filepath.SkipDir
		}
		if w.dirs[p] {
			return nil
		}
		if len(w.dirs) >= w.opts.MaxDirs {
			return fmt.Errorf("%w: more than %d under %s", ErrTooManyDirs, w.opts.MaxDirs, w.root)
		}
		if err := w.fw.Add(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return fmt.Errorf("treewatch: watching %s: %w", p, watchErr(err))
		}
		w.dirs[p] = true
		return nil
	})
}

// skipName reports whether the work-tree directory p is one a tree
// outside git leaves out by its name (Options.SkipDir); never the root.
func (w *Watcher) skipName(p string) bool {
	return !w.git && w.opts.SkipDir != nil && p != w.root && w.opts.SkipDir(filepath.Base(p))
}

// watchErr names the inotify limit when that is what failed.
func watchErr(err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("%w (the user's inotify watches are used up: raise fs.inotify.max_user_watches)", err)
	case errors.Is(err, syscall.EMFILE):
		return fmt.Errorf("%w (the user's inotify instances are used up: raise fs.inotify.max_user_instances)", err)
	}
	return err
}

// ignoredDirs asks git for the directories it ignores under root.
func ignoredDirs(ctx context.Context, root string) (map[string]bool, error) {
	out, err := gitcmd.Run(ctx, root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil {
		return nil, fmt.Errorf("treewatch: listing ignored directories: %w", err)
	}
	dirs := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if strings.HasSuffix(p, "/") {
			dirs[filepath.Join(root, filepath.FromSlash(p))] = true
		}
	}
	return dirs, nil
}

// ignoredOf returns those of dirs (absolute) that git ignores (none
// outside git).
func (w *Watcher) ignoredOf(dirs []string) (map[string]bool, error) {
	if !w.git {
		return nil, nil
	}
	var in bytes.Buffer
	for _, d := range dirs {
		rel, err := filepath.Rel(w.root, d)
		if err != nil {
			return nil, err
		}
		in.WriteString(filepath.ToSlash(rel) + "/\x00")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := gitcmd.RunInput(ctx, w.root, in.Bytes(), "check-ignore", "-z", "--stdin")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil, nil // none ignored
	}
	if err != nil {
		return nil, fmt.Errorf("treewatch: asking git which new directories it ignores: %w", err)
	}
	ignored := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			ignored[filepath.Join(w.root, filepath.FromSlash(strings.TrimSuffix(p, "/")))] = true
		}
	}
	return ignored, nil
}

// loop reads the notifications until the watcher is closed.
func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				w.fail(ErrClosed)
				return
			}
			w.handle(ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				w.fail(ErrClosed)
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				err = fmt.Errorf("treewatch: events lost: %w", err)
			} else {
				err = fmt.Errorf("treewatch: %w", err)
			}
			w.fail(err)
		}
	}
}

// handle counts one notification, answers a cookie, and follows
// directories created and removed.
func (w *Watcher) handle(ev fsnotify.Event) {
	parent, name := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	moved := ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	if ev.Name == w.gitDir || ev.Name == w.commonDir || ev.Name == filepath.Join(w.root, ".git") {
		if moved {
			w.gen++
			w.breakLocked(ErrGitDirMoved)
		}
		return
	}
	if w.above[parent] || w.above[ev.Name] {
		if name == ".gitignore" {
			w.gen++
			w.breakLocked(ErrRulesChanged)
		}
		return
	}
	if w.gitDirs[parent] || w.gitDirs[ev.Name] {
		if parent == w.gitDir && strings.HasPrefix(name, cookiePrefix) {
			if ch, ok := w.cookies[name]; ok && ev.Has(fsnotify.Create) {
				close(ch)
				delete(w.cookies, name)
			}
			return
		}
		if w.gitRelevant(parent, name) {
			w.gen++
			w.gitGen = w.gen
			if (parent == filepath.Join(w.commonDir, "info") && name == "exclude") || name == "config" {
				w.breakLocked(ErrRulesChanged)
				return
			}
			if ev.Has(fsnotify.Create) && isDir(ev.Name) && strings.HasPrefix(ev.Name, w.heads) {
				if err := w.addTree(ev.Name, nil, true); err != nil {
					w.breakLocked(err)
				}
			}
		}
		return
	}
	w.gen++
	if name == ".gitignore" && w.git {
		w.breakLocked(ErrRulesChanged)
		return
	}
	w.noteChanged(ev.Name)
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.dropTree(ev.Name)
	}
	if ev.Has(fsnotify.Create) && name != ".git" && isDir(ev.Name) {
		if err := w.addNew(ev.Name); err != nil {
			w.breakLocked(err)
		}
	}
}

// noteChanged records that an event named the work-tree path name at the
// current generation. Under w.mu.
func (w *Watcher) noteChanged(name string) {
	rel, err := filepath.Rel(w.root, name)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		w.changed, w.lostGen = w.changed[:0], w.gen
		return
	}
	if len(w.changed) >= maxChanged {
		w.changed, w.lostGen = w.changed[:0], w.gen
		return
	}
	w.changed = append(w.changed, changedPath{w.gen, filepath.ToSlash(rel)})
}

// ChangedSince returns the work-tree paths (root-relative, slash-separated,
// each once; a directory stands for everything under it) that events
// named after generation gen (see Sync); ok is false when it cannot tell:
// git's state changed since (HEAD, the index, refs, rules), more paths
// changed than it keeps, or gen is older than a generation it was asked
// since before. It forgets the paths up to gen: a caller asks since the
// generation of its last look, which only moves forward.
func (w *Watcher) ChangedSince(gen uint64) (paths []string, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || w.gitGen > gen || w.lostGen > gen {
		return nil, false
	}
	i := 0
	for i < len(w.changed) && w.changed[i].gen <= gen {
		i++
	}
	seen := make(map[string]bool, len(w.changed)-i)
	for _, c := range w.changed[i:] {
		if !seen[c.path] {
			seen[c.path] = true
			paths = append(paths, c.path)
		}
	}
	w.changed = append(w.changed[:0], w.changed[i:]...)
	w.lostGen = max(w.lostGen, gen)
	return paths, true
}

// gitRelevant reports whether a change to parent/name in git's state can
// change a look: HEAD, the index, the config, packed-refs, info/exclude,
// a branch (lock files excepted: the change is their rename).
func (w *Watcher) gitRelevant(parent, name string) bool {
	if strings.HasSuffix(name, ".lock") {
		return false
	}
	switch {
	case parent == w.gitDir || parent == w.commonDir:
		switch name {
		case "HEAD", "index", "packed-refs", "config":
			return true
		}
		return strings.HasPrefix(name, "sharedindex.")
	case parent == filepath.Join(w.commonDir, "info"):
		return name == "exclude"
	}
	p := filepath.Join(parent, name)
	return p == w.heads || strings.HasPrefix(p, w.heads+string(filepath.Separator))
}

// addNew watches a directory created in the work tree and its subtree,
// leaving out what git ignores, one level at a time: each directory's
// watch is added before its entries are read, so a subdirectory created
// meanwhile is either read or announced by an event. Under w.mu.
func (w *Watcher) addNew(dir string) error {
	for level := []string{dir}; len(level) > 0; {
		ignored, err := w.ignoredOf(level)
		if err != nil {
			return err
		}
		var next []string
		for _, d := range level {
			if ignored[d] || w.dirs[d] || w.skipName(d) {
				continue
			}
			if len(w.dirs) >= w.opts.MaxDirs {
				return fmt.Errorf("%w: more than %d under %s", ErrTooManyDirs, w.opts.MaxDirs, w.root)
			}
			if err := w.fw.Add(d); err != nil {
				if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
					continue // gone already: its removal is an event
				}
				return fmt.Errorf("treewatch: watching %s: %w", d, watchErr(err))
			}
			w.dirs[d] = true
			ents, _ := os.ReadDir(d)
			for _, e := range ents {
				if e.IsDir() && e.Name() != ".git" {
					next = append(next, filepath.Join(d, e.Name()))
				}
			}
		}
		level = next
	}
	return nil
}

// dropTree forgets a removed or renamed directory and those below it.
// Under w.mu.
func (w *Watcher) dropTree(dir string) {
	if !w.dirs[dir] {
		return
	}
	prefix := dir + string(filepath.Separator)
	for d := range w.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			w.fw.Remove(d) // an error means the kernel dropped it already
			delete(w.dirs, d)
		}
	}
}

// isDir reports whether p is a directory (not a link to one).
func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// fail breaks the watcher.
func (w *Watcher) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.breakLocked(err)
}

// breakLocked records the first error and wakes every Sync waiting.
// Under w.mu.
func (w *Watcher) breakLocked(err error) {
	if w.err != nil {
		return
	}
	w.err = err
	for name, ch := range w.cookies {
		close(ch)
		delete(w.cookies, name)
	}
}

// Sync waits until every change made before it was called has been
// counted, and returns the generation: equal generations of one watcher
// mean nothing it watches changed between the two calls. An error means
// the watcher cannot tell (Err then says whether it is broken for good).
func (w *Watcher) Sync(ctx context.Context) (uint64, error) {
	name := fmt.Sprintf("%s%d-%d", cookiePrefix, os.Getpid(), w.seq.Add(1))
	ch := make(chan struct{})
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		return 0, w.err
	}
	w.cookies[name] = ch
	w.mu.Unlock()
	p := filepath.Join(w.gitDir, name)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		err = fmt.Errorf("treewatch: creating the cookie %s: %w", p, err)
		w.fail(err) // this watcher cannot be synced with
		return 0, err
	}
	f.Close()
	defer os.Remove(p)
	timer := time.NewTimer(w.opts.CookieTimeout)
	defer timer.Stop()
	select {
	case <-ch:
	case <-ctx.Done():
		w.forget(name)
		return 0, ctx.Err()
	case <-timer.C:
		w.forget(name)
		return 0, fmt.Errorf("treewatch: the cookie's event did not arrive within %v", w.opts.CookieTimeout)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	return w.gen, nil
}

// forget stops waiting for a cookie.
func (w *Watcher) forget(name string) {
	w.mu.Lock()
	delete(w.cookies, name)
	w.mu.Unlock()
}

// Err returns why the watcher is broken, or nil.
func (w *Watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Dirs returns how many work-tree directories are watched.
func (w *Watcher) Dirs() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.dirs)
}

// Close stops watching.
func (w *Watcher) Close() error {
	err := w.fw.Close()
	<-w.done
	if w.cookieDir != "" {
		os.RemoveAll(w.cookieDir)
	}
	return err
}

// removeStaleCookies removes cookies a process that died left behind.
func removeStaleCookies(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), cookiePrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
