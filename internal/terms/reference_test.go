package terms

import (
	"path"
	"strings"
	"unicode"

	"github.com/lspgraph/lspgraph/graph"
)

// This file keeps a plain, rune-by-rune way of counting a document's terms
// (no memo, no fast paths, a copy of every comment and string) that the
// package's counter is held to, term for term.

// refDocument is Document counted the plain way.
func refDocument(doc graph.Document, symbols []graph.Symbol, src []byte) []graph.Term {
	r := &refCounter{index: map[refTermKey]int{}}
	r.path(doc.Path, doc.Package)
	for i := range symbols {
		s := &symbols[i]
		if s.External || s.Kind == "local" || s.Kind == "parameter" || strings.HasPrefix(s.ID, "local ") {
			continue
		}
		r.identifier(s.DisplayName, graph.TermName)
		if s.Doc != "" && src == nil {
			r.text(s.Doc, graph.TermDoc)
		}
	}
	if src != nil {
		r.source(src, hashComments(doc.Language))
	}
	if r.out == nil {
		return []graph.Term{}
	}
	return r.out
}

// refQuery is Query counted the plain way.
func refQuery(q string) []string {
	r := &refCounter{index: map[refTermKey]int{}}
	r.text(q, graph.TermCode)
	seen := map[string]bool{}
	var out []string
	for _, t := range r.out {
		if !seen[t.Word] {
			seen[t.Word] = true
			out = append(out, t.Word)
		}
	}
	return out
}

type refCounter struct {
	index map[refTermKey]int
	out   []graph.Term
}

func (r *refCounter) add(word string, f graph.TermField) {
	k := refTermKey{word, f}
	if i, ok := r.index[k]; ok {
		r.out[i].Count++
		return
	}
	r.index[k] = len(r.out)
	r.out = append(r.out, graph.Term{Word: word, Field: f, Count: 1})
}

func (r *refCounter) path(p, pkg string) {
	dir, file := path.Split(p)
	file = strings.TrimSuffix(file, path.Ext(file))
	for _, part := range strings.Split(dir, "/") {
		r.identifier(part, graph.TermPath)
	}
	r.identifier(file, graph.TermPath)
	if pkg != "" {
		r.identifier(path.Base(pkg), graph.TermPath)
	}
}

func (r *refCounter) source(src []byte, hash bool) {
	for i := 0; i < len(src); {
		b := src[i]
		switch {
		case b == '/' && i+1 < len(src) && src[i+1] == '/', hash && b == '#':
			end := len(src)
			if j := strings.Index(string(src[i:]), "\n"); j >= 0 {
				end = i + j
			}
			r.text(string(src[i:end]), graph.TermDoc)
			i = end
		case b == '/' && i+1 < len(src) && src[i+1] == '*':
			end := len(src)
			if j := strings.Index(string(src[i+2:]), "*/"); j >= 0 {
				end = i + 2 + j
			}
			r.text(string(src[i:end]), graph.TermDoc)
			i = min(end+2, len(src))
		case b == '"' || b == '\'' || b == '`':
			end := refStringEnd(src, i)
			if end-i <= 512 {
				r.text(string(src[i+1:end]), graph.TermString)
			}
			i = min(end+1, len(src))
		case refIdentByte(b) && !('0' <= b && b <= '9'):
			j := i + 1
			for j < len(src) && refIdentByte(src[j]) {
				j++
			}
			if w := string(src[i:j]); !refKeywords[w] {
				r.identifier(w, graph.TermCode)
			}
			i = j
		default:
			i++
		}
	}
}

func refIdentByte(b byte) bool {
	return b == '_' || b == '$' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b >= 0x80
}

func refStringEnd(src []byte, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch {
		case src[j] == q:
			return j
		case q != '`' && src[j] == '\\':
			j++
		case q != '`' && src[j] == '\n':
			return j
		}
	}
	return len(src)
}

func (r *refCounter) text(s string, f graph.TermField) {
	start := -1
	for i, c := range s {
		part := c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c)
		switch {
		case part && start < 0:
			start = i
		case !part && start >= 0:
			r.identifier(s[start:i], f)
			start = -1
		}
	}
	if start >= 0 {
		r.identifier(s[start:], f)
	}
}

func (r *refCounter) identifier(id string, f graph.TermField) {
	parts := refSplit(id)
	for _, p := range parts {
		if w, ok := refNormalize(p); ok {
			r.add(w, f)
		}
	}
	if len(parts) > 1 {
		if w, ok := refNormalize(strings.Join(parts, "")); ok {
			r.add(w, f)
		}
	}
}

// refSplit is Split rune by rune, for every identifier.
func refSplit(id string) []string {
	var out []string
	rs := []rune(id)
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, string(rs[start:end]))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
		}
	}
	flush(len(rs))
	return out
}

func refNormalize(w string) (string, bool) {
	w = strings.ToLower(w)
	if len(w) < 2 || refStopWords[w] {
		return "", false
	}
	number := true
	for _, r := range w {
		if !unicode.IsDigit(r) {
			number = false
		}
	}
	if number {
		return "", false
	}
	return refStem(w), true
}

func refStem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = refUndouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = refUndouble(w[:n-2])
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 2 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

func refUndouble(w string) string {
	n := len(w)
	if n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func refSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var refStopWords = refSet("a an and are as at be been but by can do does for from has have how if in into is it its " +
	"may more no not of on or so such than that the their then there these they this those to too use using " +
	"was we were what when where which while who why will with would you your also only should must all any " +
	"each other some see via e g eg ie etc")

var refKeywords = refSet("break case chan const continue default defer else fallthrough for func go goto if import " +
	"interface map package range return select struct switch type var nil true false " +
	"function let new this class extends implements export async await typeof instanceof void undefined null " +
	"def self none lambda pass elif except finally raise try yield with from as is not and or in " +
	"fn pub impl mut use mod crate enum trait where static public private protected final")

// refTermKey is a word in a field.
type refTermKey struct {
	word  string
	field graph.TermField
}
