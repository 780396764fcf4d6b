package syntax

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/rootfs"
	"github.com/lspgraph/lspgraph/internal/terms"
)

// Defaults for Options.
const (
	DefaultParseTimeout = 5 * time.Second
	DefaultMaxFileSize  = 1 << 20
)

// Options configure an Extractor.
type Options struct {
	// Root is the workspace root on disk; paths given to File are relative
	// to it. Project files (go.mod, package.json, pyproject.toml,
	// Cargo.toml) are looked up between a file's directory and Root.
	Root string
	// FS, when set, reads Root's project files and must be opened on Root;
	// otherwise NewExtractor opens Root itself and Close releases it.
	FS *rootfs.Root
	// ParseTimeout bounds the parse of one file (DefaultParseTimeout if zero).
	ParseTimeout time.Duration
	// MaxFileSize is the largest file extracted, in bytes (DefaultMaxFileSize if zero).
	MaxFileSize int
	// tree, from an index's walk of Root, tells project files absent
	// without a look.
	tree *treeListing
	// goModules, from an index's listing of Root, are the paths of the
	// modules of its go.mod files, sorted (nil: not known; see
	// project.goScopeOf).
	goModules []string
}

// Extractor parses files into FileFacts. It is not safe for concurrent use:
// use one per goroutine and Close it when done.
type Extractor struct {
	opts    Options
	langs   map[string]*grammar
	project *project
	flat    flat         // the last parsed tree, its parse memory reused from file to file
	terms   *terms.Memo  // the words of identifiers met in earlier files
	goast   goParser     // builds Go files' trees from go/parser (see goFlat)
	ownFS   *rootfs.Root // opened by NewExtractor, closed by Close
	closed  bool
	enc     factEncoder // encodes the fact cache's records (FactCache.store)
	rec     []byte      // the last record FactCache.store made, its buffer reused
}

// NewExtractor returns an Extractor for the workspace at opts.Root.
func NewExtractor(opts Options) *Extractor {
	if opts.ParseTimeout <= 0 {
		opts.ParseTimeout = DefaultParseTimeout
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	x := &Extractor{opts: opts, langs: map[string]*grammar{}, terms: terms.NewMemo()}
	fsys := opts.FS
	if fsys == nil && opts.Root != "" {
		// A root that cannot be opened reads no project files.
		fsys, _ = rootfs.Open(opts.Root)
		x.ownFS = fsys
	}
	x.project = newProject(opts.Root, fsys)
	x.project.tree = opts.tree
	x.project.modules = opts.goModules
	return x
}

// Close releases the parse memory. The Extractor is unusable afterwards.
func (x *Extractor) Close() {
	x.flat.free()
	if !x.closed {
		x.project.close()
		_ = x.ownFS.Close()
	}
	x.closed = true
}

// ErrClosed is returned by File after Close.
var ErrClosed = errors.New("syntax: extractor is closed")

// File extracts the facts of one file. path is relative to the workspace
// root with forward slashes; src is its content (a saved file or an editor
// buffer). A skipped file (see SkipReason, unsupported languages included)
// yields FileFacts with Skipped set and a nil error; an error means the
// context ended or the Extractor is closed.
func (x *Extractor) File(ctx context.Context, p string, src []byte) (*FileFacts, error) {
	if x.closed {
		return nil, ErrClosed
	}
	gname := grammarFor(p)
	ff := &FileFacts{Document: graph.Document{
		Path:        p,
		Language:    lang.Of(p),
		ContentHash: lang.HashContent(src),
		Source:      graph.SourceSyntax,
	}}
	if gname == "" {
		ff.Skipped = SkipUnsupported
		return ff, nil
	}
	if lang.IsTestPath(p, ff.Document.Language) {
		ff.Document.Flags |= graph.DocTest
	}
	if reason := x.skipReason(p, src); reason != SkipNone {
		ff.Skipped = reason
		if reason == SkipGenerated {
			ff.Document.Flags |= graph.DocGenerated
		}
		return ff, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("syntax: parsing %s: %w", p, err)
	}
	g := x.grammar(gname, ff.Document.Language)
	// The timeout is tree-sitter's own (ts_parser_set_timeout_micros).
	if err := x.parse(g, src); err != nil {
		if errors.Is(err, errParseTimeout) {
			ff.Skipped = SkipTimeout
			return ff, nil
		}
		*ff = FileFacts{Document: ff.Document, Skipped: SkipFailed, Failure: err.Error()}
		return ff, nil
	}
	if failure := x.walk(g, src, ff); failure != "" {
		*ff = FileFacts{Document: ff.Document, Skipped: SkipFailed, Failure: failure}
		return ff, nil
	}
	ff.Terms = x.terms.Document(ff.Document, ff.Symbols, src)
	return ff, nil
}

// Parse applies File's skip rules and parses the file with tree-sitter,
// keeping nothing: the part of File's work that any tree-sitter indexer
// pays. It returns why the file was skipped, if it was (timeouts
// included); an error means the context ended or the Extractor is closed.
func (x *Extractor) Parse(ctx context.Context, p string, src []byte) (SkipReason, error) {
	if x.closed {
		return SkipNone, ErrClosed
	}
	gname := grammarFor(p)
	if gname == "" {
		return SkipUnsupported, nil
	}
	if reason := x.skipReason(p, src); reason != SkipNone {
		return reason, nil
	}
	if err := ctx.Err(); err != nil {
		return SkipNone, fmt.Errorf("syntax: parsing %s: %w", p, err)
	}
	switch err := x.flat.parseAndCopy(x.grammar(gname, lang.Of(p)), src, x.opts.ParseTimeout, false); {
	case errors.Is(err, errParseTimeout):
		return SkipTimeout, nil
	case err != nil:
		return SkipFailed, nil
	}
	return SkipNone, nil
}

// walk extracts the facts of the parsed tree. A panic (a bug in a
// language's walker, met on unusual code) fails this file only: it is
// reported as the file's Failure instead of ending a whole index.
func (x *Extractor) walk(g *grammar, src []byte, ff *FileFacts) (failure string) {
	defer func() {
		if r := recover(); r != nil {
			failure = fmt.Sprint(r)
		}
	}()
	w := newWalker(g, src, ff, x.project)
	root := x.flat.root()
	switch g.lang {
	case "go":
		w.extractGo(root)
	case "typescript", "javascript":
		w.extractTS(root)
	case "python":
		w.extractPython(root)
	case "java":
		w.extractJava(root)
	case "rust":
		w.extractRust(root)
	}
	w.finish()
	return ""
}

// grammar returns the grammar tables for gname, creating them on first use
// for documents of the graph language language.
func (x *Extractor) grammar(gname, language string) *grammar {
	g, ok := x.langs[gname]
	if !ok {
		g = newGrammar(gname, language)
		x.langs[gname] = g
	}
	return g
}

// skipReason applies the testdata, size, generated-code and minified rules.
func (x *Extractor) skipReason(p string, src []byte) SkipReason {
	if lang.Of(p) == "go" && inTestdata(p) {
		return SkipTestdata
	}
	if len(src) > x.opts.MaxFileSize {
		return SkipHuge
	}
	generated := IsGenerated
	if lang.Of(p) == "go" {
		generated = IsGoGenerated // the go tool's rule
	}
	if generated(src) {
		return SkipGenerated
	}
	if lang.Of(p) == "javascript" && IsMinified(src) {
		return SkipMinified
	}
	return SkipNone
}

// inTestdata reports whether a root-relative path is inside a directory
// named testdata. The go tool ignores such directories: the Go files in
// them are fixtures that belong to no package (gopls and scip-go do not
// index them either), and their names would only blur the resolution of
// the real ones.
func inTestdata(p string) bool {
	return strings.HasPrefix(p, "testdata/") || strings.Contains(p, "/testdata/")
}

// generatedHeaderLines is how many leading lines are searched for a
// generated-code marker.
const generatedHeaderLines = 20

// IsGenerated reports whether src carries a generated-code marker in its
// first lines: Go's "// Code generated ... DO NOT EDIT." convention, or
// "@generated" (used by many JavaScript, Python and Rust generators).
func IsGenerated(src []byte) bool {
	rest := src
	for i := 0; i < generatedHeaderLines && len(rest) > 0; i++ {
		line := rest
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			line, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimSpace(line)
		if bytes.Contains(line, []byte("@generated")) {
			return true
		}
		if isGoMarker(line) {
			return true
		}
	}
	return false
}

// isGoMarker reports whether line is Go's generated-code marker,
// "// Code generated ... DO NOT EDIT.".
func isGoMarker(line []byte) bool {
	return bytes.HasPrefix(line, []byte("// Code generated ")) && bytes.HasSuffix(line, []byte(" DO NOT EDIT."))
}

// goHeaderBytes bounds the bytes of a Go file searched for the
// generated-code marker before its package clause.
const goHeaderBytes = 64 << 10

// IsGoGenerated reports whether the Go source src is generated by the Go
// convention (https://go.dev/s/generatedcode), as go/ast.IsGenerated reads
// it: a line "// Code generated ... DO NOT EDIT." (a line comment, or a
// line of a block comment starting so) before the first text that is not
// a comment or blank, however long the comments before it (a license and
// build constraints can put it past the 20 lines IsGenerated reads). One
// after the package clause does not count. Only the first goHeaderBytes
// are read.
func IsGoGenerated(src []byte) bool {
	marker := func(line []byte) bool {
		if bytes.IndexByte(line, '\r') >= 0 {
			line = bytes.ReplaceAll(line, []byte("\r"), nil) // as the Go scanner reads comments
		}
		return isGoMarker(line)
	}
	rest := bytes.TrimPrefix(src[:min(len(src), goHeaderBytes)], []byte("\xef\xbb\xbf")) // a byte order mark
	inBlock := false
	for len(rest) > 0 {
		line := rest
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			line, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
		}
		if inBlock {
			if marker(line) {
				return true
			}
			end := bytes.Index(line, []byte("*/"))
			if end < 0 {
				continue
			}
			inBlock, line = false, line[end+2:]
		}
		// The rest of the line: comments, or the text that ends the header.
		for {
			line = bytes.TrimLeft(line, " \t\r")
			if len(line) == 0 {
				break
			}
			if bytes.HasPrefix(line, []byte("//")) {
				if marker(line) {
					return true
				}
				break
			}
			if !bytes.HasPrefix(line, []byte("/*")) {
				return false // the package clause, or other text
			}
			end := bytes.Index(line[2:], []byte("*/"))
			if end < 0 {
				inBlock = true
				break
			}
			line = line[2+end+2:]
		}
	}
	return false
}

// Minified-file thresholds.
const (
	minifiedAverageLine = 500
	minifiedMaxLine     = 10 << 10
)

// IsMinified reports whether src looks minified: an average line longer
// than 500 bytes, or any line longer than 10 KB.
func IsMinified(src []byte) bool {
	lines, longest, start := 0, 0, 0
	for i, b := range src {
		if b == '\n' {
			lines++
			longest = max(longest, i-start)
			start = i + 1
		}
	}
	if start < len(src) {
		lines++
		longest = max(longest, len(src)-start)
	}
	if lines == 0 {
		return false
	}
	return longest > minifiedMaxLine || len(src)/lines > minifiedAverageLine
}
