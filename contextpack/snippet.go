package contextpack

import (
	"path"
	"strings"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// Snippet kinds, from most to least text.
const (
	SnippetBody      = "body"      // the whole definition (with its leading comment)
	SnippetExcerpt   = "excerpt"   // the definition's first lines, cut to the item's cap
	SnippetDoc       = "doc"       // the leading comment and the signature, plus the lines around the relevant site
	SnippetSignature = "signature" // the first line(s) of the definition, plus the lines around the relevant site
	SnippetSite      = "site"      // the lines around a site that belongs to no definition
	SnippetLine      = "line"      // a site's line alone
	SnippetLocation  = ""          // no text: the place alone
)

// Snippet is source text shown for an item.
type Snippet struct {
	Kind      string `json:"kind"`
	StartLine int    `json:"startLine"` // 1-based line of the first line of Text
	Language  string `json:"language,omitempty"`
	Text      string `json:"text"`
}

// Limits on snippet shapes.
const (
	maxSignatureLines = 4  // a signature spanning more lines is cut
	maxLeadingComment = 12 // comment lines above a definition taken into its body
	siteContext       = 1  // lines shown either side of a site inside a signature snippet
	siteOnlyContext   = 2  // lines shown either side of a site with no definition
	maxScanLines      = 2000
)

// Language returns the fence label for a document path: the short name of
// its languageId ([lang.LanguageID]) for TypeScript and JavaScript, the
// languageId itself for the other languages lspgraph knows. C and C++,
// which lspgraph does not index but SCIP dumps may bring, are labelled by
// their extensions.
func Language(p string) string {
	switch id := lang.LanguageID(p); id {
	case "typescript":
		return "ts"
	case "typescriptreact":
		return "tsx"
	case "javascript":
		return "js"
	case "javascriptreact":
		return "jsx"
	case "plaintext":
	default:
		return id
	}
	switch path.Ext(p) {
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".hpp":
		return "cpp"
	}
	return ""
}

func indentBased(lang string) bool { return lang == "python" }

// lines splits text into lines without terminators.
func lines(text []byte) []string { return splitLines(string(text)) }

// splitLines is lines of a string.
func splitLines(text string) []string {
	s := strings.ReplaceAll(text, "\r\n", "\n")
	out := strings.Split(s, "\n")
	if len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// span is an inclusive range of 0-based line numbers.
type span struct{ start, end int }

// extentLines returns the lines of a definition: from the graph's extent
// when known, else found from the text (matching braces, or indentation for
// Python) starting at the definition's name line.
func extentLines(ls []string, lang string, def graph.Location, extent textpos.Range) (span, bool) {
	n := len(ls)
	if extent.Start != extent.End {
		s, e := int(extent.Start.Line), int(extent.End.Line)
		if e > s && extent.End.Col == 0 {
			e--
		}
		if s < n && e < n && s <= e {
			return span{s, e}, true
		}
	}
	s := int(def.Range.Start.Line)
	if s >= n {
		return span{}, false
	}
	if indentBased(lang) {
		return span{s, pythonBlockEnd(ls, s)}, true
	}
	return span{s, braceBlockEnd(ls, s)}, true
}

func indentOf(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}

// pythonBlockEnd returns the last line of the block a def/class line opens.
func pythonBlockEnd(ls []string, s int) int {
	head := strings.TrimSpace(ls[s])
	if !strings.HasSuffix(head, ":") && !strings.HasSuffix(head, "(") && !strings.HasSuffix(head, ",") {
		return s // a plain statement
	}
	base := indentOf(ls[s])
	end := s
	for i := s + 1; i < len(ls) && i-s < maxScanLines; i++ {
		t := strings.TrimSpace(ls[i])
		if t == "" {
			continue
		}
		if indentOf(ls[i]) <= base && !strings.HasPrefix(t, ")") {
			break
		}
		end = i
	}
	return end
}

// braceBlockEnd returns the line where the braces opened from line s
// close; for a declaration without braces, the line that ends it.
func braceBlockEnd(ls []string, s int) int {
	depth, opened := 0, false
	var quote byte
	for i := s; i < len(ls) && i-s < maxScanLines; i++ {
		l := ls[i]
		for j := 0; j < len(l); j++ {
			c := l[j]
			if quote != 0 {
				if c == '\\' {
					j++
				} else if c == quote {
					quote = 0
				}
				continue
			}
			switch c {
			case '"', '\'', '`':
				quote = c
			case '/':
				if j+1 < len(l) && l[j+1] == '/' {
					j = len(l)
				}
			case '{', '(', '[':
				depth++
				if c == '{' {
					opened = true
				}
			case '}', ')', ']':
				depth--
			}
		}
		if quote == '"' || quote == '\'' {
			quote = 0 // such strings do not span lines
		}
		if depth <= 0 {
			t := strings.TrimSpace(l)
			if opened || !(strings.HasSuffix(t, ",") || strings.HasSuffix(t, "=") || strings.HasSuffix(t, "+") || strings.HasSuffix(t, "&&") || strings.HasSuffix(t, "||")) {
				return i
			}
		}
	}
	return s
}

// leadingComment returns the first line of the comment block directly
// above line s (s itself when there is none).
func leadingComment(ls []string, s int) int {
	first := s
	for i := s - 1; i >= 0 && s-i <= maxLeadingComment; i-- {
		t := strings.TrimSpace(ls[i])
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "@") {
			first = i
			continue
		}
		break
	}
	return first
}

// signatureEnd returns the last line of a definition's signature.
func signatureEnd(ls []string, lang string, sp span) int {
	for i := sp.start; i <= sp.end && i-sp.start < maxSignatureLines; i++ {
		t := strings.TrimSpace(stripLineComment(ls[i], lang))
		if indentBased(lang) {
			if strings.HasSuffix(t, ":") {
				return i
			}
			continue
		}
		if strings.Contains(t, "{") || strings.HasSuffix(t, ";") {
			return i
		}
	}
	return min(sp.start+maxSignatureLines-1, sp.end, sp.start)
}

func stripLineComment(l, lang string) string {
	marker := "//"
	if indentBased(lang) {
		marker = "#"
	}
	if i := strings.Index(l, marker); i >= 0 {
		return l[:i]
	}
	return l
}

// joinLines renders lines [a, b] (inclusive).
func joinLines(ls []string, a, b int) string {
	b = min(b, len(ls)-1)
	n := 0
	for i := a; i <= b; i++ {
		n += len(ls[i]) + 1
	}
	var buf strings.Builder
	buf.Grow(n)
	for i := a; i <= b; i++ {
		buf.WriteString(ls[i])
		buf.WriteByte('\n')
	}
	return buf.String()
}

const elision = "…\n"

// cuts are the snippet forms available for one item.
type cuts struct {
	body, doc, signature *Snippet
}

// cutDefinition computes the body and signature snippets of a definition;
// site (may be nil) is the place the item is relevant for, shown inside the
// signature snippet when it lies in the body.
func cutDefinition(ls []string, p string, def graph.Location, extent textpos.Range, site *graph.Location) cuts {
	lang := Language(p)
	sp, ok := extentLines(ls, lang, def, extent)
	if !ok {
		return cuts{}
	}
	first := leadingComment(ls, sp.start)
	body := &Snippet{Kind: SnippetBody, StartLine: first + 1, Language: lang, Text: joinLines(ls, first, sp.end)}
	se := signatureEnd(ls, lang, sp)
	if se >= sp.end {
		// The whole definition is its signature: one form only.
		return cuts{body: body}
	}
	var b strings.Builder
	b.WriteString(joinLines(ls, sp.start, se))
	if site != nil && site.Path == p {
		sl := int(site.Range.Start.Line)
		if sl > se && sl <= sp.end {
			a, z := max(se+1, sl-siteContext), min(sp.end, sl+siteContext)
			if a > se+1 {
				b.WriteString(elision)
			}
			b.WriteString(joinLines(ls, a, z))
			se = z
		}
	}
	if se < sp.end {
		b.WriteString(elision)
	}
	sig := &Snippet{Kind: SnippetSignature, StartLine: sp.start + 1, Language: lang, Text: b.String()}
	out := cuts{body: body, signature: sig}
	if first < sp.start {
		out.doc = &Snippet{Kind: SnippetDoc, StartLine: first + 1, Language: lang, Text: joinLines(ls, first, sp.start-1) + sig.Text}
	}
	return out
}

// cutSite computes the snippet of a site that belongs to no definition.
func cutSite(ls []string, site graph.Location) cuts {
	l := int(site.Range.Start.Line)
	if l >= len(ls) {
		return cuts{}
	}
	a, z := max(0, l-siteOnlyContext), min(len(ls)-1, l+siteOnlyContext)
	lang := Language(site.Path)
	return cuts{
		body:      &Snippet{Kind: SnippetSite, StartLine: a + 1, Language: lang, Text: joinLines(ls, a, z)},
		signature: &Snippet{Kind: SnippetLine, StartLine: l + 1, Language: lang, Text: joinLines(ls, l, l)},
	}
}
