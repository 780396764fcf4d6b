package scip

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/freelist"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/scip-code/scip/bindings/go/scip"
)

// converterVersion is part of every document digest: bump it whenever the
// conversion or the digest changes, so that facts from an older converter
// are never reused.
const converterVersion = "scip-convert-3"

// Options configure Import.
type Options struct {
	// Root is the workspace root. Documents whose columns are not UTF-8
	// and whose text is not in the dump are read from under it (never
	// outside it). Empty: no document text is read.
	Root string
	// Commit is the source commit the dump was built from.
	Commit string
	// Size is the input's length in bytes when known (0 otherwise). It
	// bounds declared record lengths and drives progress.
	Size int64
	// Progress, when not nil, is called after every record from the
	// decoding goroutine. Keep it cheap.
	Progress func(Progress)
	// Queue is how many documents (their records and heads) may wait
	// for conversion (default 8); it bounds memory.
	Queue int
	// Workers is how many documents are converted and written at once
	// (default: one per processor, at most four). The store's records do
	// not depend on it: symbol ids are a function of the symbols (see
	// package graph), so a serial import writes the same bytes.
	Workers int
	// AllowShrink accepts a new generation that keeps fewer than half the
	// documents of the previous one from the same tool and root. Without
	// it such an import is refused (an error wrapping graph.ErrShrink)
	// and the previous generation stays current: a dump cut at a record
	// boundary, as a crashed indexer leaves it, decodes without error
	// and would otherwise replace the index with its first documents.
	// See graph.CheckShrink.
	AllowShrink bool
	// Conversions, when set, holds the conversion sites another producer
	// found (the Go type checker, see package goconv) by document path:
	// each becomes an occurrence of its symbol in that document, with the
	// document's facts, so that it is replaced with them.
	Conversions map[string][]ExtraOccurrence
	// ConversionPackages is how many packages the conversion producer
	// type-checked; it is recorded in the manifest (Extra
	// "conversion_packages"), where impact reads whether the satisfaction
	// group can be computed exactly.
	ConversionPackages int

	// patchLimit, when positive, replaces graph.PatchLimit as the most
	// documents an import patches (tests).
	patchLimit int
}

// ExtraOccurrence is an occurrence another producer adds to a document of
// the dump.
type ExtraOccurrence struct {
	Range  textpos.Range
	Symbol string
	Roles  graph.Role
	// Enclosing is the name range of the enclosing declaration as the
	// producer sees it; zero for a site outside any declaration. The
	// declaration defined there in the dump encloses the occurrence.
	Enclosing textpos.Range
}

// Progress reports how far an import got.
type Progress struct {
	Bytes     int64 // bytes decoded
	Total     int64 // input size, 0 when unknown
	Documents int   // documents decoded
}

// Skip is a document left out of the import, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Offset int64  `json:"offset"` // byte offset of the document record
	// Occurrences is how many occurrences the skipped document held.
	Occurrences int `json:"occurrences"`
}

// Skip reasons.
const (
	SkipEscapesRoot = "path escapes the workspace root"
	SkipAbsolute    = "absolute path"
	SkipEmptyPath   = "empty path"
	SkipInvalidPath = "path contains a NUL byte"
	SkipDuplicate   = "duplicate document: the first one is kept"
)

// Summary describes a finished import.
type Summary struct {
	Tool        string   `json:"tool"`
	ToolVersion string   `json:"tool_version"`
	ToolArgs    []string `json:"tool_args,omitempty"`
	ProjectRoot string   `json:"project_root,omitempty"` // as the dump's metadata gives it
	Root        string   `json:"root,omitempty"`
	Commit      string   `json:"commit,omitempty"`
	Generation  uint64   `json:"generation"`
	// Patched: the import changed the current generation in place (few of
	// its documents changed) instead of writing a new one.
	Patched bool `json:"patched"`

	DocumentsBefore     int    `json:"documents_before"` // in the generation replaced, 0 if none
	Documents           int    `json:"documents"`        // in the new generation: converted + reused
	Converted           int    `json:"converted_documents"`
	Reused              int    `json:"reused_documents"`
	Deleted             int    `json:"deleted_documents"` // of a patched generation: those the dump no longer has
	Occurrences         int    `json:"occurrences"`
	Symbols             int    `json:"symbols"`
	Edges               int    `json:"edges"`
	ExternalSymbols     int    `json:"external_symbols"` // entries of the index's external_symbols section
	Skipped             []Skip `json:"skipped,omitempty"`
	InvalidOccurrences  int    `json:"invalid_occurrences"`  // dropped: malformed range or empty symbol
	UnverifiedDocuments int    `json:"unverified_documents"` // positions kept as given
	UnknownFields       int    `json:"unknown_fields"`       // top-level fields skipped
	// Packages holds the version of each SCIP package ("scheme manager
	// name") the converted documents define symbols of: the dump's own
	// packages.
	Packages map[string]string `json:"packages,omitempty"`
	// VersionChanges are the dump's own packages that the previous import
	// of the same tool and root named at another version. Every symbol
	// string carries its package's version, so each such change is a
	// change of every document defining symbols of that package.
	VersionChanges []VersionChange `json:"version_changes,omitempty"`

	Bytes             int64         `json:"bytes"`
	Duration          time.Duration `json:"duration_ns"`
	MBPerSec          float64       `json:"mb_per_sec"`
	OccurrencesPerSec float64       `json:"occurrences_per_sec"`
}

// VersionChange is a package of the dump whose version changed since the
// previous import.
type VersionChange struct {
	Package string `json:"package"` // "scheme manager name"
	From    string `json:"from"`
	To      string `json:"to"`
}

// ImportError is a failed import. The previous generation, if any, is
// still the one readers see.
type ImportError struct {
	Offset   int64           // byte offset where the import stopped
	Err      error           // the cause
	Previous *graph.Manifest // the base manifest still in use, nil if none
}

func (e *ImportError) Error() string {
	prev := "the store has no previous index"
	failed := fmt.Sprintf("import failed at byte %d", e.Offset)
	if errors.Is(e.Err, graph.ErrShrink) {
		failed = "import refused"
	}
	if p := e.Previous; p != nil {
		commit := p.Commit
		if commit == "" {
			commit = "unknown"
		}
		prev = fmt.Sprintf("the previous index (commit %s, imported %s) is still in use", commit, p.Finished.Format(time.RFC3339))
	}
	return fmt.Sprintf("%s: %v; %s", failed, e.Err, prev)
}

func (e *ImportError) Unwrap() error { return e.Err }

// ErrEmpty is returned for a dump without documents.
var ErrEmpty = errors.New("scip: the index has no documents (empty or not a SCIP index)")

// item is a document on its way to conversion.
type item struct {
	rec Record
	// doc is the whole document, or its head while payload holds the
	// record (see docHead): it is decoded whole only if it changed.
	doc     *scip.Document
	payload *[]byte          // from the stream's free list, returned once decoded
	digest  [digestSize]byte // see docHead
	path    string
	tool    string // the metadata's tool name, when metadata came first
}

// maxKeptPayload is the largest record buffer the stream keeps for the
// next document: the queue and the workers hold a dozen, and kept at the
// size of the largest document each ever held they made the import's
// memory grow with how many large documents a dump has (pebble's has 27
// over 256 KiB among 815).
const maxKeptPayload = 256 << 10

// Import streams a SCIP dump from r into a new base generation of store,
// one document at a time, and switches to it atomically. A document whose
// payload (and, where columns need it, text) is unchanged since the
// previous generation is copied rather than converted; when the previous
// generation was imported from the same tool and root and few of its
// documents changed, it is patched in place instead, only the documents
// that changed or went written (see importTarget). On error nothing
// readers see changes and the error is an [*ImportError].
func Import(ctx context.Context, store *graph.Store, r io.Reader, opts Options) (Summary, error) {
	start := time.Now()
	prev := previousManifest(store)
	root, err := absRoot(opts.Root)
	if err != nil {
		return Summary{Commit: opts.Commit}, &ImportError{Err: err, Previous: prev}
	}
	tgt, err := newImportTarget(ctx, store, root, opts)
	if err != nil {
		return Summary{Commit: opts.Commit}, &ImportError{Err: err, Previous: prev}
	}
	defer tgt.abort()
	sum, off, err := stream(ctx, r, opts, tgt.sink())
	if prev != nil {
		sum.DocumentsBefore = prev.Documents
	}
	if err != nil {
		return sum, &ImportError{Offset: off, Err: err, Previous: prev}
	}
	m := graph.Manifest{
		Layer:       graph.Base,
		Commit:      opts.Commit,
		Root:        sum.Root,
		Tool:        sum.Tool,
		ToolVersion: sum.ToolVersion,
		ToolArgs:    sum.ToolArgs,
		State:       graph.StateComplete,
		Documents:   sum.Documents,
		Symbols:     sum.Symbols,
		Occurrences: sum.Occurrences,
		Edges:       sum.Edges,
		Extra: map[string]int{
			"skipped_documents":    len(sum.Skipped),
			"reused_documents":     sum.Reused,
			"unverified_documents": sum.UnverifiedDocuments,
			"invalid_occurrences":  sum.InvalidOccurrences,
			"external_symbols":     sum.ExternalSymbols,
			"unknown_fields":       sum.UnknownFields,
		},
		Packages: packagesOf(&sum, prev),
		Started:  start,
		Finished: time.Now(),
	}
	sum.VersionChanges = versionChanges(&sum, prev)
	if opts.Conversions != nil {
		m.Extra[graph.ManifestConversionPackages] = opts.ConversionPackages
	}
	if err := tgt.commit(ctx, m, &sum); err != nil {
		if !errors.Is(err, graph.ErrShrink) {
			err = fmt.Errorf("scip: switching to the new index: %w", err)
		}
		return sum, &ImportError{Offset: sum.Bytes, Err: err, Previous: prev}
	}
	sum.Duration = time.Since(start)
	sum.rates()
	return sum, nil
}

// ConvertStream decodes and converts a dump like Import, handing each
// document's facts (and those of [ExternalPath]) to put instead of a
// store. Nothing is reused. It serves benchmarks and tools that want the
// facts without a graph.
func ConvertStream(ctx context.Context, r io.Reader, opts Options, put func(context.Context, graph.DocumentFacts) error) (Summary, error) {
	start := time.Now()
	sum, off, err := stream(ctx, r, opts, sink{put: put})
	if err != nil {
		return sum, &ImportError{Offset: off, Err: err}
	}
	sum.Duration = time.Since(start)
	sum.rates()
	return sum, nil
}

func (s *Summary) rates() {
	if secs := s.Duration.Seconds(); secs > 0 {
		s.MBPerSec = float64(s.Bytes) / 1e6 / secs
		s.OccurrencesPerSec = float64(s.Occurrences) / secs
	}
}

// sink is where converted documents go. previousDigest and reuse may be
// nil (nothing to reuse).
type sink struct {
	previousDigest func(path string) (string, bool)
	reuse          func(ctx context.Context, path string) error
	put            func(ctx context.Context, f graph.DocumentFacts) error
	// copies: put keeps nothing of the facts it is handed once it
	// returns, so that the next document's may reuse their memory.
	copies bool
}

// stream decodes r in one goroutine and converts and writes in the
// calling one, with a bounded queue between them. On error it returns the
// byte offset where the import stopped.
func stream(ctx context.Context, r io.Reader, opts Options, out sink) (Summary, int64, error) {
	sum := Summary{Commit: opts.Commit}
	var err error
	if sum.Root, err = absRoot(opts.Root); err != nil {
		return sum, 0, err
	}
	var root *os.Root
	if sum.Root != "" {
		var err error
		if root, err = os.OpenRoot(sum.Root); err != nil {
			return sum, 0, fmt.Errorf("scip: opening the workspace root: %w", err)
		}
		defer root.Close()
	}

	queue := opts.Queue
	if queue <= 0 {
		queue = 8
	}
	items := make(chan item, queue)
	// The buffers of the document records the decoding goroutine hands
	// the workers, as many as the queue and the workers hold.
	var payloads freelist.List[*[]byte]
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Decoding goroutine: records, path validation, duplicates.
	var (
		meta       *scip.Metadata
		externals  []*scip.SymbolInformation
		extDigest  = newDigestHash()
		decoded    int
		skipped    []Skip
		seen       = make(map[string]struct{})
		decodeErr  error
		decodeStat DecodeStats
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(items)
		v := Visitor{
			Metadata: func(ctx context.Context, rec Record, m *scip.Metadata) error {
				if meta == nil {
					meta = m
				}
				return nil
			},
			documentHead: func(ctx context.Context, rec Record, h docHead) error {
				decoded++
				d := h.doc
				p, reason := cleanPath(d.RelativePath)
				if reason == "" {
					if _, dup := seen[p]; dup {
						reason = SkipDuplicate
					}
				}
				if reason != "" {
					skipped = append(skipped, Skip{Path: d.RelativePath, Reason: reason, Offset: rec.Offset, Occurrences: h.occurrences})
					return nil
				}
				seen[p] = struct{}{}
				tool := ""
				if meta != nil {
					tool = meta.GetToolInfo().GetName()
				}
				var payload *[]byte
				if h.payload != nil {
					// The record's own buffer: the decoder reads the
					// next one into another from the free list.
					payload = h.take()
					*payload = h.payload
				}
				select {
				case items <- item{rec: rec, doc: d, payload: payload, digest: h.digest, path: p, tool: tool}:
					return nil
				case <-ctx.Done():
					return fmt.Errorf("scip: stopped at byte %d: %w", rec.Offset, ctx.Err())
				}
			},
			buffer: func() *[]byte { return payloads.Get(func() *[]byte { return new([]byte) }) },
			ExternalSymbol: func(ctx context.Context, rec Record, si *scip.SymbolInformation) error {
				externals = append(externals, si)
				extDigest.Write(rec.Digest[:])
				return nil
			},
		}
		var progress func(int64)
		if opts.Progress != nil {
			progress = func(b int64) {
				opts.Progress(Progress{Bytes: b, Total: opts.Size, Documents: decoded})
			}
		}
		decodeStat, decodeErr = Decode(ctx, r, opts.Size, v, progress)
	}()

	// Converting and writing: one worker per processor; the generation
	// writer is safe for concurrent use and documents are independent.
	workers := opts.Workers
	if workers <= 0 {
		workers = max(1, min(runtime.GOMAXPROCS(0), 4))
	}
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		writeErr error
		writeOff int64
		parts    = make([]Summary, workers)
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conv := &Converter{reuseFacts: out.copies}
			dec := docDecoder{reuse: true} // a document is done with before the next is decoded
			for it := range items {
				mu.Lock()
				failed := writeErr != nil
				mu.Unlock()
				if failed {
					continue // drain
				}
				conv.Tool = it.tool
				conv.Extra = opts.Conversions[it.path]
				err := writeDocument(ctx, out, conv, &dec, root, it, &parts[w])
				if it.payload != nil && cap(*it.payload) <= maxKeptPayload {
					payloads.Put(it.payload)
				}
				if err != nil {
					mu.Lock()
					if writeErr == nil {
						writeErr, writeOff = err, it.rec.Offset
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
	wg.Wait()
	for _, p := range parts {
		sum.Documents += p.Documents
		sum.Converted += p.Converted
		sum.Reused += p.Reused
		sum.Occurrences += p.Occurrences
		sum.Symbols += p.Symbols
		sum.Edges += p.Edges
		sum.InvalidOccurrences += p.InvalidOccurrences
		sum.UnverifiedDocuments += p.UnverifiedDocuments
		for pkg, v := range p.Packages {
			sum.addPackage(pkg, v)
		}
	}
	<-done
	sum.Bytes = decodeStat.Bytes
	sum.UnknownFields = decodeStat.UnknownFields
	sum.Skipped = skipped
	if writeErr != nil {
		return sum, writeOff, writeErr
	}
	if decodeErr != nil {
		return sum, decodeStat.Bytes, decodeErr
	}
	if meta != nil {
		sum.Tool = meta.GetToolInfo().GetName()
		sum.ToolVersion = meta.GetToolInfo().GetVersion()
		sum.ToolArgs = meta.GetToolInfo().GetArguments()
		sum.ProjectRoot = meta.ProjectRoot
	}
	if decoded == 0 {
		return sum, decodeStat.Bytes, ErrEmpty
	}
	if sum.Documents == 0 {
		return sum, decodeStat.Bytes, fmt.Errorf("scip: none of the index's %d documents can be imported (%s)", decoded, skipped[0].Reason)
	}
	if len(externals) > 0 {
		sum.ExternalSymbols = len(externals)
		facts := (&Converter{Tool: sum.Tool}).ExternalFacts(externals)
		facts.Document.Digest = converterVersion + ":" + hex.EncodeToString(extDigest.Sum(nil))
		if err := out.put(ctx, facts); err != nil {
			return sum, decodeStat.Bytes, fmt.Errorf("scip: writing external symbols: %w", err)
		}
		sum.Symbols += len(facts.Symbols)
		sum.Edges += len(facts.Edges)
	}
	return sum, 0, nil
}

// writeDocument converts one document (or reuses its previous facts) and
// writes it, decoding it whole first when it.doc is its head.
func writeDocument(ctx context.Context, out sink, conv *Converter, dec *docDecoder, root *os.Root, it item, sum *Summary) error {
	d := it.doc
	var text []byte
	enc := conv.Encoding(d)
	if enc != textpos.UTF8 {
		if d.Text != "" {
			text = []byte(d.Text)
		} else if root != nil {
			if b, err := root.ReadFile(filepath.FromSlash(it.path)); err == nil {
				text = b
			}
		}
	}
	h := newDigestHash()
	h.Write([]byte(converterVersion))
	h.Write([]byte{byte(enc)})
	h.Write(it.digest[:])
	if text != nil {
		t := digestOf(text)
		h.Write(t[:])
	}
	for _, e := range conv.Extra {
		fmt.Fprintf(h, "%v %s %d %v\n", e.Range, e.Symbol, e.Roles, e.Enclosing)
	}
	key := converterVersion + ":" + hex.EncodeToString(h.Sum(nil))

	if out.previousDigest != nil {
		if prev, ok := out.previousDigest(it.path); ok {
			if st, ok := parseDigest(prev, key); ok {
				if err := out.reuse(ctx, it.path); err != nil {
					return fmt.Errorf("scip: reusing document %q: %w", it.path, err)
				}
				sum.Reused++
				sum.addDocument(st)
				return nil
			}
		}
	}
	if it.payload != nil {
		var err error
		if d, err = dec.document(*it.payload); err != nil {
			return corruptRecord(fieldDocuments, it.rec, err)
		}
	}
	facts, st := conv.Convert(d, it.path, text)
	facts.Document.Digest = formatDigest(key, st)
	if err := out.put(ctx, facts); err != nil {
		return fmt.Errorf("scip: writing document %q: %w", it.path, err)
	}
	sum.Converted++
	sum.addDocument(st)
	if st.Package != "" {
		sum.addPackage(st.Package, st.Version)
	}
	return nil
}

// addPackage records that the dump defines symbols of pkg at version v.
// Of two versions of one package (a dump holding both), the greater is
// kept, so that the summary does not depend on the order of conversion.
func (s *Summary) addPackage(pkg, v string) {
	if s.Packages == nil {
		s.Packages = make(map[string]string)
	}
	if old, ok := s.Packages[pkg]; !ok || v > old {
		s.Packages[pkg] = v
	}
}

// packagesOf returns the packages the new base generation defines
// symbols of, and their versions: those of the converted documents, and
// for reused ones, which are unchanged, what the previous generation
// (prev, when imported from the same tool and root) recorded.
func packagesOf(sum *Summary, prev *graph.Manifest) map[string]string {
	out := maps.Clone(sum.Packages)
	if sum.Reused > 0 && prev != nil && prev.Tool == sum.Tool && prev.Root == sum.Root {
		for pkg, v := range prev.Packages {
			if _, ok := out[pkg]; !ok {
				if out == nil {
					out = make(map[string]string)
				}
				out[pkg] = v
			}
		}
	}
	return out
}

// versionChanges returns the packages the converted documents name at
// another version than the previous import of the same tool and root did.
func versionChanges(sum *Summary, prev *graph.Manifest) []VersionChange {
	if prev == nil || prev.Tool != sum.Tool || prev.Root != sum.Root {
		return nil
	}
	var out []VersionChange
	for _, pkg := range slices.Sorted(maps.Keys(sum.Packages)) {
		if from, ok := prev.Packages[pkg]; ok && from != sum.Packages[pkg] {
			out = append(out, VersionChange{Package: pkg, From: from, To: sum.Packages[pkg]})
		}
	}
	return out
}

// addDocument counts a converted or reused document of the new generation.
func (s *Summary) addDocument(st DocStats) {
	s.Documents++
	s.Occurrences += st.Occurrences
	s.Symbols += st.Symbols
	s.Edges += st.Edges
	s.InvalidOccurrences += st.InvalidOccurrences
	if st.Unverified {
		s.UnverifiedDocuments++
	}
}

// formatDigest renders "KEY o=N s=N e=N i=N u=0|1".
func formatDigest(key string, st DocStats) string {
	u := 0
	if st.Unverified {
		u = 1
	}
	return fmt.Sprintf("%s o=%d s=%d e=%d i=%d u=%d", key, st.Occurrences, st.Symbols, st.Edges, st.InvalidOccurrences, u)
}

// parseDigest checks that digest was made for key and returns the counts
// it carries, so that a reused document still counts in the summary and
// the manifest.
func parseDigest(digest, key string) (DocStats, bool) {
	var c DocStats
	rest, ok := strings.CutPrefix(digest, key+" ")
	if !ok {
		return c, false
	}
	for _, f := range strings.Fields(rest) {
		name, val, ok := strings.Cut(f, "=")
		n, err := strconv.Atoi(val)
		if !ok || err != nil {
			return c, false
		}
		switch name {
		case "o":
			c.Occurrences = n
		case "s":
			c.Symbols = n
		case "e":
			c.Edges = n
		case "i":
			c.InvalidOccurrences = n
		case "u":
			c.Unverified = n != 0
		}
	}
	return c, true
}

// cleanPath validates a document's relative_path: it must be relative and
// stay inside the workspace root. It returns the cleaned path, or the
// reason to skip the document.
func cleanPath(p string) (string, string) {
	if p == "" {
		return "", SkipEmptyPath
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", SkipInvalidPath
	}
	s := strings.ReplaceAll(p, "\\", "/")
	if strings.HasPrefix(s, "/") || filepath.IsAbs(p) || (len(s) > 1 && s[1] == ':') {
		return "", SkipAbsolute
	}
	c := path.Clean(s)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", SkipEscapesRoot
	}
	if strings.HasPrefix(c, "<") {
		return "", SkipAbsolute
	}
	return c, ""
}

// absRoot returns the absolute form of a workspace root ("" for none).
func absRoot(root string) (string, error) {
	if root == "" {
		return "", nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("scip: resolving root %q: %w", root, err)
	}
	return abs, nil
}

// previousManifest returns the base manifest currently in use, if any.
func previousManifest(store *graph.Store) *graph.Manifest {
	r, err := store.Reader()
	if err != nil {
		return nil
	}
	defer r.Close()
	m, ok, err := r.Manifest(graph.Base)
	if err != nil || !ok {
		return nil
	}
	return &m
}
