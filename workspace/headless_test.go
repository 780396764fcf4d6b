package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/syntax"
)

// TestHeadlessServe: a headless session served on a store that has no
// index builds the tree's syntax index first; clients attach to it, are
// told it yields, and make it active; a second server finds it served; it
// ends when its context does, and on its own after idle with no command,
// each time leaving the store free.
func TestHeadlessServe(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the index's fact cache
	root := t.TempDir()
	for name, src := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a.go":   "package m\n\n// A calls B.\nfunc A() { B() }\n",
		"b.go":   "package m\n\n// B does nothing.\nfunc B() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "store")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := ServeHeadless(ctx, root, dir, "serve", WaitNone, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx, 0) }()

	// The index is built in the session before it answers from it.
	var c *Client
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c == nil {
			if c, err = Dial(ctx, dir, "cli", ""); err != nil {
				c = nil
			}
		}
		if c != nil && baseDocuments(t, ctx, c) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no base layer of 2 documents from the served session (dial: %v)", err)
		}
	}
	defer c.Close()
	if !c.Yields() || c.PID() != os.Getpid() {
		t.Errorf("the served session: yields %v, pid %d; want a yielding session of pid %d", c.Yields(), c.PID(), os.Getpid())
	}
	// Its status tells what the session process holds in memory.
	var st Status
	if err := c.Command(ctx, CommandStatus, nil, 0, &st); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && (st.Session.ResidentMB < 1 || st.Session.ResidentMB > 1e5) {
		t.Errorf("the session's resident memory: %v MB", st.Session.ResidentMB)
	}
	before := h.LastActive()
	time.Sleep(2 * time.Millisecond)
	baseDocuments(t, ctx, c)
	if !h.LastActive().After(before) {
		t.Errorf("a client's command left the session's last activity at %v", before)
	}
	if _, err := ServeHeadless(ctx, root, dir, "serve", WaitNone, t.Logf); !errors.Is(err, ErrServed) {
		t.Errorf("a second server of the store: %v; want ErrServed", err)
	}
	c.Close()
	// One that waits serves the store once the first has ended.
	second := make(chan *Headless, 1)
	go func() {
		h, err := ServeHeadless(context.Background(), root, dir, "serve", WaitAll, t.Logf)
		if err != nil {
			t.Errorf("a second server, waiting: %v", err)
		}
		second <- h
	}()
	time.Sleep(3 * lockedPoll)
	select {
	case <-second:
		t.Fatal("a second server served the store while the first did")
	default:
	}

	cancel()
	if err := waitServe(t, served); err != nil {
		t.Errorf("Serve ended by its context: %v", err)
	}
	select {
	case h = <-second:
		if h == nil {
			t.FailNow()
		}
		h.Close()
	case <-time.After(60 * time.Second):
		t.Fatal("the second server did not serve the store after the first ended")
	}
	storeIsFree(t, dir)

	// A store a process holds without serving a session: refused, or
	// waited for.
	holder, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ServeHeadless(context.Background(), root, dir, "serve", WaitNone, t.Logf); !errors.Is(err, graph.ErrLocked) {
		t.Errorf("serving a held store without waiting: %v; want graph.ErrLocked", err)
	}
	opened := make(chan *Headless, 1)
	go func() {
		h, err := ServeHeadless(context.Background(), root, dir, "serve", WaitAll, t.Logf)
		if err != nil {
			t.Errorf("serving a held store, waiting: %v", err)
		}
		opened <- h
	}()
	time.Sleep(3 * lockedPoll)
	select {
	case <-opened:
		t.Fatal("served the store while another process held it")
	default:
	}
	holder.Close()

	// Idle: no command, and it ends by itself.
	if h = <-opened; h == nil {
		t.FailNow()
	}
	go func() { served <- h.Serve(context.Background(), 200*time.Millisecond) }()
	if err := waitServe(t, served); err != nil {
		t.Errorf("Serve ended by idling: %v", err)
	}
	storeIsFree(t, dir)
}

// baseDocuments returns how many documents the base layer of the
// session c is a client of holds.
func baseDocuments(t *testing.T, ctx context.Context, c *Client) int {
	t.Helper()
	var st Status
	if err := c.Command(ctx, CommandStatus, nil, 0, &st); err != nil {
		t.Fatal(err)
	}
	for _, l := range st.Layers {
		if l.Layer == "base" {
			return l.Documents
		}
	}
	return 0
}

func waitServe(t *testing.T, served <-chan error) error {
	t.Helper()
	select {
	case err := <-served:
		return err
	case <-time.After(60 * time.Second):
		t.Fatal("Serve did not return")
		return nil
	}
}

func storeIsFree(t *testing.T, dir string) {
	t.Helper()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatalf("the store after Serve: %v", err)
	}
	st.Close()
}

// TestHeadlessResume: a session that gave way is not served again while
// the proxy it gave way to runs and has not been seen serving the store
// (it is taking the store over), and is as soon as that proxy has exited.
func TestHeadlessResume(t *testing.T) {
	ctx := context.Background()
	dir, root := importFixture(t, "goapp", "goapp.scip")
	h, err := ServeHeadless(ctx, root, dir, "serve", WaitNone, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.giveWay(os.Getpid())
	if h.Resume(ctx) {
		t.Error("served again while the proxy it gave way to runs, before it served the store")
	}
	// Standing by for the proxy is not idling.
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- h.Serve(sctx, 50*time.Millisecond) }()
	select {
	case err := <-served:
		t.Fatalf("Serve ended while standing by for the proxy (%v)", err)
	case <-time.After(time.Second):
	}
	stop()
	if err := waitServe(t, served); err != nil {
		t.Errorf("Serve ended by its context: %v", err)
	}
	// Serve closed h for good: another one gives way to a proxy that has
	// exited.
	h, err = ServeHeadless(ctx, root, dir, "serve", WaitNone, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	h.giveWay(gone.Process.Pid)
	if !h.Resume(ctx) {
		t.Error("not served again after the proxy it gave way to exited")
	}
}

// TestStartServing: a session that cannot be started is an error naming
// the program; one started returns at once, the program running on in
// the background with its output in the store's serve.log.
func TestStartServing(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(t.TempDir(), "lspgraph")
	if err := StartServing(context.Background(), missing, t.TempDir(), dir, time.Minute); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("StartServing of a missing program: %v", err)
	}
	// A shell that writes its arguments after a while: StartServing has
	// returned long before.
	sh := filepath.Join(t.TempDir(), "serve.sh")
	if err := os.WriteFile(sh, []byte("#!/bin/sh\nsleep 0.3\necho \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := StartServing(context.Background(), sh, t.TempDir(), dir, time.Minute); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, serveLog)); len(b) > 0 {
		t.Errorf("StartServing waited for the program: serve.log already holds %q", b)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(dir, serveLog))
		if strings.Contains(string(b), "serve --root") && strings.Contains(string(b), "--unless-served") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program started did not write its arguments to serve.log: %q", b)
		}
	}
}

// TestServeUnlessServed: a server waiting only for a held store (WaitHeld,
// as `serve --unless-served` does) waits while a process holds the store
// without serving its session, and fails with ErrServed, instead of
// waiting on, once that process serves it.
func TestServeUnlessServed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(t.TempDir(), "store")
	holder := openSession(t, root, dir)
	waited := make(chan error, 1)
	go func() {
		h, err := ServeHeadless(context.Background(), root, dir, "serve", WaitHeld, t.Logf)
		if err == nil {
			h.Close()
		}
		waited <- err
	}()
	time.Sleep(3 * lockedPoll)
	select {
	case err := <-waited:
		t.Fatalf("a server waiting for a held store returned while it was held: %v", err)
	default:
	}
	ln, err := holder.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	select {
	case err := <-waited:
		if !errors.Is(err, ErrServed) {
			t.Errorf("a server waiting for a held store, once its holder serves it: %v; want ErrServed", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a server waiting for a held store went on waiting once its holder served it")
	}
}

// TestHeadlessGivesWayAfterCommands: a session asked to give way while a
// client's command runs in it (an index of the tree, as the command line
// asks it over a client connection) answers it first, then closes: the
// index is answered, not cancelled nor run on a closed store. A command
// asked meanwhile is told the session ended (to ask again), not answered
// from a closing store.
func TestHeadlessGivesWayAfterCommands(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the index's fact cache
	const files = 3000
	root := goTree(t, files)
	dir := filepath.Join(t.TempDir(), "store")
	ctx := context.Background()
	h, err := ServeHeadless(ctx, root, dir, "serve", WaitNone, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	session := h.session

	c, err := Dial(ctx, dir, "cli", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var (
		res  IndexResult
		done time.Time
	)
	indexed := make(chan error, 1)
	go func() {
		err := c.Command(ctx, CommandIndex, nil, 0, &res)
		done = time.Now()
		indexed <- err
	}()
	commandBegun(t, session)
	proxy, err := Dial(ctx, dir, "proxy", "")
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	yieldAt := time.Now()
	if err := proxy.Yield(ctx); err != nil {
		t.Fatal(err)
	}
	// Giving way: a command on a connection is refused as the session
	// ending; a new plain request finds no session to ask.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		err := proxy.Command(ctx, CommandStatus, nil, 0, new(Status))
		if errors.Is(err, ErrSessionGone) {
			break
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("a command asked of a session giving way: %v; want ErrSessionGone", err)
		}
	}
	if _, _, err := Ask(ctx, dir, "cli", CommandStatus, nil, 0); !errors.Is(err, ErrNoSession) && !errors.Is(err, ErrSessionGone) {
		t.Errorf("a plain request of a session giving way: %v; want ErrNoSession or ErrSessionGone", err)
	}
	select {
	case err := <-indexed:
		if err != nil {
			t.Fatalf("the index, the session giving way: %v", err)
		}
		if res.Summary.Indexed != files {
			t.Errorf("the index: %d files indexed; want %d", res.Summary.Indexed, files)
		}
		if !done.After(yieldAt) {
			t.Errorf("the index was answered before the session was asked to give way: the tree is too small to test it")
		}
	case <-time.After(120 * time.Second):
		t.Fatal("the index was not answered")
	}
	for deadline := time.Now().Add(30 * time.Second); h.Serving(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the session did not give way once the index was answered")
		}
	}
	storeIsFree(t, dir)
	// The index committed before the session closed: the store holds it.
	m := baseManifest(t, dir)
	if m.Documents != files {
		t.Errorf("the base layer after the session gave way: %d documents; want %d", m.Documents, files)
	}

	// Closed for good (an interrupt), a session cancels the commands under
	// way instead: the index ends at once, told the session ended, and the
	// previous generation stays.
	if h, err = ServeHeadless(ctx, root, dir, "serve", WaitNone, t.Logf); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if c, err = Dial(ctx, dir, "cli", ""); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { indexed <- c.Command(ctx, CommandIndex, nil, 0, new(IndexResult)) }()
	commandBegun(t, h.session)
	if err := h.Close(); err != nil {
		t.Errorf("closing the session with an index under way: %v", err)
	}
	indexCancelled(t, indexed, "the index the session was closed under")
	if after := baseManifest(t, dir); after.Generation != m.Generation {
		t.Errorf("the base layer after a cancelled index: generation %d; want %d", after.Generation, m.Generation)
	}
}

// baseManifest returns the base manifest of the closed store in dir.
func baseManifest(t *testing.T, dir string) graph.Manifest {
	t.Helper()
	st, err := graph.Open(dir, graph.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return graphtest.BaseManifest(t, st)
}

// goTree writes a Go module of n files, each with two functions, a type
// and a method calling one another, whose index takes about a second:
// long enough for a test to act while it runs.
func goTree(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	for i := range n {
		write(fmt.Sprintf("f%04d.go", i), fmt.Sprintf("package m\n\n// F%[1]d calls G%[1]d.\nfunc F%[1]d() int { return G%[1]d() + 1 }\n\n// G%[1]d is %[1]d.\nfunc G%[1]d() int { return %[1]d }\n\ntype T%[1]d struct{ n int }\n\nfunc (t T%[1]d) N() int { return t.n + F%[1]d() }\n", i))
	}
	return root
}

// TestConcurrentIndexes: two indexes asked of one session at once (an
// agent's and a terminal's) both succeed, one after the other, instead of
// the second failing on the generation the first is writing.
func TestConcurrentIndexes(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the index's fact cache
	const files = 3000
	root := goTree(t, files)
	s := openSession(t, root, filepath.Join(t.TempDir(), "store"))
	ctx := context.Background()
	results := make(chan error, 2)
	for range 2 {
		go func() {
			res, err := s.Command(ctx, CommandIndex, Call{})
			if err == nil && res.(IndexResult).Summary.Indexed != files {
				err = fmt.Errorf("%d files indexed; want %d", res.(IndexResult).Summary.Indexed, files)
			}
			results <- err
		}()
	}
	for range 2 {
		if err := <-results; err != nil {
			t.Errorf("an index asked beside another: %v", err)
		}
	}
}

// TestIndexCommandOptions: an index asked of a session honours what the
// command line asks: by default an incremental index with the user's fact
// cache, Full a whole new generation, FactCache another cache directory,
// NoFactCache none.
func TestIndexCommandOptions(t *testing.T) {
	cacheHome := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	root := goTree(t, 20)
	s := openSession(t, root, filepath.Join(t.TempDir(), "store"))
	ctx := context.Background()
	index := func(q IndexRequest) syntax.IndexSummary {
		t.Helper()
		raw, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Command(ctx, CommandIndex, Call{Args: []json.RawMessage{raw}})
		if err != nil {
			t.Fatalf("index %+v: %v", q, err)
		}
		return res.(IndexResult).Summary
	}
	packs := func(dir string) int {
		t.Helper()
		entries, _ := os.ReadDir(dir)
		return len(entries)
	}
	first := index(IndexRequest{})
	userCache := filepath.Join(cacheHome, "lspgraph", "facts")
	if packs(userCache) == 0 {
		t.Errorf("an index through the session wrote nothing to the user's fact cache %s", userCache)
	}
	if again := index(IndexRequest{}); !again.Incremental || again.Generation != first.Generation {
		t.Errorf("an index of an unchanged tree: incremental %v, generation %d; want an incremental one of generation %d", again.Incremental, again.Generation, first.Generation)
	}
	other := filepath.Join(t.TempDir(), "facts")
	full := index(IndexRequest{Full: true, FactCache: other})
	if full.Incremental || full.Generation == first.Generation {
		t.Errorf("an index asked full: incremental %v, generation %d (the first %d); want a new generation", full.Incremental, full.Generation, first.Generation)
	}
	if packs(other) == 0 {
		t.Errorf("an index asked with the fact cache %s wrote nothing there", other)
	}
	none := filepath.Join(t.TempDir(), "none")
	t.Setenv("XDG_CACHE_HOME", none)
	if index(IndexRequest{Full: true, NoFactCache: true}); packs(filepath.Join(none, "lspgraph", "facts")) != 0 {
		t.Error("an index asked with no fact cache wrote one")
	}
}

// TestListenerCloseCancels: an owner closing its session for good (an
// editor's proxy exiting: its listener, then its session) cancels a
// client's command under way, which answers that the session ended,
// rather than keeping the owner until it finishes.
func TestListenerCloseCancels(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the index's fact cache
	root := goTree(t, 3000)
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(Options{Root: root, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := Dial(ctx, dir, "cli", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	indexed := make(chan error, 1)
	go func() { indexed <- c.Command(ctx, CommandIndex, nil, 0, new(IndexResult)) }()
	commandBegun(t, s)
	if err := ln.Close(); err != nil {
		t.Errorf("closing the listener: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	indexCancelled(t, indexed, "the index under way when its owner closed")
	if m := baseManifest(t, dir); m.Generation != 0 {
		t.Errorf("a cancelled first index left generation %d", m.Generation)
	}
}

// commandBegun waits until a command has begun in session s.
func commandBegun(t *testing.T, s *Session) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); s.LastCommand().IsZero(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no command began in the session")
		}
	}
}

// indexCancelled waits for the answer of an index its session was closed
// under: that the session ended before it finished.
func indexCancelled(t *testing.T, answer <-chan error, what string) {
	t.Helper()
	select {
	case err := <-answer:
		if err == nil || !strings.Contains(err.Error(), "session ended before lspgraph.index finished") {
			t.Errorf("%s: %v; want the session ended before it finished", what, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s was not answered", what)
	}
}
