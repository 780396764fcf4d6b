package scip

import (
	"fmt"
	"strings"

	"github.com/scip-code/scip/bindings/go/scip"
	"github.com/sourcegraph/beaut"
)

// suffixKind classifies a symbol string by the suffix of its last
// descriptor, without parsing it.
type suffixKind uint8

const (
	sufNone suffixKind = iota
	sufLocal
	sufNamespace // "/"
	sufType      // "#"
	sufTerm      // "."
	sufMethod    // "()."
	sufTypeParam // "[…]"
	sufParam     // "(…)"
	sufMeta      // ":"
	sufMacro     // "!"
)

func symbolSuffix(sym string) suffixKind {
	if sym == "" {
		return sufNone
	}
	if scip.IsLocalSymbol(sym) {
		return sufLocal
	}
	switch sym[len(sym)-1] {
	case '/':
		return sufNamespace
	case '#':
		return sufType
	case '.':
		if strings.HasSuffix(sym, ").") {
			return sufMethod
		}
		return sufTerm
	case ']':
		return sufTypeParam
	case ')':
		return sufParam
	case ':':
		return sufMeta
	case '!':
		return sufMacro
	}
	return sufNone
}

// encloses reports whether definitions of this kind can enclose other
// occurrences (be a "caller").
func (k suffixKind) encloses() bool {
	switch k {
	case sufNamespace, sufType, sufTerm, sufMethod, sufMeta, sufMacro:
		return true
	}
	return false
}

// isMember reports whether sym is declared inside parent according to the
// descriptors (parent's symbol string is a proper prefix of sym's).
func isMember(sym, parent string) bool {
	return len(sym) > len(parent) && strings.HasPrefix(sym, parent)
}

// packageIdentity returns "scheme manager name" of a global symbol, the
// SCIP package it belongs to without its version. Names escape a space as
// two spaces.
func packageIdentity(sym string) string {
	identity, _ := packageOf(sym)
	return identity
}

// packageOf returns the package identity of a global symbol (see
// packageIdentity) and the version the symbol names it at, "" when the
// symbol has no version field.
func packageOf(sym string) (identity, version string) {
	fields, start := 0, 0
	for i := 0; i < len(sym); i++ {
		if sym[i] != ' ' {
			continue
		}
		if i+1 < len(sym) && sym[i+1] == ' ' {
			i++ // escaped space
			continue
		}
		fields++
		switch fields {
		case 3:
			identity, start = sym[:i], i+1
		case 4:
			return identity, sym[start:i]
		}
	}
	if identity == "" {
		return sym, ""
	}
	return identity, sym[start:]
}

// symbolDescription is what a symbol string and its SymbolInformation say
// about a symbol, in graph terms.
type symbolDescription struct {
	DisplayName string
	Kind        string
	Package     string
	Signature   string
	Doc         string
	// Parent is the symbol string of the enclosing descriptor chain, and
	// ParentSuffix its last descriptor's suffix; empty when the symbol has
	// a single descriptor or is local.
	Parent       string
	ParentSuffix scip.Descriptor_Suffix
	Suffix       scip.Descriptor_Suffix
}

// describe derives a symbol's display name, kind, package, signature and
// documentation from its string and (when not nil) its SymbolInformation.
// lang is the language of the document that mentions it.
func describe(sym string, info *scip.SymbolInformation, lang string) symbolDescription {
	return describeInto(sym, info, lang, new(scip.Symbol))
}

// describeInto is describe parsing sym into parsed, whose memory (its
// descriptors, its package) the parse reuses: a converter describes tens
// of thousands of symbols, and the bindings' parser allocated a message
// for each of their descriptors.
func describeInto(sym string, info *scip.SymbolInformation, lang string, parsed *scip.Symbol) symbolDescription {
	var d symbolDescription
	if info != nil {
		d.DisplayName = strings.ReplaceAll(info.DisplayName, "\x00", "")
		d.Kind = kindName(info.Kind)
		d.Signature, d.Doc = signatureAndDoc(info)
	}
	if scip.IsLocalSymbol(sym) {
		if d.Kind == "" {
			d.Kind = "local"
		}
		return d
	}
	if err := parseSymbolInto(sym, parsed); err != nil || len(parsed.Descriptors) == 0 {
		return d
	}
	descs := parsed.Descriptors
	last := descs[len(descs)-1]
	d.Suffix = last.Suffix
	var parent *scip.Descriptor
	if len(descs) > 1 {
		parent = descs[len(descs)-2]
		d.ParentSuffix = parent.Suffix
		f := scip.VerboseSymbolFormatter
		tail := f.FormatDescriptors(descs[len(descs)-1:])
		if strings.HasSuffix(sym, tail) {
			d.Parent = sym[:len(sym)-len(tail)]
		}
	}
	pkgName := ""
	if parsed.Package != nil {
		pkgName = parsed.Package.Name
	}
	switch parsed.Scheme {
	case "scip-go":
		// Go packages are the leading namespace descriptors.
		var parts []string
		for _, x := range descs {
			if x.Suffix != scip.Descriptor_Namespace {
				break
			}
			parts = append(parts, x.Name)
		}
		d.Package = strings.Join(parts, "/")
	case "scip-python":
		// The module path ("flask.json.provider") says more than the
		// project name, which every symbol of the project shares.
		if descs[0].Suffix == scip.Descriptor_Namespace {
			d.Package = descs[0].Name
		}
	}
	if d.Package == "" {
		d.Package = pkgName
	}
	if d.DisplayName == "" {
		d.DisplayName = last.Name
		if last.Suffix == scip.Descriptor_Meta && last.Name == "__init__" && parent != nil {
			d.DisplayName = parent.Name // a Python module
		}
	}
	if d.Kind == "" {
		d.Kind = descriptorKind(parsed.Scheme, last, parent, lang)
	}
	return d
}

// descriptorKind derives a kind from a descriptor suffix when the indexer
// gave none.
func descriptorKind(scheme string, last, parent *scip.Descriptor, lang string) string {
	inType := parent != nil && parent.Suffix == scip.Descriptor_Type
	switch last.Suffix {
	case scip.Descriptor_Namespace:
		if scheme == "scip-go" {
			return "package"
		}
		return "namespace"
	case scip.Descriptor_Type:
		return "type"
	case scip.Descriptor_Method:
		if inType {
			return "method"
		}
		return "function"
	case scip.Descriptor_Term:
		if inType {
			return "field"
		}
		return "variable"
	case scip.Descriptor_TypeParameter:
		return "type-parameter"
	case scip.Descriptor_Parameter:
		return "parameter"
	case scip.Descriptor_Meta:
		if last.Name == "__init__" {
			return "module"
		}
		if lang == "typescript" || lang == "javascript" {
			return "property"
		}
		return "meta"
	case scip.Descriptor_Macro:
		return "macro"
	}
	return ""
}

// kindName maps SymbolInformation.Kind to the graph's kind names: the
// enum name in lower case with dashes ("TypeParameter" → "type-parameter").
func kindName(k scip.SymbolInformation_Kind) string {
	switch k {
	case scip.SymbolInformation_UnspecifiedKind:
		return ""
	case scip.SymbolInformation_TypeAlias:
		return "type"
	}
	name := k.String()
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// signatureAndDoc returns the signature (signature_documentation, else a
// first documentation entry that is a code block) and the first paragraph
// of prose documentation, without code fences.
func signatureAndDoc(info *scip.SymbolInformation) (sig, doc string) {
	if sd := info.SignatureDocumentation; sd != nil {
		sig = strings.TrimSpace(sd.Text)
	}
	for i, entry := range info.Documentation {
		if code, ok := fencedBlock(entry); ok {
			if sig == "" && i == 0 {
				sig = code
			}
			continue
		}
		if doc == "" {
			doc = firstParagraph(stripFences(entry))
		}
	}
	return sig, doc
}

// fencedBlock returns the content of s when s is exactly one fenced code
// block ("```lang\n…\n```").
func fencedBlock(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return "", false
	}
	nl := strings.IndexByte(t, '\n')
	if nl < 0 {
		return "", false
	}
	body := t[nl+1 : len(t)-3]
	if strings.Contains(body, "```") {
		return "", false
	}
	return strings.TrimSpace(body), true
}

// stripFences removes fenced code blocks from markdown.
func stripFences(s string) string {
	if !strings.Contains(s, "```") {
		return s
	}
	var b strings.Builder
	in := false
	for line := range strings.Lines(s) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// firstParagraph returns the first block of non-blank lines, joined by
// single spaces.
func firstParagraph(s string) string {
	var parts []string
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		if t == "" {
			if len(parts) > 0 {
				break
			}
			continue
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// localID makes a local symbol unique to its document, as the graph
// requires: "local 4" in "a/b.go" becomes "local 4 a/b.go".
func localID(sym, path string) string {
	return sym + " " + path
}

// parseSymbol is scip.ParseSymbol made safe: the bindings (v0.10.0) index
// past the end of the string on some inputs, such as a lone multi-byte
// character ("ל"), and panic. A dump must not crash the importer, so a
// panic becomes an error.
func parseSymbol(sym string) (*scip.Symbol, error) {
	parsed := new(scip.Symbol)
	if err := parseSymbolInto(sym, parsed); err != nil {
		return nil, err
	}
	return parsed, nil
}

// parseSymbolInto is parseSymbol into out, whose descriptors and package
// the bindings reuse. What out holds after an error is not to be read.
func parseSymbolInto(sym string, out *scip.Symbol) (err error) {
	defer func() {
		if r := recover(); r != nil {
			*out = scip.Symbol{} // a parse cut short may leave it in any state
			err = fmt.Errorf("scip: parsing symbol %q: %v", sym, r)
		}
	}()
	s, err := beaut.NewUTF8String(sym)
	if err != nil {
		return err
	}
	return scip.ParseSymbolUTF8With(s, scip.ParseSymbolOptions{IncludeDescriptors: true, RecordOutput: out})
}
