package scope

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// goImport is one import of a Go file.
type goImport struct {
	path string
	line int
}

// fileImports is what goImports found in one Go file.
type fileImports struct {
	imports []goImport
	err     error // the file could not be read or its imports parsed
	// excluded: the build leaves the file out on this GOOS/GOARCH (asked
	// for only; see goImports).
	excluded bool
}

// goImports returns the imports of each Go file (root-relative) whose
// index want accepts (read), and whether the build leaves it out when
// want asks (match), in the order of files, reading them on every core.
func (w *Workspace) goImports(files []string, want func(i int) (read, match bool)) []fileImports {
	out := make([]fileImports, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				if read, match := want(i); read {
					out[i] = w.goFileOf(files[i], match, &buf)
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// goHeadBytes is how much of a Go file readGoImports reads first: the
// package clause and imports of nearly every file, without the rest.
const goHeadBytes = 8 << 10

// readGoImports returns the imports of the Go file at name, reading only
// as much of it as its package clause and import declarations take: a
// head of goHeadBytes, then, unless the head holds a complete token after
// the imports (so that no import declaration can follow), the whole file.
// It returns what parsing the whole file for its imports would, errors
// included. buf is scratch space for the head.
func readGoImports(name string, buf *[]byte) ([]goImport, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if cap(*buf) < goHeadBytes {
		*buf = make([]byte, goHeadBytes)
	}
	head := (*buf)[:goHeadBytes]
	n, err := io.ReadFull(f, head)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return parseGoImports(name, head[:n]) // the whole file
	case err != nil:
		return nil, err
	}
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, name, head, parser.ImportsOnly)
	if err == nil && importsEndInside(fset, af, head) {
		return importsOf(fset, af), nil
	}
	rest, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return parseGoImports(name, append(head[:n:n], rest...))
}

// parseGoImports parses a whole Go file for its imports.
func parseGoImports(name string, src []byte) ([]goImport, error) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	return importsOf(fset, af), nil
}

// importsEndInside reports whether head, a file's first bytes parsed into
// af, holds a whole token after its import declarations other than an
// import: then the file has no import beyond head.
func importsEndInside(fset *token.FileSet, af *ast.File, head []byte) bool {
	end := af.Name.End()
	if n := len(af.Decls); n > 0 {
		end = af.Decls[n-1].End()
	}
	tf := fset.File(af.Pos())
	rest := tf.Offset(end)
	var s scanner.Scanner
	s.Init(token.NewFileSet().AddFile("", -1, len(head)-rest), head[rest:], nil, 0)
	for {
		pos, tok, lit := s.Scan()
		switch tok {
		case token.SEMICOLON:
			continue
		case token.EOF, token.IMPORT, token.ILLEGAL:
			return false
		}
		// A token touching the end of head may be cut short ("imp").
		off := int(pos) - 1 + len(lit)
		if lit == "" {
			off = int(pos) - 1 + len(tok.String())
		}
		return off < len(head)-rest
	}
}

// importsOf returns a parsed file's imports; an import path that does not
// unquote is left out.
func importsOf(fset *token.FileSet, af *ast.File) []goImport {
	var out []goImport
	for _, is := range af.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			continue
		}
		out = append(out, goImport{path: p, line: fset.Position(is.Pos()).Line})
	}
	return out
}
