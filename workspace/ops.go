package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/crawl"
	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/goconv"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/ingest"
	"github.com/lspgraph/lspgraph/scip"
	"github.com/lspgraph/lspgraph/scope"
	"github.com/lspgraph/lspgraph/syntax"
)

// StoreStatus is what a store holds: its layers, generations, commits and
// counts.
type StoreStatus struct {
	Store         string        `json:"store"`
	Schema        int           `json:"schema"`
	Empty         bool          `json:"empty"`
	DiskBytes     uint64        `json:"diskBytes,omitempty"`
	Layers        []LayerStatus `json:"layers"`
	LiveDocuments []string      `json:"liveDocuments,omitempty"`
}

// LayerStatus is one layer's manifest as status reports it.
type LayerStatus struct {
	Layer       string         `json:"layer"`
	Generation  uint64         `json:"generation,omitempty"`
	Commit      string         `json:"commit,omitempty"`
	Root        string         `json:"root,omitempty"`
	Tool        string         `json:"tool,omitempty"`
	ToolVersion string         `json:"toolVersion,omitempty"`
	State       string         `json:"state,omitempty"`
	Documents   int            `json:"documents"`
	Symbols     int            `json:"symbols"`
	Occurrences int            `json:"occurrences"`
	Edges       int            `json:"edges"`
	Extra       map[string]int `json:"extra,omitempty"`
	// Packages are the versions the layer's symbols name its own
	// packages at (see graph.Manifest.Packages).
	Packages map[string]string `json:"packages,omitempty"`
	Started  *time.Time        `json:"started,omitempty"`
	Finished *time.Time        `json:"finished,omitempty"`
}

// ReadStoreStatus collects the manifests of the store r reads.
func ReadStoreStatus(st *graph.Store, r *graph.Reader) (StoreStatus, error) {
	rep := StoreStatus{Store: st.Dir(), Schema: graph.SchemaVersion, DiskBytes: st.DiskUsage()}
	rep.LiveDocuments = r.LiveDocuments()
	for _, l := range []graph.Layer{graph.Base, graph.Live} {
		m, ok, err := r.Manifest(l)
		if err != nil {
			return rep, fmt.Errorf("reading the %s manifest: %w", l, err)
		}
		if ok {
			rep.Layers = append(rep.Layers, toLayerStatus(m))
		}
	}
	rep.Empty = r.BaseGeneration() == 0 && len(rep.LiveDocuments) == 0
	return rep, nil
}

func toLayerStatus(m graph.Manifest) LayerStatus {
	ls := LayerStatus{
		Layer: m.Layer.String(), Generation: m.Generation, Commit: m.Commit, Root: m.Root,
		Tool: m.Tool, ToolVersion: m.ToolVersion, State: string(m.State),
		Documents: m.Documents, Symbols: m.Symbols, Occurrences: m.Occurrences, Edges: m.Edges, Extra: m.Extra,
		Packages: m.Packages,
	}
	if !m.Started.IsZero() {
		ls.Started = &m.Started
	}
	if !m.Finished.IsZero() {
		ls.Finished = &m.Finished
	}
	return ls
}

// PackageVersions returns the layer's packages, each followed by its
// version, in order.
func (l LayerStatus) PackageVersions() []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(l.Packages)) {
		out = append(out, p+" "+l.Packages[p])
	}
	return out
}

// Status is lspgraph.status's answer from a session.
type Status struct {
	StoreStatus
	Root string `json:"root"`
	// Session describes the process that owns the store.
	Session      SessionInfo  `json:"session"`
	Observations ingest.Stats `json:"observations"`
	Overlay      *syncReport  `json:"overlay,omitempty"` // the last background sync
	// BlockCache is the last warm-up of the store's block cache (a
	// long-lived session's).
	BlockCache *WarmReport      `json:"blockCacheWarmUp,omitempty"`
	Freshness  *freshness.Block `json:"freshness,omitempty"`
}

// StatusOf returns the status of the store in dir (of the workspace at
// root): the session's, when one serves the store (served); else what the
// store holds, opened read-only, and its freshness (a store that does not
// exist yet is Empty). A store held by a session still starting is waited
// for (see whileHeld).
func StatusOf(ctx context.Context, dir, root string) (st Status, served bool, err error) {
	err = whileHeld(ctx, func() error {
		raw, _, err := Ask(ctx, dir, "cli", CommandStatus, nil, 0)
		if err == nil {
			served = true
			if err := json.Unmarshal(raw, &st); err != nil {
				return fmt.Errorf("decoding the session's status: %w", err)
			}
			return nil
		} else if !errors.Is(err, ErrNoSession) {
			return err
		}
		st = Status{StoreStatus: StoreStatus{Store: dir, Schema: graph.SchemaVersion, Empty: true}, Root: root}
		s, err := graph.Open(dir, graph.Options{ReadOnly: true})
		if errors.Is(err, graph.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		defer s.Close()
		r, err := s.Reader()
		if err != nil {
			return err
		}
		defer r.Close()
		if st.StoreStatus, err = ReadStoreStatus(s, r); err != nil {
			return err
		}
		if b, err := freshness.Compute(ctx, r, root); err == nil {
			st.Freshness = &b
		}
		return nil
	})
	return st, served, err
}

// SessionInfo describes a session's process and who is attached to it.
type SessionInfo struct {
	PID           int     `json:"pid"`
	UptimeSeconds float64 `json:"uptimeSeconds"`
	Server        bool    `json:"liveServer"` // a live server verifies answers
	// Headless: served with no language server (`lspgraph serve`,
	// `lspgraph mcp`), giving way to an editor's proxy.
	Headless bool `json:"headless,omitempty"`
	// ResidentMB is the session process's resident memory (Linux; 0
	// where unknown): a session kept warm for a large repository holds
	// its search cache, scope analysis and block cache.
	ResidentMB float64      `json:"residentMB,omitempty"`
	Clients    []ClientInfo `json:"clients,omitempty"`
	// CachedAnswers and ComputedAnswers count the impact answers reused
	// from the same state and those computed afresh.
	CachedAnswers   int `json:"cachedAnswers"`
	ComputedAnswers int `json:"computedAnswers"`
	// WorkTree says whether a watcher follows the work tree ("watched",
	// "starting", "not watched", or why it cannot be); GitLooks and
	// ReusedLooks count the looks at it that ran git and those reused
	// because the watcher saw no change.
	WorkTree    string `json:"workTree"`
	GitLooks    int    `json:"gitLooks"`
	ReusedLooks int    `json:"reusedLooks"`
}

// statusCommand answers lspgraph.status: the store, the session and the
// freshness of what the next answer would be given from (no sync first).
func (s *Session) statusCommand(ctx context.Context, _ Call) (any, error) {
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ss, err := ReadStoreStatus(s.store, r)
	if err != nil {
		return nil, err
	}
	out := Status{StoreStatus: ss, Root: s.root, Observations: s.live.Stats()}
	s.mu.Lock()
	out.Session = SessionInfo{PID: os.Getpid(), UptimeSeconds: time.Since(s.started).Seconds(), Server: s.server != nil, Headless: s.yield != nil, ResidentMB: residentMB()}
	for _, c := range s.clients {
		out.Session.Clients = append(out.Session.Clients, c)
	}
	if !s.lastSync.At.IsZero() {
		rep := s.lastSync
		out.Overlay = &rep
	}
	s.mu.Unlock()
	sortClients(out.Session.Clients)
	out.Session.CachedAnswers, out.Session.ComputedAnswers = s.cache.stats()
	out.Session.WorkTree = s.looks.state()
	out.Session.GitLooks, out.Session.ReusedLooks = s.looks.counts()
	if s.blocks != nil {
		out.BlockCache = s.blocks.report()
	}
	// The session's look: reused while the watcher saw nothing change
	// (a look of its own ran git on every status: 140-164 ms through
	// serve on four GOROOT copies in git, against 10-13 ms).
	fb, err := s.freshness(ctx, r, s.look(ctx))
	if err != nil {
		return nil, err
	}
	out.Freshness = &fb
	return out, nil
}

// ScopeRequest is lspgraph.scope's argument.
type ScopeRequest struct {
	// Target is a package name, or a file (absolute or root-relative).
	Target string `json:"target"`
	// With adds packages to the closure.
	With []string `json:"with,omitempty"`
}

// ScopeReport is a package's dependency closure and why each package is
// in it.
type ScopeReport struct {
	Root     string         `json:"root"`
	Start    string         `json:"start"`
	Packages []ScopePackage `json:"packages"`
	Closure  []scope.Member `json:"closure"`
	Outside  []string       `json:"outside"`
	Observed bool           `json:"observed"` // false: the graph was unavailable, only declared dependencies count
	Note     string         `json:"note,omitempty"`
	Skipped  []string       `json:"skipped,omitempty"`
}

// ScopePackage is a package of the workspace and its document count.
type ScopePackage struct {
	scope.Package
	Documents int `json:"documents"`
}

// ErrBadTarget marks a scope target that names no package or file.
var ErrBadTarget = errors.New("no such package or file")

// Scope computes the closure of a target's package from the declared
// dependencies of the workspace at root and, when r is not nil, the
// dependencies observed in the graph.
func Scope(ctx context.Context, root string, r *graph.Reader, q ScopeRequest) (*ScopeReport, error) {
	ws, err := scope.DiscoverPackages(root)
	if err != nil {
		return nil, err
	}
	return scopeIn(ctx, root, ws, r, q)
}

// scopeIn is Scope in the packages ws discovered at root.
func scopeIn(ctx context.Context, root string, ws *scope.Workspace, r *graph.Reader, q ScopeRequest) (*ScopeReport, error) {
	a, err := scope.Analyze(ctx, ws, r)
	if err != nil {
		return nil, err
	}
	return scopeReport(ctx, root, a, r != nil, q)
}

// scopeReport is Scope with the analysis a of the packages discovered at
// root (observed: of a graph).
func scopeReport(ctx context.Context, root string, a *scope.Analysis, observed bool, q ScopeRequest) (*ScopeReport, error) {
	ws := a.Workspace()
	rep := &ScopeReport{Root: root, Skipped: ws.Skipped, Observed: observed}
	start, ok := a.Resolve(q.Target)
	if !ok {
		rel := q.Target
		if filepath.IsAbs(rel) {
			if rr, err := filepath.Rel(root, rel); err == nil && !strings.HasPrefix(rr, "..") {
				rel = rr
			}
		}
		rel = filepath.ToSlash(filepath.Clean(rel))
		if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("%w: %q is outside the workspace root %s", ErrBadTarget, q.Target, root)
		}
		if _, err := statInRoot(root, rel); err != nil && !a.HasDocument(rel) {
			return nil, fmt.Errorf("%w: %q is neither a package (%s) nor a file under %s", ErrBadTarget, q.Target, knownPackages(a), root)
		}
		start = a.PackageOfDocument(rel)
	}
	cl, err := a.Closure(ctx, start, q.With)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadTarget, err)
	}
	rep.Start = start
	rep.Closure = cl.Members
	rep.Outside = []string{}
	for _, name := range a.Packages() {
		if !cl.Contains(name) {
			rep.Outside = append(rep.Outside, name)
		}
		p, found := ws.Package(name)
		if !found {
			p = scope.Package{Name: name, Kind: a.Kind(name)}
		}
		rep.Packages = append(rep.Packages, ScopePackage{Package: p, Documents: a.Documents(name)})
	}
	return rep, nil
}

// knownPackages names a few packages for messages.
func knownPackages(a *scope.Analysis) string {
	names := a.Packages()
	if len(names) > 8 {
		return strings.Join(names[:8], ", ") + fmt.Sprintf(", … %d in all", len(names))
	}
	return strings.Join(names, ", ")
}

func (s *Session) scopeCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, `{"target": FILE|PACKAGE}`)
	if err != nil {
		return nil, err
	}
	var q ScopeRequest
	if json.Unmarshal(arg, &q.Target) != nil {
		if err := json.Unmarshal(arg, &q); err != nil || q.Target == "" {
			return nil, fmt.Errorf("argument %.200s is not a target string or {\"target\": FILE|PACKAGE, \"with\": [...]}", arg)
		}
	}
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var rep *ScopeReport
	err = s.scopes.withPackages(ctx, s.root, r, s.look(ctx), func(a *scope.Analysis) error {
		var err error
		rep, err = scopeReport(ctx, s.root, a, true, q)
		return err
	})
	return rep, err
}

// IndexRequest is lspgraph.index's argument.
type IndexRequest struct {
	Workers      int           `json:"workers,omitempty"`
	ParseTimeout time.Duration `json:"parseTimeoutNs,omitempty"`
	AllowShrink  bool          `json:"allowShrink,omitempty"`
	// Full writes a whole new generation even when the current one can
	// be brought up to date incrementally.
	Full bool `json:"full,omitempty"`
	// FactCache is the directory of the cache of extracted facts (default:
	// the user cache directory's, as the command line's); NoFactCache
	// parses every file, reading and writing none.
	FactCache   string `json:"factCache,omitempty"`
	NoFactCache bool   `json:"noFactCache,omitempty"`
}

// IndexResult is lspgraph.index's answer.
type IndexResult struct {
	Root    string              `json:"root"`
	Store   string              `json:"store"`
	Commit  string              `json:"commit"`
	Summary syntax.IndexSummary `json:"summary"`
}

// indexCommand builds a syntax-only base generation of the workspace in
// the session's store; readers switch to it atomically when it commits,
// and the overlay then re-syncs against it.
func (s *Session) indexCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, "{workers, parseTimeoutNs, full, factCache, noFactCache}")
	if err != nil {
		return nil, err
	}
	var q IndexRequest
	if string(arg) != "null" {
		if err := json.Unmarshal(arg, &q); err != nil {
			return nil, fmt.Errorf("argument %.200s is not {workers, parseTimeoutNs, full, factCache, noFactCache}: %w", arg, err)
		}
	}
	commit, _ := freshness.Head(ctx, s.root)
	opts := syntax.IndexOptions{Root: s.root, Workers: q.Workers, ParseTimeout: q.ParseTimeout, Commit: commit, AllowShrink: q.AllowShrink, Full: q.Full}
	if opts.ParseTimeout == 0 {
		opts.ParseTimeout = syntax.DefaultParseTimeout
	}
	if !q.NoFactCache {
		if opts.Cache, err = syntax.OpenFactCache(q.FactCache, 0); err != nil {
			return nil, err
		}
		defer opts.Cache.Close()
	}
	sum, err := writingBase(ctx, s, func() (syntax.IndexSummary, error) {
		// The heap held under the bound the command line's index runs
		// under, above what the session holds, and what the index freed
		// handed back after it: the session lives on. Unbounded, a
		// session of four GOROOT copies went from 395 to 807-824 MB resident.
		defer syntax.BoundHeap()()
		defer debug.FreeOSMemory()
		return syntax.Index(ctx, s.store, opts)
	})
	if err != nil {
		return nil, fmt.Errorf("indexing %s: %w", s.root, err)
	}
	s.afterNewBase(ctx)
	return IndexResult{Root: s.root, Store: s.store.Dir(), Commit: commit, Summary: sum}, nil
}

// IndexLSPRequest is lspgraph.indexLSP's argument.
type IndexLSPRequest struct {
	// Server is the language server's command line, started in the
	// session's root for the crawl and shut down after it.
	Server []string `json:"server"`
}

// indexLSPCommand crawls a language server into a new base generation of
// the session's store (see crawl.Index); it answers a crawl.Report.
func (s *Session) indexLSPCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, "{server}")
	if err != nil {
		return nil, err
	}
	var q IndexLSPRequest
	if err := json.Unmarshal(arg, &q); err != nil || len(q.Server) == 0 {
		return nil, fmt.Errorf("argument %.200s is not {server: [COMMAND, ARGS...]}", arg)
	}
	commit, _ := freshness.Head(ctx, s.root)
	rep, err := writingBase(ctx, s, func() (crawl.Report, error) {
		return crawl.Index(ctx, s.store, crawl.Options{Root: s.root, Server: q.Server}, commit)
	})
	if err != nil {
		return nil, err
	}
	s.afterNewBase(ctx)
	return rep, nil
}

// ImportRequest is lspgraph.scipImport's argument.
type ImportRequest struct {
	// File is the dump's absolute path.
	File string `json:"file"`
	// Commit is the commit the dump was built from (default: HEAD).
	Commit      string `json:"commit,omitempty"`
	AllowShrink bool   `json:"allowShrink,omitempty"`
	// GoTypes type-checks the Go module at the root and records its
	// conversion sites with the import (package goconv).
	GoTypes bool `json:"goTypes,omitempty"`
}

// ImportResult is lspgraph.scipImport's answer.
type ImportResult struct {
	File    string       `json:"file"`
	Store   string       `json:"store"`
	Summary scip.Summary `json:"summary"`
}

// importCommand imports a SCIP dump as the new base generation of the
// session's store.
func (s *Session) importCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, `{"file": PATH}`)
	if err != nil {
		return nil, err
	}
	var q ImportRequest
	if err := json.Unmarshal(arg, &q); err != nil || q.File == "" || !filepath.IsAbs(q.File) {
		return nil, fmt.Errorf("argument %.200s is not {\"file\": ABSOLUTE PATH, \"commit\": SHA}", arg)
	}
	if q.Commit == "" {
		q.Commit, _ = freshness.Head(ctx, s.root)
	}
	f, err := os.Open(q.File)
	if err != nil {
		return nil, fmt.Errorf("opening the dump: %w", err)
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	opts := scip.Options{Root: s.root, Commit: q.Commit, Size: size, AllowShrink: q.AllowShrink}
	if q.GoTypes {
		conv, err := goconv.Collect(ctx, s.root)
		if err != nil {
			return nil, err
		}
		conv.ImportOptions(&opts)
	}
	sum, err := writingBase(ctx, s, func() (scip.Summary, error) { return scip.Import(ctx, s.store, f, opts) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q.File, err)
	}
	s.afterNewBase(ctx)
	return ImportResult{File: q.File, Store: s.store.Dir(), Summary: sum}, nil
}

// writingBase runs fn as the session's only writer of the base layer: an
// index or import asked while another runs (an agent's and a terminal's
// at once) waits for it, until ctx ends, instead of failing on the
// generation being written.
func writingBase[T any](ctx context.Context, s *Session, fn func() (T, error)) (T, error) {
	select {
	case s.baseWrite <- struct{}{}:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	defer func() { <-s.baseWrite }()
	return fn()
}

// afterNewBase brings the live layer in step with a base generation that
// just replaced the previous one.
func (s *Session) afterNewBase(ctx context.Context) {
	if s.blocks != nil {
		s.blocks.request()
	}
	if s.syncReq != nil {
		s.requestSync()
		return
	}
	s.sync(ctx)
}

// residentMB returns this process's resident memory in MB from
// /proc/self/statm (0 where there is none).
func residentMB() float64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return float64(pages*int64(os.Getpagesize())) / 1e6
}
