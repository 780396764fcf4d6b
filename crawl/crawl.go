package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/rootfs"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Options configure a crawl.
type Options struct {
	// Root is the workspace root (made absolute).
	Root string
	// Server is the language server's command line; it talks LSP on stdio.
	Server []string
	// Files are the documents to crawl, relative to Root. Empty: every file
	// with one of Extensions ([ListFiles]).
	Files []string
	// Extensions select the files when Files is empty. Empty: guessed from
	// the server's name ([Extensions]).
	Extensions []string
	// Concurrency bounds the requests in flight (default 4).
	Concurrency int
	// NoCalls skips callHierarchy/incomingCalls even when the server
	// supports it.
	NoCalls bool
	// PositionEncodings are offered to the server, in order of preference
	// (default "utf-8", "utf-16"). The server may still answer in UTF-16.
	PositionEncodings []string
	// ReadyQuiet is how long the server must report no work in progress to
	// count as ready (default 500ms); ReadyTimeout bounds the wait (default
	// 5 minutes), after which the crawl starts anyway.
	ReadyQuiet, ReadyTimeout time.Duration
	// RequestTimeout bounds one request (default 2 minutes).
	RequestTimeout time.Duration
	// Progress, when set, is called (never concurrently) as work advances.
	Progress func(Progress)
	// Stderr receives the server's standard error (nil: discarded).
	Stderr io.Writer
}

// Progress reports a crawl's advance in one phase.
type Progress struct {
	Phase       string // "symbols", "references", "calls"
	Done, Total int
}

// Stats count what a crawl did.
type Stats struct {
	Documents         int `json:"documents"`
	Symbols           int `json:"symbols"`
	Occurrences       int `json:"occurrences"`
	Edges             int `json:"edges"`
	SymbolRequests    int `json:"symbolRequests"`
	ReferenceRequests int `json:"referenceRequests"`
	CallRequests      int `json:"callRequests"`
	// DefinitionRequests settle locations that several symbols' references
	// claim (a call through an interface, which servers list among the
	// concrete methods' references too).
	DefinitionRequests int `json:"definitionRequests"`
	// Disambiguated counts the references dropped from symbols the
	// location's definition did not name.
	Disambiguated     int `json:"disambiguated"`
	FailedRequests    int `json:"failedRequests"`
	SkippedDocuments  int `json:"skippedDocuments"`  // unreadable
	ExternalLocations int `json:"externalLocations"` // outside the workspace, dropped
	BadPositions      int `json:"badPositions"`      // not convertible against the text on disk
	// NotInBuild counts requests about documents the server leaves out of
	// every package (a Go file excluded by build constraints): they have
	// symbols but no references, and do not make the layer partial.
	NotInBuild int `json:"notInBuild"`
	// NotCallable counts functions the server would not prepare a call
	// hierarchy for (gopls: a named func type); they have no calls.
	NotCallable int `json:"notCallable"`
	// Ready reports whether the server reported the end of its loading
	// before ReadyTimeout.
	Ready bool `json:"ready"`
	// Load is the time from start to ready; Crawl the time of the requests.
	Load, Crawl time.Duration `json:"-"`
}

// Result is what a crawl learned, per document.
type Result struct {
	Documents     []graph.DocumentFacts // sorted by path
	ServerName    string
	ServerVersion string
	Encoding      textpos.Encoding // the position encoding the server used
	// Errors lists failed requests (at most 20), for the user.
	Errors []string
	Stats  Stats
}

// serverVersion shortens a version string that is a JSON build description
// (gopls's) to its "Version".
func serverVersion(v string) string {
	var info struct{ Version string }
	if json.Unmarshal([]byte(v), &info) == nil && info.Version != "" {
		return info.Version
	}
	return v
}

// document is one crawled file.
type document struct {
	path, uri, languageID string
	text                  []byte
	mapper                *textpos.Mapper
	symbols               []*symbol // crawled symbols of this document, in documentSymbol order
}

// symbol is one documentSymbol worth crawling.
type symbol struct {
	doc      *document
	facts    graph.Symbol
	kind     int
	selStart lspwire.Position // the server's position of the name, for requests
	refs     []lspwire.Location
	calls    []lspwire.CallHierarchyCall
}

// crawler holds one crawl's state.
type crawler struct {
	opts   Options
	root   string       // absolute root
	fs     *rootfs.Root // every file is read through it
	roots  []string     // root and its symlink-resolved form, for URIs
	c      *client
	enc    textpos.Encoding
	calls  bool
	docs   map[string]*document // by path
	order  []*document
	mu     sync.Mutex // guards stats, errors, progress
	res    Result
	extern map[string]*document // documents read on demand (referenced, not crawled)
}

// defaults fills in the options left zero.
func (opts *Options) defaults() {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if len(opts.PositionEncodings) == 0 {
		opts.PositionEncodings = []string{"utf-8", "utf-16"}
	}
	if opts.ReadyQuiet <= 0 {
		opts.ReadyQuiet = 500 * time.Millisecond
	}
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = 5 * time.Minute
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 2 * time.Minute
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
}

// Crawl runs the language server over the workspace and collects its
// answers. The server is shut down before Crawl returns.
func Crawl(ctx context.Context, opts Options) (*Result, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("crawl: root %s: %w", opts.Root, err)
	}
	opts.Root = root
	opts.defaults()
	if len(opts.Server) == 0 {
		return nil, errors.New("crawl: no language server command (lspgraph index --lsp -- SERVER ARGS...)")
	}
	files := opts.Files
	if len(files) == 0 {
		exts := opts.Extensions
		if len(exts) == 0 {
			exts = Extensions(opts.Server[0])
		}
		if len(exts) == 0 {
			return nil, fmt.Errorf("crawl: which files does %s handle? pass the extensions (--ext .go,.mod)", opts.Server[0])
		}
		if files, err = ListFiles(ctx, root, exts); err != nil {
			return nil, err
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("crawl: no documents to crawl under %s", root)
	}
	fsys, err := rootfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	defer fsys.Close()
	cr := &crawler{opts: opts, root: root, fs: fsys, roots: []string{root}, docs: map[string]*document{}, extern: map[string]*document{}}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		cr.roots = append(cr.roots, real)
	}
	start := time.Now()
	cr.c, err = startClient(ctx, opts.Server, root, opts.Stderr)
	if err != nil {
		return nil, err
	}
	if err := cr.initialize(ctx); err != nil {
		cr.c.kill()
		return nil, err
	}
	ready, err := cr.c.waitReady(ctx, opts.ReadyQuiet, opts.ReadyTimeout)
	if err != nil {
		cr.c.kill()
		return nil, err
	}
	cr.res.Stats.Ready = ready
	cr.res.Stats.Load = time.Since(start)
	start = time.Now()
	if err := cr.run(ctx, files); err != nil {
		cr.c.kill()
		return nil, err
	}
	cr.res.Stats.Crawl = time.Since(start)
	if err := cr.c.shutdown(ctx, 30*time.Second); err != nil {
		// The answers are in; a server that exits untidily does not spoil them.
		cr.noteError(err)
	}
	cr.assemble()
	return &cr.res, nil
}

// initialize performs the LSP handshake.
func (cr *crawler) initialize(ctx context.Context) error {
	folders := []map[string]string{{"uri": lspwire.FileURI(cr.root), "name": filepath.Base(cr.root)}}
	cr.c.folders, _ = json.Marshal(folders)
	kinds := make([]int, 26)
	for i := range kinds {
		kinds[i] = i + 1
	}
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]string{"name": "lspgraph-crawl"},
		"rootUri":          lspwire.FileURI(cr.root),
		"rootPath":         cr.root,
		"workspaceFolders": folders,
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": cr.opts.PositionEncodings},
			"window":  map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{
				"workspaceFolders": true,
				"configuration":    true,
			},
			"textDocument": map[string]any{
				"synchronization": map[string]any{"didSave": false},
				"documentSymbol": map[string]any{
					"hierarchicalDocumentSymbolSupport": true,
					"symbolKind":                        map[string]any{"valueSet": kinds},
				},
				"references":    map[string]any{},
				"callHierarchy": map[string]any{},
			},
		},
	}
	var result struct {
		Capabilities struct {
			PositionEncoding      string          `json:"positionEncoding"`
			CallHierarchyProvider json.RawMessage `json:"callHierarchyProvider"`
			ReferencesProvider    json.RawMessage `json:"referencesProvider"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	ictx, cancel := context.WithTimeout(ctx, cr.opts.RequestTimeout)
	defer cancel()
	if err := cr.c.call(ictx, "initialize", params, &result); err != nil {
		return fmt.Errorf("crawl: initializing %s: %w", cr.opts.Server[0], err)
	}
	enc, err := textpos.ParseEncoding(result.Capabilities.PositionEncoding)
	if err != nil {
		return fmt.Errorf("crawl: %s negotiated an unknown position encoding: %w", cr.opts.Server[0], err)
	}
	cr.enc = enc
	cr.res.Encoding = enc
	cr.res.ServerName = result.ServerInfo.Name
	if cr.res.ServerName == "" {
		cr.res.ServerName = filepath.Base(cr.opts.Server[0])
	}
	cr.res.ServerVersion = serverVersion(result.ServerInfo.Version)
	if !provided(result.Capabilities.ReferencesProvider) {
		return fmt.Errorf("crawl: %s does not answer references", cr.res.ServerName)
	}
	cr.calls = !cr.opts.NoCalls && provided(result.Capabilities.CallHierarchyProvider)
	if err := cr.c.notify(ctx, "initialized", map[string]any{}); err != nil {
		return fmt.Errorf("crawl: initializing %s: %w", cr.opts.Server[0], err)
	}
	return nil
}

// provided reports whether a capability is true or an options object.
func provided(raw json.RawMessage) bool {
	s := string(raw)
	return s != "" && s != "false" && s != "null"
}

// run opens every document and asks its questions.
func (cr *crawler) run(ctx context.Context, files []string) error {
	// Phase 1: open every document and list its symbols.
	for _, p := range files {
		text, err := cr.fs.ReadFile(p)
		if err != nil {
			cr.res.Stats.SkippedDocuments++
			cr.noteError(fmt.Errorf("reading %s: %w", p, err))
			continue
		}
		d := &document{path: p, uri: lspwire.FileURI(filepath.Join(cr.root, filepath.FromSlash(p))), languageID: lang.LanguageID(p), text: text, mapper: textpos.NewMapper(text)}
		cr.docs[p] = d
		cr.order = append(cr.order, d)
	}
	err := cr.parallel(ctx, "symbols", len(cr.order), func(ctx context.Context, i int) error {
		return cr.documentSymbols(ctx, cr.order[i])
	})
	if err != nil {
		return err
	}
	var syms []*symbol
	for _, d := range cr.order {
		syms = append(syms, d.symbols...)
	}
	// Opening documents makes some servers load more projects
	// (typescript-language-server loads a package's tsconfig project when its
	// first file opens); references asked before that work ends miss the
	// uses in those projects.
	if _, err := cr.c.waitReady(ctx, cr.opts.ReadyQuiet, cr.opts.ReadyTimeout); err != nil {
		return err
	}
	// Phase 2: references of every symbol.
	err = cr.parallel(ctx, "references", len(syms), func(ctx context.Context, i int) error {
		return cr.references(ctx, syms[i])
	})
	if err != nil {
		return err
	}
	if err := cr.askLonelyAgain(ctx, syms); err != nil {
		return err
	}
	if err := cr.disambiguate(ctx, syms); err != nil {
		return err
	}
	// Phase 3: incoming calls of functions and methods.
	if cr.calls {
		var callables []*symbol
		for _, s := range syms {
			if functionKind(s.kind) {
				callables = append(callables, s)
			}
		}
		err = cr.parallel(ctx, "calls", len(callables), func(ctx context.Context, i int) error {
			return cr.incomingCalls(ctx, callables[i])
		})
		if err != nil {
			return err
		}
	}
	for _, d := range cr.order {
		p := map[string]any{"textDocument": map[string]string{"uri": d.uri}}
		if err := cr.c.notify(ctx, "textDocument/didClose", p); err != nil {
			return fmt.Errorf("crawl: closing %s: %w", d.path, err)
		}
	}
	return nil
}

// parallel runs fn for 0..n-1 with at most Concurrency in flight, reporting
// progress. A request that fails is counted by fn; an error from fn (the
// connection is gone, ctx is done) stops the phase.
func (cr *crawler) parallel(ctx context.Context, phase string, n int, fn func(context.Context, int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		wg       sync.WaitGroup
		firstErr error
		done     int
	)
	cr.progress(Progress{Phase: phase, Total: n})
	for range min(cr.opts.Concurrency, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				err := fn(ctx, i)
				cr.mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				done++
				p := Progress{Phase: phase, Done: done, Total: n}
				cr.mu.Unlock()
				cr.progress(p)
			}
		}()
	}
feed:
	for i := range n {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func (cr *crawler) progress(p Progress) {
	if cr.opts.Progress == nil {
		return
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.opts.Progress(p)
}

// request sends one request with the request timeout. A failure that is not
// the connection's (or ctx's) is counted and returns ok=false, nil.
func (cr *crawler) request(ctx context.Context, method string, params, result any) (bool, error) {
	rctx, cancel := context.WithTimeout(ctx, cr.opts.RequestTimeout)
	defer cancel()
	err := cr.c.call(rctx, method, params, result)
	if err == nil {
		return true, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	select {
	case <-cr.c.conn.Done():
		return false, fmt.Errorf("crawl: language server stopped: %w", err)
	default:
	}
	cr.mu.Lock()
	if notInBuild(err) {
		cr.res.Stats.NotInBuild++
		cr.mu.Unlock()
		return false, nil
	}
	if method == "textDocument/prepareCallHierarchy" && strings.Contains(err.Error(), "is not a function") {
		// gopls lists a named func type (type F func()) as a function.
		cr.res.Stats.NotCallable++
		cr.mu.Unlock()
		return false, nil
	}
	cr.res.Stats.FailedRequests++
	cr.mu.Unlock()
	cr.noteError(err)
	return false, nil
}

func (cr *crawler) noteError(err error) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if len(cr.res.Errors) < 20 {
		cr.res.Errors = append(cr.res.Errors, err.Error())
	}
}

// documentSymbols opens d and lists its symbols.
func (cr *crawler) documentSymbols(ctx context.Context, d *document) error {
	open := map[string]any{"textDocument": map[string]any{
		"uri": d.uri, "languageId": d.languageID, "version": 1, "text": string(d.text),
	}}
	if err := cr.c.notify(ctx, "textDocument/didOpen", open); err != nil {
		return fmt.Errorf("crawl: opening %s: %w", d.path, err)
	}
	var raw []lspwire.DocumentSymbol
	params := map[string]any{"textDocument": map[string]string{"uri": d.uri}}
	ok, err := cr.request(ctx, "textDocument/documentSymbol", params, &raw)
	cr.mu.Lock()
	cr.res.Stats.SymbolRequests++
	cr.mu.Unlock()
	if err != nil || !ok {
		return err
	}
	cr.addSymbols(d, raw, false)
	return nil
}

// addSymbols flattens a documentSymbol tree into d's crawled symbols,
// leaving out what is nested in a function or method body.
func (cr *crawler) addSymbols(d *document, raw []lspwire.DocumentSymbol, inBody bool) {
	if inBody {
		return
	}
	for _, ds := range raw {
		var rng, sel lspwire.Range
		switch {
		case ds.SelectionRange != nil && ds.Range != nil:
			rng, sel = *ds.Range, *ds.SelectionRange
		case ds.Location != nil && ds.Location.Range != nil:
			rng, sel = *ds.Location.Range, *ds.Location.Range
		default:
			continue
		}
		selR, err1 := cr.convert(d, sel)
		extR, err2 := cr.convert(d, rng)
		if err1 != nil || err2 != nil {
			cr.mu.Lock()
			cr.res.Stats.BadPositions++
			cr.mu.Unlock()
			continue
		}
		s := &symbol{
			doc:      d,
			kind:     ds.Kind,
			selStart: sel.Start,
			facts: graph.Symbol{
				ID:          lang.LSPSymbolID(d.path, selR.Start),
				DisplayName: ds.Name,
				Kind:        kindName(ds.Kind),
				Language:    lang.Of(d.path),
				Signature:   ds.Detail,
				Def:         graph.Location{Path: d.path, Range: selR},
				DefExtent:   extR,
			},
		}
		d.symbols = append(d.symbols, s)
		cr.addSymbols(d, ds.Children, functionKind(ds.Kind))
	}
}

// notInBuild reports whether a request failed because the document is in
// no package of the build (gopls: "no package metadata for file").
func notInBuild(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "no package metadata") || strings.Contains(msg, "no package for file")
}

// convert turns a server range into a graph range against d's text.
func (cr *crawler) convert(d *document, r lspwire.Range) (textpos.Range, error) {
	return r.TextRange(d.mapper, cr.enc)
}

// references asks for every reference of s, its declaration included.
func (cr *crawler) references(ctx context.Context, s *symbol) error {
	var params struct {
		lspwire.TextDocumentPosition
		Context struct {
			IncludeDeclaration bool `json:"includeDeclaration"`
		} `json:"context"`
	}
	params.TextDocument.URI = s.doc.uri
	params.Position = s.selStart
	params.Context.IncludeDeclaration = true
	var locs []lspwire.Location
	ok, err := cr.request(ctx, "textDocument/references", params, &locs)
	cr.mu.Lock()
	cr.res.Stats.ReferenceRequests++
	cr.mu.Unlock()
	if err != nil || !ok {
		return err
	}
	if len(locs) >= len(s.refs) {
		s.refs = locs
	}
	return nil
}

// askLonelyAgain asks once more, after the server has gone quiet, for the
// references of every symbol whose answer held at most its declaration. A
// server still loading a project answers with what it has loaded
// (typescript-language-server then returns the declaration alone); an
// unused symbol costs one more request. The larger answer is kept.
func (cr *crawler) askLonelyAgain(ctx context.Context, syms []*symbol) error {
	var lonely []*symbol
	for _, s := range syms {
		if len(s.refs) <= 1 {
			lonely = append(lonely, s)
		}
	}
	if len(lonely) == 0 {
		return nil
	}
	if _, err := cr.c.waitReady(ctx, cr.opts.ReadyQuiet, cr.opts.ReadyTimeout); err != nil {
		return err
	}
	return cr.parallel(ctx, "references", len(lonely), func(ctx context.Context, i int) error {
		return cr.references(ctx, lonely[i])
	})
}

// incomingCalls asks who calls s.
func (cr *crawler) incomingCalls(ctx context.Context, s *symbol) error {
	var params lspwire.TextDocumentPosition
	params.TextDocument.URI = s.doc.uri
	params.Position = s.selStart
	var items []lspwire.CallHierarchyItem
	ok, err := cr.request(ctx, "textDocument/prepareCallHierarchy", params, &items)
	cr.mu.Lock()
	cr.res.Stats.CallRequests++
	cr.mu.Unlock()
	if err != nil || !ok || len(items) == 0 {
		return err
	}
	var calls []lspwire.CallHierarchyCall
	ok, err = cr.request(ctx, "callHierarchy/incomingCalls", map[string]any{"item": items[0]}, &calls)
	cr.mu.Lock()
	cr.res.Stats.CallRequests++
	cr.mu.Unlock()
	if err != nil || !ok {
		return err
	}
	s.calls = calls
	return nil
}

// relPath maps a URI to a workspace-relative path, or false when it lies
// outside the workspace.
func (cr *crawler) relPath(uri string) (string, bool) {
	return lspwire.WorkspacePath(uri, cr.roots...)
}

// docFor returns the crawled document at path, or reads one that was only
// referenced (a file of the workspace the crawl did not list).
func (cr *crawler) docFor(path string) *document {
	if d, ok := cr.docs[path]; ok {
		return d
	}
	if d, ok := cr.extern[path]; ok {
		return d
	}
	var d *document
	if text, err := cr.fs.ReadFile(path); err == nil {
		d = &document{path: path, languageID: lang.LanguageID(path), text: text, mapper: textpos.NewMapper(text)}
	}
	cr.extern[path] = d
	return d
}

// enclosing returns the innermost crawled symbol of d whose extent contains
// r, other than self.
func enclosing(d *document, r textpos.Range, self string) string {
	var best *symbol
	for _, s := range d.symbols {
		if s.facts.ID == self || !s.facts.DefExtent.ContainsRange(r) {
			continue
		}
		if best == nil || best.facts.DefExtent.ContainsRange(s.facts.DefExtent) {
			best = s
		}
	}
	if best == nil {
		return ""
	}
	return best.facts.ID
}

// assemble turns the answers into facts per document.
func (cr *crawler) assemble() {
	type occKey struct {
		path   string
		r      textpos.Range
		symbol string
	}
	type edgeKey struct {
		path     string
		from, to string
		kind     graph.EdgeKind
	}
	occs := map[occKey]*graph.Occurrence{}
	edges := map[edgeKey]int{}
	var occOrder []occKey
	for _, d := range cr.order {
		for _, s := range d.symbols {
			id := s.facts.ID
			for _, loc := range s.refs {
				path, ok := cr.relPath(loc.URI)
				if !ok {
					cr.res.Stats.ExternalLocations++
					continue
				}
				rd := cr.docFor(path)
				if rd == nil {
					cr.res.Stats.ExternalLocations++
					continue
				}
				r, err := cr.convert(rd, loc.Range)
				if err != nil {
					cr.res.Stats.BadPositions++
					continue
				}
				k := occKey{path, r, id}
				role := graph.RoleReference
				if path == s.facts.Def.Path && r == s.facts.Def.Range {
					role = graph.RoleDefinition
				}
				if o, ok := occs[k]; ok {
					o.Roles |= role
					continue
				}
				o := &graph.Occurrence{Path: path, Range: r, Symbol: id, Roles: role}
				if cr.docs[path] != nil {
					o.Enclosing = enclosing(rd, r, id)
				}
				occs[k] = o
				occOrder = append(occOrder, k)
				if role == graph.RoleReference && o.Enclosing != "" {
					edges[edgeKey{path, o.Enclosing, id, graph.EdgeReferences}]++
				}
			}
			for _, call := range s.calls {
				path, ok := cr.relPath(call.From.URI)
				if !ok {
					cr.res.Stats.ExternalLocations++
					continue
				}
				cd := cr.docs[path]
				if cd == nil {
					continue
				}
				for _, fr := range call.FromRanges {
					r, err := cr.convert(cd, fr)
					if err != nil {
						cr.res.Stats.BadPositions++
						continue
					}
					// The call site must be one of the symbol's references
					// (after disambiguation): a call through an interface is
					// the interface method's, not every implementation's.
					o := occs[occKey{path, r, id}]
					if o == nil {
						for _, k := range occOrder {
							if k.path == path && k.symbol == id && r.ContainsRange(k.r) {
								o = occs[k]
								break
							}
						}
					}
					if o == nil {
						continue
					}
					o.Roles |= graph.RoleCall
					if from := enclosing(cd, r, ""); from != "" {
						edges[edgeKey{path, from, id, graph.EdgeCalls}]++
					}
				}
			}
		}
	}
	byPath := map[string]*graph.DocumentFacts{}
	pkgs := &goPackages{fs: cr.fs, modules: map[string]goModule{}}
	for _, d := range cr.order {
		pkg := ""
		if d.languageID == "go" {
			pkg = pkgs.of(d.path)
		}
		f := &graph.DocumentFacts{Document: graph.Document{
			Path:        d.path,
			Language:    lang.Of(d.path),
			Package:     pkg,
			ContentHash: lang.HashContent(d.text),
			Source:      graph.SourceLSP,
		}}
		for _, s := range d.symbols {
			sym := s.facts
			sym.Package = pkg
			f.Symbols = append(f.Symbols, sym)
		}
		byPath[d.path] = f
	}
	for _, k := range occOrder {
		f := byPath[k.path]
		if f == nil {
			continue // a workspace file the crawl did not list
		}
		f.Occurrences = append(f.Occurrences, *occs[k])
	}
	for k, n := range edges {
		f := byPath[k.path]
		if f == nil {
			continue
		}
		reason := "lsp:reference"
		if k.kind == graph.EdgeCalls {
			reason = "lsp:incoming-call"
		}
		f.Edges = append(f.Edges, graph.Edge{From: k.from, To: k.to, Kind: k.kind, Confidence: 1, Source: graph.SourceLSP, Reason: reason, Count: n})
	}
	for _, d := range cr.order {
		f := byPath[d.path]
		sort.Slice(f.Occurrences, func(i, j int) bool {
			a, b := f.Occurrences[i], f.Occurrences[j]
			if a.Range != b.Range {
				return a.Range.Start.Before(b.Range.Start) || (a.Range.Start == b.Range.Start && a.Range.End.Before(b.Range.End))
			}
			return a.Symbol < b.Symbol
		})
		sort.Slice(f.Edges, func(i, j int) bool {
			a, b := f.Edges[i], f.Edges[j]
			if a.From != b.From {
				return a.From < b.From
			}
			if a.To != b.To {
				return a.To < b.To
			}
			return a.Kind < b.Kind
		})
		cr.res.Documents = append(cr.res.Documents, *f)
		cr.res.Stats.Documents++
		cr.res.Stats.Symbols += len(f.Symbols)
		cr.res.Stats.Occurrences += len(f.Occurrences)
		cr.res.Stats.Edges += len(f.Edges)
	}
}

// WriteOptions describe the base generation Write records.
type WriteOptions struct {
	Commit string   // the commit the work tree was at (freshness.Head)
	Args   []string // the command line, for the manifest
}

// Write stores a crawl's result as a new base generation, switched to
// atomically at the end. The layer is partial when requests failed.
func Write(ctx context.Context, store *graph.Store, res *Result, root string, wo WriteOptions) (graph.Manifest, error) {
	started := time.Now()
	gw, err := store.BeginGeneration(ctx)
	if err != nil {
		return graph.Manifest{}, fmt.Errorf("crawl: starting a base generation: %w", err)
	}
	for _, f := range res.Documents {
		if err := gw.PutDocument(ctx, f); err != nil {
			_ = gw.Abort()
			return graph.Manifest{}, fmt.Errorf("crawl: writing %s: %w", f.Document.Path, err)
		}
	}
	state := graph.StateComplete
	limited := 0
	if res.Stats.FailedRequests > 0 || res.Stats.SkippedDocuments > 0 {
		state = graph.StatePartial
	}
	if _, ok := LimitedTo(root); ok {
		// Callers outside the folder were never asked for.
		state, limited = graph.StatePartial, 1
	}
	m := graph.Manifest{
		Layer:       graph.Base,
		Commit:      wo.Commit,
		Root:        root,
		Tool:        res.ServerName,
		ToolVersion: res.ServerVersion,
		ToolArgs:    wo.Args,
		State:       state,
		Documents:   res.Stats.Documents,
		Symbols:     res.Stats.Symbols,
		Occurrences: res.Stats.Occurrences,
		Edges:       res.Stats.Edges,
		Extra: map[string]int{
			"lspReferenceRequests": res.Stats.ReferenceRequests,
			"lspCallRequests":      res.Stats.CallRequests,
			"lspFailedRequests":    res.Stats.FailedRequests,
			"lspNotInBuild":        res.Stats.NotInBuild,
			"lspNotCallable":       res.Stats.NotCallable,
			"skippedDocuments":     res.Stats.SkippedDocuments,
			"externalLocations":    res.Stats.ExternalLocations,
			"limitedToFolder":      limited,
		},
		Started:  started,
		Finished: time.Now(),
	}
	if err := gw.Commit(ctx, m); err != nil {
		return graph.Manifest{}, fmt.Errorf("crawl: committing the base generation: %w", err)
	}
	m.Generation = gw.Generation()
	return m, nil
}

// locKey identifies a location as the server reported it.
type locKey struct {
	uri string
	r   lspwire.Range
}

// disambiguate settles locations that the references of several symbols
// claim. Servers answer references "semantically": gopls lists a call made
// through an interface among the references of every concrete method that
// implements it, and the concrete methods' declarations among the interface
// method's. The location's own definition names the one symbol it refers
// to; the other claims are dropped. A location whose definition names none
// of the claimants keeps them all.
func (cr *crawler) disambiguate(ctx context.Context, syms []*symbol) error {
	claims := map[locKey][]*symbol{}
	var keys []locKey
	for _, s := range syms {
		for _, l := range s.refs {
			k := locKey{l.URI, l.Range}
			if len(claims[k]) == 0 {
				keys = append(keys, k)
			}
			claims[k] = append(claims[k], s)
		}
	}
	var ambiguous []locKey
	for _, k := range keys {
		if len(claims[k]) > 1 {
			ambiguous = append(ambiguous, k)
		}
	}
	drop := make([]map[*symbol]bool, len(ambiguous))
	err := cr.parallel(ctx, "disambiguate", len(ambiguous), func(ctx context.Context, i int) error {
		k := ambiguous[i]
		var params lspwire.TextDocumentPosition
		params.TextDocument.URI = k.uri
		params.Position = k.r.Start
		var raw json.RawMessage
		ok, err := cr.request(ctx, "textDocument/definition", params, &raw)
		cr.mu.Lock()
		cr.res.Stats.DefinitionRequests++
		cr.mu.Unlock()
		if err != nil || !ok {
			return err
		}
		defs, _ := lspwire.DecodeLocations(raw)
		var keep []*symbol
		for _, s := range claims[k] {
			for _, d := range defs {
				if uri, r, _, ok := d.Target(); ok && uri == s.doc.uri && r.Start == s.selStart {
					keep = append(keep, s)
					break
				}
			}
		}
		if len(keep) == 0 {
			return nil
		}
		drop[i] = map[*symbol]bool{}
		for _, s := range claims[k] {
			if !slices.Contains(keep, s) {
				drop[i][s] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	dropped := map[*symbol]map[locKey]bool{}
	for i, m := range drop {
		for s := range m {
			if dropped[s] == nil {
				dropped[s] = map[locKey]bool{}
			}
			dropped[s][ambiguous[i]] = true
		}
	}
	for s, ks := range dropped {
		refs := s.refs[:0:0]
		for _, l := range s.refs {
			if ks[locKey{l.URI, l.Range}] {
				cr.res.Stats.Disambiguated++
				continue
			}
			refs = append(refs, l)
		}
		s.refs = refs
	}
	return nil
}
