package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/scope"
)

// TestContextScopeComputedOncePerState: the scope analysis is computed on
// the first context request, reused while the work tree and the store
// stay as they were, brought up to date when only the live layer changed
// or a patch changed base documents in place, computed again for a new
// base generation, kept with a new discovery when a file changed but the
// packages did not (reading again only the sources that changed, without
// a walk of the tree), and computed again when the packages changed.
func TestContextScopeComputedOncePerState(t *testing.T) {
	ctx := context.Background()
	root, dir, git := gitFixture(t)
	head := git("rev-parse", "HEAD")
	s := openSession(t, root, dir)
	ask := func() {
		t.Helper()
		if _, err := s.Command(ctx, CommandContext, Call{Args: []json.RawMessage{json.RawMessage(`{"symbol":"Catalog.Save","budget":2000}`)}}); err != nil {
			t.Fatal(err)
		}
	}
	counts := func() (int, int) {
		s.scopes.mu.Lock()
		defer s.scopes.mu.Unlock()
		return s.scopes.hits, s.scopes.misses
	}
	ask()
	ask()
	if h, m := counts(); h != 1 || m != 1 {
		t.Fatalf("two requests on one state: %d hits, %d misses; want 1 and 1", h, m)
	}
	// A live-layer write (what every observed editor answer makes)
	// brings the kept analysis up to date rather than computing it anew.
	live := graph.DocumentFacts{Document: graph.Document{Path: "service/extra.go", Language: "go", Package: "example.com/goapp/service", Source: graph.SourceLSP}}
	if err := s.store.PutDocument(ctx, graph.Live, live); err != nil {
		t.Fatal(err)
	}
	ask()
	s.scopes.mu.Lock()
	updates := s.scopes.updates
	kept := s.scopes.a.HasDocument("service/extra.go")
	s.scopes.mu.Unlock()
	if h, m := counts(); h != 1 || m != 1 || updates != 1 || !kept {
		t.Fatalf("after a live write: %d hits, %d updates, %d misses, the live document known: %v; want 1, 1, 1, true", h, updates, m, kept)
	}
	ask()
	if h, m := counts(); h != 2 || m != 1 {
		t.Fatalf("the updated analysis is reused: %d hits, %d misses; want 2 and 1", h, m)
	}
	// A patch of the base generation (what an incremental index writes)
	// brings it up to date too, with the base documents it changed.
	r, err := s.store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := r.Manifest(graph.Base)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	patch, err := s.store.BeginPatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	patched := graph.DocumentFacts{Document: graph.Document{Path: "service/patched.go", Language: "go", Package: "example.com/goapp/service", Source: graph.SourceSCIP}}
	if err := patch.PutDocument(ctx, patched); err != nil {
		t.Fatal(err)
	}
	if err := patch.Commit(ctx, m); err != nil {
		t.Fatal(err)
	}
	ask()
	s.scopes.mu.Lock()
	updates = s.scopes.updates
	kept = s.scopes.a.HasDocument("service/patched.go")
	s.scopes.mu.Unlock()
	if h, m := counts(); h != 2 || m != 1 || updates != 2 || !kept {
		t.Fatalf("after a base patch: %d hits, %d updates, %d misses, the patched document known: %v; want 2, 2, 1, true", h, updates, m, kept)
	}
	// A new base generation is analysed anew.
	f, err := os.Open(otherToolDump(t, "goapp.scip"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scip.Import(ctx, s.store, f, scip.Options{Root: root, Commit: head}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ask()
	if h, m := counts(); h != 2 || m != 2 {
		t.Fatalf("after a new base generation: %d hits, %d misses; want 2 and 2", h, m)
	}
	ask()
	if h, m := counts(); h != 3 || m != 2 {
		t.Fatalf("the new generation's analysis is reused: %d hits, %d misses; want 3 and 2", h, m)
	}
	gomod := filepath.Join(root, "go.mod")
	b, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gomod, append(b, "\n// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	// A changed file (here a manifest) makes the work tree discovered
	// again; with the same packages the analysis is kept, using the new
	// discovery.
	ask()
	s.scopes.mu.Lock()
	rediscovers := s.scopes.rediscovers
	s.scopes.mu.Unlock()
	if h, m := counts(); h != 4 || m != 2 || rediscovers != 1 {
		t.Fatalf("after go.mod changed: %d hits, %d rediscoveries, %d misses; want 4, 1, 2", h, rediscovers, m)
	}
	ask()
	if h, m := counts(); h != 5 || m != 2 {
		t.Fatalf("the new state is reused: %d hits, %d misses; want 5 and 2", h, m)
	}
	if c := s.scopes.sources.Counts(); c.Read != 0 || c.Reused == 0 || c.Walked {
		t.Errorf("discovered again after go.mod changed: %+v; want every source reused, the tree not walked", c)
	}
	// A saved source is the only one discovery reads again.
	saved := filepath.Join(root, "service", "catalog.go")
	if b, err = os.ReadFile(saved); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saved, append(b, "\n// saved\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	ask()
	s.scopes.mu.Lock()
	rediscovers = s.scopes.rediscovers
	s.scopes.mu.Unlock()
	// (The overlay writes the saved file's facts to the live layer, so
	// the analysis kept is brought up to date too.)
	if _, m := counts(); m != 2 || rediscovers != 2 {
		t.Fatalf("after a source was saved: %d rediscoveries, %d misses; want 2 and 2", rediscovers, m)
	}
	if c := s.scopes.sources.Counts(); c.Read != 1 || c.Reused == 0 || c.Walked {
		t.Errorf("discovered again after a source was saved: %+v; want it the only one read, the tree not walked", c)
	}
	// A new module is a new package: the analysis is computed again.
	if err := os.MkdirAll(filepath.Join(root, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tools", "go.mod"), []byte("module example.com/tools\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ask()
	if _, m := counts(); m != 3 {
		t.Fatalf("after a module was added: %d misses; want the analysis computed again (3)", m)
	}
	s.scopes.mu.Lock()
	_, found := s.scopes.a.Workspace().Package("example.com/tools")
	s.scopes.mu.Unlock()
	if !found {
		t.Errorf("the analysis computed again lacks the new module")
	}
}

// TestContextSourcesKeptAcrossSessions: what discovery read of the sources
// is kept in the store's directory, so that a later session (a command
// line's) reads none of them again while they are unchanged; a damaged
// file is read past (every source read) and replaced.
func TestContextSourcesKeptAcrossSessions(t *testing.T) {
	ctx := context.Background()
	root, dir, _ := gitFixture(t)
	file := filepath.Join(dir, sourcesFile)
	session := func(what string) scope.SourceCounts {
		t.Helper()
		s, err := Open(Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Command(ctx, CommandContext, Call{Args: []json.RawMessage{json.RawMessage(`{"symbol":"Catalog.Save","budget":2000}`)}}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return s.scopes.sources.Counts()
	}
	first := session("first session")
	if first.Read == 0 || first.Reused != 0 {
		t.Fatalf("first session: %+v, want every source read", first)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the first session kept no sources: %v", err)
	}
	if c := session("second session"); c.Read != 0 || c.Reused != first.Read {
		t.Errorf("second session: %+v, want %d reused and none read", c, first.Read)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if c := session("damaged file"); c.Read != first.Read {
		t.Errorf("after the file was damaged: %+v, want every source read", c)
	}
	if c := session("replaced file"); c.Read != 0 {
		t.Errorf("the damaged file was not replaced: %+v", c)
	}
}

// TestContextObservationsKeptAcrossSessions: what an analysis observed of
// the closures' documents is kept in the store's directory, so that a
// later session's analysis (a command line's) of the same store and
// workspace takes it instead of reading the documents again, and answers
// the same; a write to the store, or a damaged file, leaves the documents
// to be observed again.
func TestContextObservationsKeptAcrossSessions(t *testing.T) {
	ctx := context.Background()
	root, dir, _ := gitFixture(t)
	file := filepath.Join(dir, observationsFile)
	// session answers a context question and returns the answer and how
	// many documents its analysis took from the file.
	session := func(what string, write func(*Session)) (string, int) {
		t.Helper()
		s, err := Open(Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if write != nil {
			write(s)
		}
		res, err := s.Command(ctx, CommandContext, Call{Args: []json.RawMessage{json.RawMessage(`{"symbol":"Catalog.Save","budget":2000}`)}})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if s.scopes.observing == nil || s.scopes.observing.ObservedDocuments() == 0 {
			t.Fatalf("%s: the analysis observed no document", what)
		}
		return string(b), s.scopes.obsTook
	}
	first, took := session("first session", nil)
	if took != 0 {
		t.Fatalf("first session took %d documents' observations from nowhere", took)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the first session kept no observations: %v", err)
	}
	answer, took := session("second session", nil)
	if took == 0 {
		t.Errorf("the second session observed every document again")
	}
	if answer != first {
		t.Errorf("the second session answers\n%s\nthe first\n%s", answer, first)
	}
	// A write to the store by another session (another process): the
	// observations are taken, but for the documents written since, which
	// are observed again; the answer is the one observed anew.
	w, err := Open(Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.store.PutDocument(ctx, graph.Live, graph.DocumentFacts{Document: graph.Document{Path: "notes.go", Language: "go"}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	written, took := session("after a write", nil)
	if took == 0 {
		t.Errorf("a session after a write to the store observed every document again")
	}
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if anew, took := session("observed anew", nil); took != 0 || anew != written {
		t.Errorf("observed anew (%d taken): answers\n%s\nafter the write\n%s", took, anew, written)
	}
	if err := os.WriteFile(file, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("{\"format\": 1, \"documents\": "), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, took = session("damaged file", nil); took != 0 {
		t.Errorf("a damaged file gave %d documents' observations", took)
	}
	if _, took = session("replaced file", nil); took == 0 {
		t.Errorf("the damaged file was not replaced")
	}
}

// TestContextListingKeptAcrossSessions: discovery's listing of the tree is
// kept in the store's directory with the state of the work tree it holds
// for, so that a later session (a command line's) at the same HEAD walks
// no tree: it lists again only the paths whose state changed since (an
// untracked module added, then changed), and discovers what a walk does;
// a new commit is walked again.
func TestContextListingKeptAcrossSessions(t *testing.T) {
	ctx := context.Background()
	root, dir, git := gitFixture(t)
	type result struct {
		walked   bool
		answer   string
		packages []scope.Package
		declared []scope.Dep
	}
	session := func(what string) result {
		t.Helper()
		s, err := Open(Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		out, err := s.Command(ctx, CommandContext, Call{Args: []json.RawMessage{json.RawMessage(`{"symbol":"Catalog.Save","budget":2000}`)}})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		ws := s.scopes.a.Workspace()
		return result{s.scopes.sources.Counts().Walked, string(b), ws.Packages, ws.Declared()}
	}
	// asWalked fails unless r discovered what a walk of the tree does now.
	asWalked := func(what string, r result) {
		t.Helper()
		ws, err := scope.Discover(root)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.packages, ws.Packages) || !reflect.DeepEqual(r.declared, ws.Declared()) {
			t.Errorf("%s: discovered %+v %+v, a walk %+v %+v", what, r.packages, r.declared, ws.Packages, ws.Declared())
		}
	}
	first := session("first session")
	if !first.walked {
		t.Fatal("the first session did not walk the tree")
	}
	second := session("second session")
	if second.walked || second.answer != first.answer {
		t.Errorf("second session: walked %v, same answer %v; want no walk, the same answer", second.walked, second.answer == first.answer)
	}
	asWalked("second session", second)

	writeFile(t, root, "extra/go.mod", "module example.com/extra\n\ngo 1.22\n")
	writeFile(t, root, "extra/x.go", "package extra\n")
	r := session("a module added")
	if r.walked {
		t.Error("a module added: the tree was walked")
	}
	asWalked("a module added", r)
	if !slices.ContainsFunc(r.packages, func(p scope.Package) bool { return p.Name == "example.com/extra" }) {
		t.Errorf("a module added: not discovered: %+v", r.packages)
	}
	writeFile(t, root, "extra/go.mod", "module example.com/extra\n\ngo 1.22\n\nrequire example.com/goapp v0.0.0\n")
	r = session("a requirement added")
	if r.walked {
		t.Error("a requirement added: the tree was walked")
	}
	asWalked("a requirement added", r)
	if len(r.declared) == len(first.declared) {
		t.Errorf("a requirement added: declared %+v, as before it", r.declared)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "extra")
	if r = session("after a commit"); !r.walked {
		t.Error("after a commit: the tree was not walked")
	}
	asWalked("after a commit", r)
}

// TestContextScopeKeptOutsideGit: outside git a session whose watcher
// follows the tree keeps the scope analysis, and its discovery of the
// tree, while nothing changed, and discovers the tree again once a file
// changed; without a watcher every question discovers the tree anew
// (keeping the analysis while the packages stay the same).
func TestContextScopeKeptOutsideGit(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the index's fact cache
	ctx := context.Background()
	root := goTree(t, 20)
	dir := filepath.Join(t.TempDir(), "store")
	type tally struct{ hits, rediscovers, misses int }
	counts := func(s *Session) tally {
		s.scopes.mu.Lock()
		defer s.scopes.mu.Unlock()
		return tally{s.scopes.hits, s.scopes.rediscovers, s.scopes.misses}
	}
	ask := func(s *Session) {
		t.Helper()
		if _, err := s.Command(ctx, CommandContext, Call{Args: []json.RawMessage{json.RawMessage(`{"symbol":"F1","budget":2000}`)}}); err != nil {
			t.Fatal(err)
		}
	}

	plain := openSession(t, root, dir)
	if _, err := plain.Command(ctx, CommandIndex, Call{}); err != nil {
		t.Fatal(err)
	}
	ask(plain)
	ask(plain)
	if got := counts(plain); got.rediscovers != 1 || got.misses != 1 {
		t.Errorf("outside git with no watcher, two questions: %+v; want the tree discovered again for the second", got)
	}
	plain.Close()

	s, err := Open(Options{Root: root, StoreDir: dir, Watch: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Watching(ctx) {
		t.Fatalf("no watcher outside git: %s", s.looks.state())
	}
	ask(s)
	ask(s)
	if got := counts(s); got != (tally{hits: 1, misses: 1}) {
		t.Fatalf("two questions on an unchanged, watched tree: %+v; want 1 hit, 1 miss, no discovery again", got)
	}
	if err := os.WriteFile(filepath.Join(root, "extra.go"), []byte("package m\n\nfunc Extra() int { return F1() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ask(s)
	if got := counts(s); got != (tally{hits: 2, rediscovers: 1, misses: 1}) {
		t.Fatalf("after a file was added: %+v; want the tree discovered again", got)
	}
	ask(s)
	if got := counts(s); got != (tally{hits: 3, rediscovers: 1, misses: 1}) {
		t.Fatalf("the new state is kept: %+v", got)
	}
}

// TestScopeKeepsDiscovery: lspgraph.scope through a session whose watcher
// runs discovers the tree's packages and analyses the graph in them once
// while nothing changed, and again when a file changed: a package added
// then shows.
func TestScopeKeepsDiscovery(t *testing.T) {
	root, dir, _ := gitFixture(t)
	s := watchingSession(t, root, dir)
	ask := func() (*ScopeReport, *scope.Workspace, *scope.Analysis) { return askScope(t, s, "service/catalog.go") }
	first, ws, a := ask()
	if again, ws2, a2 := ask(); ws2 != ws || a2 != a || !reflect.DeepEqual(again, first) {
		t.Errorf("asked again with nothing changed: discovered again %v, analysed again %v, same answer %v", ws2 != ws, a2 != a, reflect.DeepEqual(again, first))
	}
	writeFile(t, root, "extra/extra.go", "package extra\n")
	rep, ws3, a3 := ask()
	if ws3 == ws || a3 == a || !slices.ContainsFunc(rep.Packages, func(p ScopePackage) bool { return p.Name == "example.com/goapp/extra" }) {
		t.Errorf("after extra/extra.go was added: discovered again %v, analysed again %v, packages %v", ws3 != ws, a3 != a, rep.Packages)
	}
}

// askScope asks s for the scope of path and returns the answer with the
// discovery by package and the analysis it kept.
func askScope(t *testing.T, s *Session, path string) (*ScopeReport, *scope.Workspace, *scope.Analysis) {
	t.Helper()
	arg, err := json.Marshal(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Command(context.Background(), CommandScope, Call{Args: []json.RawMessage{arg}})
	if err != nil {
		t.Fatal(err)
	}
	s.scopes.mu.Lock()
	defer s.scopes.mu.Unlock()
	return res.(*ScopeReport), s.scopes.pkgWS, s.scopes.pkgA
}

// TestScopeUpdatesAnalysisByPackage: lspgraph.scope through a session
// whose live layer changed (an editor's buffer of service/catalog.go now
// referencing memstore, which service does not import) brings the kept
// analysis by package up to date instead of analysing the store again,
// and answers as a new analysis answers: memstore in service's closure.
func TestScopeUpdatesAnalysisByPackage(t *testing.T) {
	ctx := context.Background()
	root, dir, _ := gitFixture(t)
	s := watchingSession(t, root, dir)
	ask := func() (*ScopeReport, *scope.Analysis) {
		rep, _, a := askScope(t, s, "service/catalog.go")
		return rep, a
	}
	has := func(rep *ScopeReport, pkg string) bool {
		return slices.ContainsFunc(rep.Closure, func(m scope.Member) bool { return m.Name == pkg })
	}
	const memstore = "example.com/goapp/store/memstore"
	first, a := ask()
	if has(first, memstore) {
		t.Fatalf("memstore in service's closure before the change: %+v", first.Closure)
	}

	r, err := s.store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	const path = "service/catalog.go"
	doc, _, err := r.Document(ctx, path)
	syms, err2 := r.DocumentSymbols(ctx, path)
	occs, err3 := r.Occurrences(ctx, path)
	mem, err4 := r.DocumentSymbols(ctx, "store/memstore/mem.go")
	r.Close()
	if err := errors.Join(err, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(mem, func(s graph.Symbol) bool { return !s.External && s.Kind == "function" })
	if i < 0 {
		t.Fatalf("no function defined in memstore: %+v", mem)
	}
	last := occs[len(occs)-1].Range
	use := textpos.Range{Start: textpos.Position{Line: last.End.Line + 1}, End: textpos.Position{Line: last.End.Line + 1, Col: 3}}
	occs = append(occs, graph.Occurrence{Path: path, Range: use, Symbol: mem[i].ID, Roles: graph.RoleReference | graph.RoleCall})
	doc.Source, doc.Digest = graph.SourceLSP, ""
	if err := s.store.PutDocument(ctx, graph.Live, graph.DocumentFacts{Document: doc, Symbols: syms, Occurrences: occs}); err != nil {
		t.Fatal(err)
	}

	updated, a2 := ask()
	if a2 != a {
		t.Errorf("analysed again after a write to the live layer")
	}
	if !has(updated, memstore) {
		t.Errorf("memstore not in service's closure after the change: %+v", updated.Closure)
	}
	fresh := func(rep *ScopeReport, what string) {
		t.Helper()
		s.scopes.mu.Lock()
		kept := s.scopes.pkgA
		s.scopes.pkgA = nil
		s.scopes.mu.Unlock()
		if again, _ := ask(); !reflect.DeepEqual(rep, again) {
			t.Errorf("%s, the kept analysis answers\n%+v\na new one\n%+v", what, rep, again)
		}
		s.scopes.mu.Lock()
		s.scopes.pkgA = kept
		s.scopes.mu.Unlock()
	}
	fresh(updated, "after the live write")

	// A file saved: a new look, the same packages. The analysis is kept
	// with the new discovery, and brought up to date.
	writeFile(t, root, "store/memstore/mem.go", readFile(t, root, "store/memstore/mem.go")+"\n// Saved again.\n")
	saved, a3 := ask()
	if a3 != a {
		t.Errorf("analysed again after a file of a known package was saved")
	}
	fresh(saved, "after the save")
}

// TestWarmScope: a long-lived session prepares the scope analysis a
// context answer starts from once it opens, so that its first context
// answer computes none.
func TestWarmScope(t *testing.T) {
	ctx := context.Background()
	root, dir, _ := gitFixture(t)
	s, err := Open(Options{Root: root, StoreDir: dir, Background: true, Watch: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	select {
	case <-s.warmDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the session did not warm within 30 s of its start")
	}
	misses := func() int {
		s.scopes.mu.Lock()
		defer s.scopes.mu.Unlock()
		return s.scopes.misses
	}
	if m := misses(); m != 1 {
		t.Fatalf("after warming: %d analyses computed, want 1", m)
	}
	if _, err := s.Command(ctx, CommandContext, Call{Args: []json.RawMessage{json.RawMessage(`{"symbol":"Catalog.Save","budget":2000}`)}}); err != nil {
		t.Fatal(err)
	}
	if m := misses(); m != 1 {
		t.Errorf("the first context answer computed an analysis again: %d computed, want 1", m)
	}
}
