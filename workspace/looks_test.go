package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/treewatch"
	"github.com/lspgraph/lspgraph/scip"
)

// gitFixture copies testdata/goapp into a new git repository with one
// commit, imports its SCIP dump at that commit and returns the root, the
// store's directory and a git runner in the root.
func gitFixture(t *testing.T) (string, string, func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := filepath.Join(t.TempDir(), "goapp")
	if out, err := exec.Command("cp", "-r", filepath.Join(repoRoot(t), "testdata", "goapp"), root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	git := gitIn(t, root)
	age(t, root)
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "fixture")
	dir := t.TempDir()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(repoRoot(t), "testdata", "scip", "goapp.scip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := scip.Import(context.Background(), st, f, scip.Options{Root: root, Commit: git("rev-parse", "HEAD")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	return root, dir, git
}

// age sets the times of the files under root an hour back. A file whose
// time is not older than the index's is racily clean to git, and every
// git status writes the index again (a change a watcher sees) until the
// clock has moved on; aged files are not.
func age(t *testing.T, root string) {
	t.Helper()
	then := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		return os.Chtimes(p, then, then)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// searchFresh asks the session's lspgraph.search and returns the answer's
// HEAD and changed documents.
func searchFresh(t *testing.T, s *Session) (string, []string) {
	t.Helper()
	raw, err := s.Command(context.Background(), CommandSearch, Call{Args: []json.RawMessage{json.RawMessage(`{"query":"catalog save"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	ans, ok := raw.(*SearchAnswer)
	if !ok {
		t.Fatalf("lspgraph.search answered a %T", raw)
	}
	return ans.Freshness.Head, ans.Freshness.Changed
}

func writeFile(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatchedLooks: a watched session runs git only when something
// changed, and every change made outside the editor shows in the next
// answer: an edit, a file in a new directory, a commit, a branch switch.
func TestWatchedLooks(t *testing.T) {
	root, dir, git := gitFixture(t)
	s, err := Open(Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler), Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Watching(context.Background()) {
		t.Fatal("the session does not watch its git work tree")
	}
	first := git("rev-parse", "HEAD")
	// ask answers once and checks how many looks ran git.
	ask := func(what string, wantFull int) (string, []string) {
		t.Helper()
		before, _ := s.looks.counts()
		head, changed := searchFresh(t, s)
		after, _ := s.looks.counts()
		if after-before != wantFull {
			t.Fatalf("%s: %d looks ran git, want %d", what, after-before, wantFull)
		}
		return head, changed
	}
	if full, _ := s.looks.counts(); full != 1 {
		t.Fatalf("the watcher's start took %d looks, want 1 (the first, so that no answer waits for it)", full)
	}
	if head, changed := ask("first answer", 0); head != first || len(changed) != 0 {
		t.Fatalf("first answer: head %s, changed %v; want %s and nothing", head, changed, first)
	}
	ask("unchanged tree", 0)
	ask("unchanged tree again", 0)

	edited := "service/catalog.go"
	b, err := os.ReadFile(filepath.Join(root, edited))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, edited, string(b)+"\n// edited outside the editor\n")
	if _, changed := ask("after an edit on disk", 1); !slices.Contains(changed, edited) {
		t.Fatalf("after an edit on disk: changed %v, want %s", changed, edited)
	}
	ask("unchanged since the edit", 0)

	writeFile(t, root, "extra/deeper/extra.go", "package deeper\n")
	if _, changed := ask("after a file in a new directory", 1); !slices.Contains(changed, "extra/deeper/extra.go") {
		t.Fatalf("after a file in a new directory: changed %v", changed)
	}
	writeFile(t, root, "extra/deeper/more.go", "package deeper\n")
	if _, changed := ask("after a second file there", 1); !slices.Contains(changed, "extra/deeper/more.go") {
		t.Fatalf("after a second file in the new directory: changed %v", changed)
	}

	age(t, root)
	git("add", "-A")
	git("commit", "-q", "-m", "second")
	second := git("rev-parse", "HEAD")
	head, _ := searchFresh(t, s)
	if head != second {
		t.Fatalf("after a commit: head %s, want %s", head, second)
	}
	ask("unchanged since the commit", 0)

	git("checkout", "-q", "-b", "other", first)
	head, changed := searchFresh(t, s)
	if head != first || len(changed) != 0 {
		t.Fatalf("after switching to a branch at the base: head %s, changed %v; want %s and nothing", head, changed, first)
	}
	raw, err := s.Command(context.Background(), CommandStatus, Call{})
	if err != nil {
		t.Fatal(err)
	}
	st := raw.(Status).Session
	if st.WorkTree != "watched" || st.GitLooks == 0 || st.ReusedLooks == 0 {
		t.Fatalf("status: work tree %q, %d looks ran git, %d were reused", st.WorkTree, st.GitLooks, st.ReusedLooks)
	}
}

// TestLookBaseInKey: a look taken against one base is not reused for
// another (a new base import).
func TestLookBaseInKey(t *testing.T) {
	root, _, git := gitFixture(t)
	l := newLooks(root, slog.New(slog.DiscardHandler), treewatch.Options{}, nil)
	defer l.close()
	l.watch()
	if !l.waitStarted(context.Background()) {
		t.Fatal("not watching")
	}
	head := git("rev-parse", "HEAD")
	ctx := context.Background()
	for _, base := range []string{head, head, "", "", head} {
		if _, err := l.look(ctx, base); err != nil {
			t.Fatal(err)
		}
	}
	if full, reused := l.counts(); full != 3 || reused != 2 {
		t.Fatalf("bases A A B B A: %d looks ran git, %d reused; want 3 and 2", full, reused)
	}
}

// TestLooksFallBack: when the tree cannot be watched (more directories
// than the cap) every look runs git; when the watcher breaks (its ignore
// rules changed) looks run git until a new one runs, and answers stay
// true throughout.
func TestLooksFallBack(t *testing.T) {
	root, _, _ := gitFixture(t)
	ctx := context.Background()
	l := newLooks(root, slog.New(slog.DiscardHandler), treewatch.Options{MaxDirs: 1}, nil)
	l.watch()
	if l.waitStarted(ctx) {
		t.Fatal("watching a tree over the cap")
	}
	if st := l.state(); !strings.Contains(st, "too many directories") {
		t.Fatalf("state %q does not say why the tree is not watched", st)
	}
	for range 3 {
		if _, err := l.look(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	if full, reused := l.counts(); full != 3 || reused != 0 {
		t.Fatalf("unwatchable tree: %d looks ran git, %d reused; want 3 and 0", full, reused)
	}
	l.close()

	l = newLooks(root, slog.New(slog.DiscardHandler), treewatch.Options{}, nil)
	defer l.close()
	l.watch()
	if !l.waitStarted(ctx) {
		t.Fatal("not watching")
	}
	l.look(ctx, "")
	writeFile(t, root, ".gitignore", "ignored/\n")
	w, err := l.look(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(w.Changes, func(c freshness.Change) bool { return c.Path == ".gitignore" }) {
		t.Fatalf("after .gitignore was written: changes %v", w.Changes)
	}
	// A new watcher starts in the background.
	deadline := time.Now().Add(30 * time.Second)
	for {
		l.mu.Lock()
		running := l.watcher != nil
		l.mu.Unlock()
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no new watcher after the old one broke")
		}
		time.Sleep(10 * time.Millisecond)
	}
	l.look(ctx, "")
	before, _ := l.counts()
	l.look(ctx, "")
	if after, _ := l.counts(); after != before {
		t.Fatal("the new watcher's looks are not reused")
	}
	writeFile(t, root, "late.go", "package main\n")
	w, err = l.look(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(w.Changes, func(c freshness.Change) bool { return c.Path == "late.go" }) {
		t.Fatalf("the new watcher missed a new file: changes %v", w.Changes)
	}
}

// TestUnreadDir: a tree outside git is watched without the directories
// neither the syntax index nor discovery enters, and with every one either
// reads (discovery leaves testdata and build out, the index does not).
func TestUnreadDir(t *testing.T) {
	for name, want := range map[string]bool{
		"node_modules": true, "vendor": true, ".cache": true,
		"src": false, "testdata": false, "build": false, "dist": false, "__pycache__": false,
	} {
		if got := unreadDir(name); got != want {
			t.Errorf("unreadDir(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestFirstSyncReusesWatcherLook: a long-lived session's first background
// sync waits for its watcher to start and reuses the watcher's first look:
// one look at the tree with git when the session opens, not two.
func TestFirstSyncReusesWatcherLook(t *testing.T) {
	root, dir, _ := gitFixture(t)
	s, err := Open(Options{Root: root, StoreDir: dir, Background: true, Watch: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		synced := !s.lastSync.At.IsZero()
		s.mu.Unlock()
		if synced {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no background sync within 30 s of the session's start")
		}
	}
	if full, reused := s.looks.counts(); full != 1 || reused < 1 {
		t.Errorf("after the first background sync: %d looks with git, %d reused; want 1 (the watcher's first) and the sync's reused", full, reused)
	}
}

// TestStatusReusesLook: status through a session whose watcher runs takes
// the session's look, reused while nothing changed (it runs no git), and
// still lists a file changed since.
func TestStatusReusesLook(t *testing.T) {
	root, dir, _ := gitFixture(t)
	gitRuns := gitShim(t)
	s := watchingSession(t, root, dir)
	ctx := context.Background()
	status := func() *Status {
		t.Helper()
		res, err := s.Command(ctx, CommandStatus, Call{})
		if err != nil {
			t.Fatal(err)
		}
		st := res.(Status)
		return &st
	}
	status()
	before := len(gitRuns())
	status()
	if n := len(gitRuns()) - before; n != 0 {
		t.Errorf("a second status with nothing changed ran git %d times, want none", n)
	}
	writeFile(t, root, "store/store.go", "package store // changed\n")
	if st := status(); st.Freshness == nil || !slices.Contains(st.Freshness.Changed, "store/store.go") {
		t.Errorf("status after store/store.go changed: freshness %+v, want it listed as changed", st.Freshness)
	}
}

// gitShim puts a git first in PATH that logs each run's arguments and runs
// the real one; runs returns the logged runs so far.
func gitShim(t *testing.T) (runs func() []string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	shim, log := t.TempDir(), filepath.Join(t.TempDir(), "runs")
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\nexec %q \"$@\"\n", log, real)
	if err := os.WriteFile(filepath.Join(shim, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shim+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		b, _ := os.ReadFile(log)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
}

// TestChangesKeepsDiff: lspgraph.changes through a session whose watcher
// runs keeps its git diff while nothing changed: asked again it runs no
// diff and answers the same; after a file changed it lists it; a base
// named by a branch is diffed every time.
func TestChangesKeepsDiff(t *testing.T) {
	root, dir, git := gitFixture(t)
	runs := gitShim(t)
	s := watchingSession(t, root, dir)
	ctx := context.Background()
	diffs := func() int {
		n := 0
		for _, r := range runs() {
			if strings.Contains(r, "diff -U0") {
				n++
			}
		}
		return n
	}
	changes := func(base string) string {
		t.Helper()
		arg, _ := json.Marshal(ChangesRequest{Base: base})
		res, err := s.Command(ctx, CommandChanges, Call{Args: []json.RawMessage{arg}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		return string(b)
	}
	writeFile(t, root, "store/store.go", "package store // changed\n")
	first := changes("")
	before := diffs()
	if again := changes(""); again != first {
		t.Errorf("asked again with nothing changed:\n%s\nwant\n%s", again, first)
	}
	if n := diffs() - before; n != 0 {
		t.Errorf("asked again with nothing changed, git diff ran %d times, want none", n)
	}
	writeFile(t, root, "service/catalog.go", "package service // changed\n")
	if after := changes(""); !strings.Contains(after, "service/catalog.go") || diffs() != before+1 {
		t.Errorf("after service/catalog.go changed: %d diffs (want %d), answer %.300s", diffs(), before+1, after)
	}
	git("branch", "-f", "kept", "HEAD")
	before = diffs()
	changes("kept")
	changes("kept")
	if n := diffs() - before; n != 2 {
		t.Errorf("two changes against a branch ran git diff %d times, want 2", n)
	}
}

// TestChangesFromLookAgrees: the changes since the base read from a
// look's changed paths alone are those a diff of the whole tree lists:
// nothing changed; a file edited, one deleted, one renamed and edited
// (staged), an untracked file in a new directory, an ignored one; and from
// a root below the repository's top, whose changes alone are listed,
// relative to it.
func TestChangesFromLookAgrees(t *testing.T) {
	ctx := context.Background()
	root, _, git := gitFixture(t)
	base := git("rev-parse", "HEAD")
	agree := func(what, root string) {
		t.Helper()
		w, err := freshness.Look(ctx, root, base)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := changesFromLook(ctx, root, w, base)
		if err != nil || !ok {
			t.Fatalf("%s: %v, %v", what, ok, err)
		}
		want, err := gitChanges(ctx, root, base, false)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: from the look %+v, the whole tree's diff %+v", what, got, want)
		}
	}
	agree("nothing changed", root)
	writeFile(t, root, "service/catalog.go", "package service\n\n// Catalog is changed.\ntype Catalog struct{}\n")
	if err := os.Remove(filepath.Join(root, "store", "store.go")); err != nil {
		t.Fatal(err)
	}
	git("mv", "cmd/goapp/main.go", "cmd/goapp/app.go")
	b, err := os.ReadFile(filepath.Join(root, "cmd", "goapp", "app.go"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "cmd/goapp/app.go", string(b)+"\n// moved\n")
	writeFile(t, root, "extra/new.go", "package extra\n\nfunc New() {}\n")
	writeFile(t, root, ".gitignore", "*.log\n")
	writeFile(t, root, "debug.log", "ignored\n")
	agree("edits, a deletion, a rename, new files", root)
	// From a root below the top: its changes alone, their paths relative
	// to it, as the graph's are.
	sub := filepath.Join(root, "service")
	agree("from a directory below the top", sub)
	got, err := gitChanges(ctx, sub, base, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "catalog.go" {
		t.Errorf("from a directory below the top: %+v, want catalog.go alone", got)
	}
}

// watchingSession opens the session of root (store dir) with a work-tree
// watcher, once it watches; it is closed when the test ends.
func watchingSession(t *testing.T, root, dir string) *Session {
	t.Helper()
	s, err := Open(Options{Root: root, StoreDir: dir, Watch: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if !s.Watching(context.Background()) {
		t.Fatal("not watching")
	}
	return s
}

// readFile returns the text of root/rel.
func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLookAgainAgreesWithFullLook: after each change a watched session's
// look, taken at the changed paths alone where its watcher can tell them,
// lists what a full look lists: an edit, files added in an old and a new
// directory, a file deleted, a directory of untracked files removed, a
// tracked file moved in the work tree, a rename staged (git's state: a
// full look), the renamed file edited afterwards, an ignored file.
func TestLookAgainAgreesWithFullLook(t *testing.T) {
	ctx := context.Background()
	root, dir, git := gitFixture(t)
	writeFile(t, root, ".gitignore", "*.log\n")
	age(t, root)
	git("add", ".gitignore")
	git("commit", "-q", "-m", "ignore logs")
	s := watchingSession(t, root, dir)
	base := s.baseCommit()
	check := func(what string) {
		t.Helper()
		got, err := s.looks.look(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		want, err := freshness.Look(ctx, root, base)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Changes, want.Changes) || got.Head != want.Head {
			t.Errorf("%s: the session's look lists\n%v (head %s)\na full look\n%v (head %s)", what, got.Changes, got.Head, want.Changes, want.Head)
		}
	}
	rm := func(rel string) {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	mv := func(from, to string) {
		t.Helper()
		if err := os.Rename(filepath.Join(root, filepath.FromSlash(from)), filepath.Join(root, filepath.FromSlash(to))); err != nil {
			t.Fatal(err)
		}
	}
	check("at the start")
	writeFile(t, root, "service/catalog.go", readFile(t, root, "service/catalog.go")+"\n// edited\n")
	check("an edit")
	writeFile(t, root, "service/new.go", "package service\n")
	check("a file added")
	writeFile(t, root, "extra/deeper/a.go", "package deeper\n")
	writeFile(t, root, "extra/deeper/b.go", "package deeper\n")
	check("files in a new directory")
	rm("store/memstore/mem.go")
	check("a tracked file deleted")
	rm("extra")
	check("a directory of untracked files removed")
	mv("store/filestore/file.go", "store/filestore/moved.go")
	check("a tracked file moved in the work tree")
	writeFile(t, root, "service/debug.log", "ignored\n")
	check("an ignored file")
	git("add", "-A", "store/filestore")
	check("a rename staged")
	writeFile(t, root, "store/filestore/moved.go", readFile(t, root, "store/filestore/moved.go")+"\n// edited after the move\n")
	check("the renamed file edited")
	writeFile(t, root, "store/filestore/file.go", "package filestore\n")
	check("the rename's old path written again")
	s.looks.mu.Lock()
	again := s.looks.again
	s.looks.mu.Unlock()
	if again < 6 {
		t.Errorf("%d looks at the changed paths alone, want most of the changes' (at least 6)", again)
	}
}
