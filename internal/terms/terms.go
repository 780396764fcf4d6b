package terms

import (
	"bytes"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lspgraph/lspgraph/graph"
)

// maxStringScan bounds the bytes of one string literal scanned for words:
// longer literals are data (embedded files, tables), not names.
const maxStringScan = 512

// Document returns the terms of a document: its path and package, the
// names its symbols define (local ones aside) and, when src is given, the
// words of its code, comments and string literals.
func Document(doc graph.Document, symbols []graph.Symbol, src []byte) []graph.Term {
	return (&counter{}).document(doc, symbols, src)
}

func (c *counter) document(doc graph.Document, symbols []graph.Symbol, src []byte) []graph.Term {
	c.path(doc.Path, doc.Package)
	for i := range symbols {
		s := &symbols[i]
		if s.External || s.Kind == "local" || s.Kind == "parameter" || strings.HasPrefix(s.ID, "local ") {
			continue
		}
		c.identifier(s.DisplayName, graph.TermName)
		if s.Doc != "" && src == nil {
			c.text([]byte(s.Doc), graph.TermDoc)
		}
	}
	if src != nil {
		c.source(src, hashComments(doc.Language))
	}
	return c.terms()
}

// hashComments reports whether # starts a line comment in language.
func hashComments(language string) bool {
	switch language {
	case "python", "ruby", "shell", "yaml", "toml":
		return true
	}
	return false
}

// path counts the words of a document's path (directories and the file's
// name without its extension) and of its package.
func (c *counter) path(p, pkg string) {
	dir, file := path.Split(p)
	file = strings.TrimSuffix(file, path.Ext(file))
	for _, part := range strings.Split(dir, "/") {
		c.identifier(part, graph.TermPath)
	}
	c.identifier(file, graph.TermPath)
	if pkg != "" {
		c.identifier(path.Base(pkg), graph.TermPath)
	}
}

// source counts the words of source text: identifiers as code, comments
// as documentation, string literals as strings.
func (c *counter) source(src []byte, hash bool) {
	for i := 0; i < len(src); {
		b := src[i]
		switch {
		case b == '/' && i+1 < len(src) && src[i+1] == '/', hash && b == '#':
			end := indexFrom(src, i, "\n")
			c.text(src[i:end], graph.TermDoc)
			i = end
		case b == '/' && i+1 < len(src) && src[i+1] == '*':
			end := indexFrom(src, i+2, "*/")
			c.text(src[i:end], graph.TermDoc)
			i = min(end+2, len(src))
		case b == '"' || b == '\'' || b == '`':
			end := stringEnd(src, i)
			if end-i <= maxStringScan {
				c.text(src[i+1:end], graph.TermString)
			}
			i = min(end+1, len(src))
		case isIdentStart(b):
			j := i + 1
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			if w := src[i:j]; !keywords.has(w) {
				c.identifierBytes(w, graph.TermCode)
			}
			i = j
		default:
			i++
		}
	}
}

// indexFrom returns the index of sep in src at or after from, or len(src).
func indexFrom(src []byte, from int, sep string) int {
	if j := bytes.Index(src[from:], []byte(sep)); j >= 0 { // no copy of the rest of the file
		return from + j
	}
	return len(src)
}

// stringEnd returns the index of the quote closing the string opening at
// i: backslashes escape in " and ' strings, which also end at a newline;
// ` strings run to the next `.
func stringEnd(src []byte, i int) int {
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

func isIdentStart(b byte) bool {
	return b == '_' || b == '$' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b >= utf8.RuneSelf
}

func isIdentPart(b byte) bool { return isIdentStart(b) || '0' <= b && b <= '9' }

// Query returns the distinct words of a query, in order of first
// appearance, by the rules documents are indexed with.
func Query(q string) []string {
	c := counter{}
	c.text([]byte(q), graph.TermCode)
	seen := map[string]bool{}
	var out []string
	for _, t := range c.out {
		if !seen[t.Word] {
			seen[t.Word] = true
			out = append(out, t.Word)
		}
	}
	return out
}

// counter counts words per field, remembering the order they came in: the
// terms in that order, and index, where each word of a field is among
// them (one probe of a table per word counted again, which most are).
//
// An identifier of ASCII letters is split, lower-cased and folded in
// place, in scratch space: a word costs a string only the first time the
// document counts it. An identifier of several words met again in the same
// field counts what it counted the first time: seen remembers which terms
// each identifier as written added to, so a repeat costs one probe instead
// of a split and a probe per word. Identifiers with letters beyond ASCII
// take the general way, rune by rune, with their words kept in memo.
type counter struct {
	index table // the words of out, entry i for out[i]
	out   []graph.Term
	seen  table   // identifiers of several words met before
	added []span  // per entry of seen, what it added to in adds
	adds  []int32 // places in out
	parts []int   // scratch: the start and end of each word of an identifier
	word  []byte  // scratch: a word lower-cased and folded
	// memo, if set, has the words of identifiers met in earlier documents.
	memo *Memo
	// noMemo turns seen off: tests hold the memo to the plain count.
	noMemo bool
}

// add counts word in field f and returns its place in out.
func (c *counter) add(word string, f graph.TermField) int32 {
	return c.addBytes([]byte(word), f)
}

// addBytes is add for a word in scratch space, copied only if new.
func (c *counter) addBytes(word []byte, f graph.TermField) int32 {
	h := hash(word, f)
	i, at := c.index.find(word, f, h)
	if i >= 0 {
		c.out[i].Count++
		return i
	}
	c.out = append(c.out, graph.Term{Word: string(word), Field: f, Count: 1})
	return c.index.add(word, f, h, at)
}

// A span is where a list is in a slice.
type span struct{ start, end int32 }

// seenBefore counts again what identifier id in field f counted the first
// time it was met, if it was; else it returns false and what to pass to
// remember once it is counted.
func (c *counter) seenBefore(id []byte, f graph.TermField) (found bool, h uint32, at int) {
	if c.noMemo {
		return false, 0, 0
	}
	h = hash(id, f)
	e, at := c.seen.find(id, f, h)
	if e < 0 {
		return false, h, at
	}
	for _, i := range c.adds[c.added[e].start:c.added[e].end] {
		c.out[i].Count++
	}
	return true, 0, 0
}

// remember remembers that identifier id in field f added to the places in
// adds from start.
func (c *counter) remember(id []byte, f graph.TermField, h uint32, at int, start int) {
	if c.noMemo {
		return
	}
	c.seen.add(id, f, h, at)
	c.added = append(c.added, span{int32(start), int32(len(c.adds))})
}

// terms returns the terms counted, in a slice of their own: out is
// scratch space a Memo keeps for the next document, and a copy of just
// the terms costs less than growing a slice of them.
func (c *counter) terms() []graph.Term {
	return append(make([]graph.Term, 0, len(c.out)), c.out...)
}

// text counts the words of prose or a literal: each run of letters, digits
// and underscores is an identifier. ASCII bytes are told apart by a table;
// only the others are decoded as runes.
func (c *counter) text(s []byte, f graph.TermField) {
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf && !asciiWordByte[b] {
			i++
			continue
		}
		start, ascii := i, true // ascii: whether the run is all ASCII
		for i < len(s) {
			b := s[i]
			if b < utf8.RuneSelf {
				if !asciiWordByte[b] {
					break
				}
				i++
				continue
			}
			r, size := utf8.DecodeRune(s[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			ascii = false
			i += size
		}
		if i == start { // a rune that is no letter or digit
			_, size := utf8.DecodeRune(s[i:])
			i += size
			continue
		}
		c.run(s[start:i], ascii, f)
	}
}

// asciiWordByte tells the ASCII bytes of a word in text: letters, digits
// and underscores.
var asciiWordByte = func() (t [utf8.RuneSelf]bool) {
	for b := range t {
		t[b] = b == '_' || isASCIILetter(byte(b)) || isASCIIDigit(byte(b))
	}
	return t
}()

// run counts a run of word characters in text, all ASCII or not.
func (c *counter) run(id []byte, ascii bool, f graph.TermField) {
	if ascii {
		c.identifierASCII(id, f)
		return
	}
	c.identifier(string(id), f)
}

// identifierBytes is identifier for an identifier in a file's bytes.
func (c *counter) identifierBytes(id []byte, f graph.TermField) {
	if isASCIIBytes(id) {
		c.identifierASCII(id, f)
		return
	}
	found, h, at := c.seenBefore(id, f)
	if found {
		return
	}
	start := len(c.adds)
	for _, w := range c.words(string(id)) {
		c.adds = append(c.adds, c.add(w, f))
	}
	c.remember(id, f, h, at, start)
}

// identifier counts the words of one identifier, and the whole identifier
// when it has several.
func (c *counter) identifier(id string, f graph.TermField) {
	c.identifierBytes([]byte(id), f)
}

// identifierASCII is identifier for an identifier of ASCII bytes, split,
// lower-cased and folded in scratch space. A word of lower-case letters,
// most of them, is counted afresh each time, in one look-up; other
// identifiers are remembered in seen.
func (c *counter) identifierASCII(id []byte, f graph.TermField) {
	if isLowerWord(id) {
		c.addPart(id, f)
		return
	}
	found, h, at := c.seenBefore(id, f)
	if found {
		return
	}
	c.parts = splitASCIIBytes(c.parts[:0], id)
	start := len(c.adds)
	for k := 0; k < len(c.parts); k += 2 {
		if i, ok := c.addPart(id[c.parts[k]:c.parts[k+1]], f); ok {
			c.adds = append(c.adds, i)
		}
	}
	if len(c.parts) > 2 {
		// The whole identifier: its letters and digits, lower-cased.
		w := c.word[:0]
		for _, b := range id {
			if isASCIILetter(b) || isASCIIDigit(b) {
				w = append(w, lowerASCII(b))
			}
		}
		c.word = w
		if i, ok := c.addWord(w, f); ok {
			c.adds = append(c.adds, i)
		}
	}
	c.remember(id, f, h, at, start)
}

// addPart counts one word of an ASCII identifier, lower-cased into
// scratch space, unless it is not worth indexing; it returns the word's
// place in out.
func (c *counter) addPart(p []byte, f graph.TermField) (int32, bool) {
	if len(p) < 2 {
		return 0, false
	}
	w := c.word[:0]
	for _, b := range p {
		w = append(w, lowerASCII(b))
	}
	c.word = w
	return c.addWord(w, f)
}

// addWord is normalize and add for a lower-case ASCII word in scratch
// space, which it folds in place.
func (c *counter) addWord(w []byte, f graph.TermField) (int32, bool) {
	if len(w) < 2 || stopWords.has(w) || isDigits(w) {
		return 0, false
	}
	return c.addBytes(stemASCII(w), f), true
}

// words returns the words an identifier counts as: its parts normalized,
// and the whole identifier when it has several.
func (c *counter) words(id string) []string {
	if c.memo != nil {
		if ws, ok := c.memo.words[id]; ok {
			return ws
		}
	}
	var ws []string
	parts := Split(id)
	for _, p := range parts {
		if w, ok := normalize(p); ok {
			ws = append(ws, w)
		}
	}
	if len(parts) > 1 {
		if w, ok := normalize(strings.Join(parts, "")); ok {
			ws = append(ws, w)
		}
	}
	if c.memo != nil {
		c.memo.remember(id, ws)
	}
	return ws
}

// A Memo keeps what the documents one goroutine counts with
// [Memo.Document] can share: the tables and scratch space of the last
// document, which the next counts in, and the words identifiers with
// letters beyond ASCII count as (an ASCII identifier is split in scratch
// space for less than a look-up costs). It holds at most memoWords
// identifiers, and is emptied when full. A Memo is not safe for concurrent
// use.
type Memo struct {
	words   map[string][]string
	counter counter // the last document's
}

// memoWords bounds a Memo's identifiers.
const memoWords = 1 << 16

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{words: make(map[string][]string)} }

// Document is the package's Document, with the words of identifiers met
// before taken from m.
func (m *Memo) Document(doc graph.Document, symbols []graph.Symbol, src []byte) []graph.Term {
	c := &m.counter
	c.reset()
	c.memo = m
	return c.document(doc, symbols, src)
}

// reset empties c for another document, keeping its tables and scratch
// space unless they grew large.
func (c *counter) reset() {
	c.out = emptied(c.out)
	c.adds = emptied(c.adds)
	c.added = emptied(c.added)
	c.index.reset()
	c.seen.reset()
}

// emptied returns s emptied, its room kept for tableWords of the next
// document's terms.
func emptied[T any](s []T) []T {
	if cap(s) > tableWords {
		return nil
	}
	return s[:0]
}

func (m *Memo) remember(id string, ws []string) {
	if len(m.words) >= memoWords {
		clear(m.words)
	}
	// The key and the words may share a larger string (a comment's text):
	// the memo keeps copies, not what they were cut from.
	for i, w := range ws {
		ws[i] = strings.Clone(w)
	}
	m.words[strings.Clone(id)] = ws
}

// Split splits an identifier into its words: at underscores and other
// separators, at a lower-to-upper change (parseRequest), before the last
// capital of a run followed by lower case (HTTPServer → HTTP, Server) and
// between letters and digits.
func Split(id string) []string {
	if isASCII(id) {
		return splitASCII(id)
	}
	return splitRunes(id)
}

// splitRunes is Split for any identifier.
func splitRunes(id string) []string {
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isASCIIBytes(s []byte) bool {
	for _, b := range s {
		if b >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// splitASCIIBytes is splitASCII appending the start and end of each word
// of id to dst.
func splitASCIIBytes(dst []int, id []byte) []int {
	start := 0
	for i := 0; i < len(id); i++ {
		b := id[i]
		if !isASCIILetter(b) && !isASCIIDigit(b) {
			if i > start {
				dst = append(dst, start, i)
			}
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := id[i-1]
		if isASCIIUpper(b) && isASCIILower(prev) ||
			isASCIIUpper(b) && isASCIIUpper(prev) && i+1 < len(id) && isASCIILower(id[i+1]) ||
			isASCIIDigit(b) != isASCIIDigit(prev) {
			dst = append(dst, start, i)
			start = i
		}
	}
	if len(id) > start {
		dst = append(dst, start, len(id))
	}
	return dst
}

func lowerASCII(b byte) byte {
	if isASCIIUpper(b) {
		return b + 'a' - 'A'
	}
	return b
}

// isLowerWord reports whether id is one word of lower-case ASCII letters.
func isLowerWord(id []byte) bool {
	for _, b := range id {
		if !isASCIILower(b) {
			return false
		}
	}
	return true
}

func isDigits(w []byte) bool {
	for _, b := range w {
		if !isASCIIDigit(b) {
			return false
		}
	}
	return true
}

// splitASCII is Split for an identifier of ASCII bytes, whose words are
// substrings of it: no rune slice, no string copies.
func splitASCII(id string) []string {
	var out []string
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, id[start:end])
		}
		start = end
	}
	for i := 0; i < len(id); i++ {
		b := id[i]
		if !isASCIILetter(b) && !isASCIIDigit(b) {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := id[i-1]
		switch {
		case isASCIIUpper(b) && isASCIILower(prev):
			flush(i)
		case isASCIIUpper(b) && isASCIIUpper(prev) && i+1 < len(id) && isASCIILower(id[i+1]):
			flush(i)
		case isASCIIDigit(b) != isASCIIDigit(prev):
			flush(i)
		}
	}
	flush(len(id))
	return out
}

func isASCIIUpper(b byte) bool  { return 'A' <= b && b <= 'Z' }
func isASCIILower(b byte) bool  { return 'a' <= b && b <= 'z' }
func isASCIIDigit(b byte) bool  { return '0' <= b && b <= '9' }
func isASCIILetter(b byte) bool { return isASCIIUpper(b) || isASCIILower(b) }

// normalize lower-cases a word and folds its ending; ok is false for words
// not worth indexing (stop words, single letters, numbers).
func normalize(w string) (string, bool) {
	w = strings.ToLower(w)
	if len(w) < 2 || stopWords.words[w] || isNumber(w) {
		return "", false
	}
	return Stem(w), true
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// Stem folds the common English endings of a lower-case word, so that
// cache, caches, cached and caching are one word: -ies → -y, then -ing,
// -ed or -s, a doubled final consonant undone, a final e dropped.
func Stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = undouble(w[:n-2])
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 2 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// stemASCII is Stem for a lower-case ASCII word in scratch space, folded
// in place.
func stemASCII(w []byte) []byte {
	n := len(w)
	switch {
	case n > 4 && w[n-3] == 'i' && w[n-2] == 'e' && w[n-1] == 's':
		w[n-3] = 'y'
		return w[:n-2]
	case n > 5 && w[n-3] == 'i' && w[n-2] == 'n' && w[n-1] == 'g':
		w = undoubleASCII(w[:n-3])
	case n > 4 && w[n-2] == 'e' && w[n-1] == 'd':
		w = undoubleASCII(w[:n-2])
	case n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		w = w[:n-1]
	}
	if len(w) > 2 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// undoubleASCII is undouble for an ASCII word.
func undoubleASCII(w []byte) []byte {
	n := len(w)
	if n > 2 && w[n-1] == w[n-2] {
		switch w[n-1] {
		case 'a', 'e', 'i', 'o', 'u', 'l', 's', 'z':
		default:
			return w[:n-1]
		}
	}
	return w
}

// undouble drops one of a doubled final consonant (stopp → stop), except
// l, s and z (call, pass, buzz).
func undouble(w string) string {
	n := len(w)
	if n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// stopWords are English words too common to rank by.
var stopWords = set("a an and are as at be been but by can do does for from has have how if in into is it its " +
	"may more no not of on or so such than that the their then there these they this those to too use using " +
	"was we were what when where which while who why will with would you your also only should must all any " +
	"each other some see via e g eg ie etc")

// keywords are the reserved words of the languages indexed, which name
// nothing.
var keywords = set("break case chan const continue default defer else fallthrough for func go goto if import " +
	"interface map package range return select struct switch type var nil true false " +
	"function let new this class extends implements export async await typeof instanceof void undefined null " +
	"def self none lambda pass elif except finally raise try yield with from as is not and or in " +
	"fn pub impl mut use mod crate enum trait where static public private protected final")

// A wordSet is a set of words, with a small table of its own beside the
// map for words in scratch space: the words that fall in a slot by their
// length and first and last bytes, compared byte by byte, which costs less
// than hashing the whole word.
type wordSet struct {
	words   map[string]bool
	longest int
	slots   [256][]string
}

func set(words string) *wordSet {
	s := &wordSet{words: map[string]bool{}}
	for _, w := range strings.Fields(words) {
		s.words[w] = true
		s.longest = max(s.longest, len(w))
		s.slots[setSlot(w[0], w[len(w)-1], len(w))] = append(s.slots[setSlot(w[0], w[len(w)-1], len(w))], w)
	}
	return s
}

// setSlot is where a word of n bytes from first to last is in wordSet.slots.
func setSlot(first, last byte, n int) int { return (int(first)*8 ^ int(last) ^ n<<5) & 255 }

// has reports whether w is in the set.
func (s *wordSet) has(w []byte) bool {
	if len(w) == 0 || len(w) > s.longest {
		return false
	}
	for _, v := range s.slots[setSlot(w[0], w[len(w)-1], len(w))] {
		if v == string(w) { // no copy: a comparison of a conversion
			return true
		}
	}
	return false
}
