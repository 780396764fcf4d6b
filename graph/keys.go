package graph

// This file is the on-disk key format of the store. Everything here is part
// of the format: changing a constant or a layout needs a new SchemaVersion.
//
// Every key starts with an 8-byte big-endian space number and one record-kind
// byte:
//
//	space 0   meta: schema version, current base generation, manifests,
//	          generation allocator, generations in progress
//	space 1   the live layer
//	space g+1 base generation g (g ≥ 1)
//
// The fields after the kind byte follow the layouts in layoutOf. A string
// field is followed by a 0x00 separator unless it is the last field of the
// key; a position is 16 bytes (start line, start col, end line, end col, each
// a big-endian uint32); a number is 8 bytes big-endian. Paths and symbol ids
// never contain 0x00 (writers reject them), so keys sort by their fields in
// order and a field followed by 0x00 is a prefix for scans.
//
// Within a data space, the records written by one document are the
// doc-first records (kinds D, S, O, E, T, all beginning with the document's
// path). The other kinds are indexes derived from them; a document's writer
// computes both from the same facts, so replacing a document deletes exactly
// the index keys it wrote. A symbol local to its document (see docLocal)
// has doc-first records only.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// SchemaVersion is the version of the key and value formats. A store of
// another version is refused with ErrSchema.
//
//	1: first format.
//	2: symbols local to their document ("local 4 a/b.go" in a/b.go) have
//	   doc-first records only, no symbol, name, reference or definition
//	   index records; a document's occurrences are one doc-occs record,
//	   its edges one doc-edges record.
//
// Within version 2, conversion sites (occurrences with RoleConversion of
// ConversionSymbol ids, counted under ManifestConversionPackages) use the
// existing records and a new role bit: a store written before them reads
// as one without conversion sites, whose satisfaction group is UNKNOWN.
const SchemaVersion = 2

// Spaces.
const (
	spaceMeta     uint64 = 0
	spaceLive     uint64 = 1
	firstGenSpace uint64 = 2
)

// genSpace returns the space holding base generation gen (gen ≥ 1).
func genSpace(gen uint64) uint64 { return gen + firstGenSpace - 1 }

// kind is a record-kind byte. The values are frozen.
type kind byte

// Meta space kinds.
const (
	kindSchema   kind = 'V' // → uvarint schema version
	kindCurrent  kind = 'C' // → uint64 current base generation
	kindManifest kind = 'M' // layer (1 byte) → JSON Manifest
	kindAlloc    kind = 'A' // → uint64 last generation allocated
	kindPending  kind = 'W' // generation (uint64) → ""; a generation being written
	kindVersion  kind = 'U' // → uint64 count of the writes readers can see (Store.Version)
)

// Data space kinds: doc-first records.
const (
	kindDoc      kind = 'D' // path → document value
	kindDocSym   kind = 'S' // path, symbol → symbol value
	kindDocOcc   kind = 'O' // path → doc-occs value: every occurrence of the document
	kindDocEdge  kind = 'E' // path → doc-edges value: every edge of the document
	kindDocTerms kind = 'T' // path → doc-terms value: every term of the document
)

// Data space kinds: indexes derived from the doc-first records.
const (
	kindSym  kind = 's' // symbol, path → symbol value
	kindRef  kind = 'r' // symbol, path, pos → occurrence value
	kindDef  kind = 'd' // symbol, path, pos → occurrence value; definitions only
	kindOut  kind = 'f' // from, kind, to, path → edge value
	kindIn   kind = 'b' // to, kind, from, path → edge value
	kindName kind = 'n' // display name, symbol, path → ""
	kindPkg  kind = 'p' // package, path → ""
	kindTerm kind = 't' // word, path → term value: counts per field, document length
)

// field types of a key layout.
const (
	fieldString = 's'
	fieldPos    = 'p'
	fieldNum    = 'g'
	fieldLayer  = 'l'
)

// keyLayout describes the fields of one kind, for decoding and printing.
type keyLayout struct {
	name   string
	fields string // one fieldX byte per field
	labels []string
}

// layoutOf returns the layout of a kind.
func layoutOf(k kind) (keyLayout, bool) {
	switch k {
	case kindSchema:
		return keyLayout{"schema", "", nil}, true
	case kindCurrent:
		return keyLayout{"current", "", nil}, true
	case kindManifest:
		return keyLayout{"manifest", "l", []string{"layer"}}, true
	case kindAlloc:
		return keyLayout{"alloc", "", nil}, true
	case kindPending:
		return keyLayout{"pending", "g", []string{"gen"}}, true
	case kindVersion:
		return keyLayout{"version", "", nil}, true
	case kindDoc:
		return keyLayout{"doc", "s", []string{"path"}}, true
	case kindDocSym:
		return keyLayout{"doc-sym", "ss", []string{"path", "sym"}}, true
	case kindDocOcc:
		return keyLayout{"doc-occs", "s", []string{"path"}}, true
	case kindDocEdge:
		return keyLayout{"doc-edges", "s", []string{"path"}}, true
	case kindDocTerms:
		return keyLayout{"doc-terms", "s", []string{"path"}}, true
	case kindTerm:
		return keyLayout{"term", "ss", []string{"word", "path"}}, true
	case kindSym:
		return keyLayout{"sym", "ss", []string{"sym", "path"}}, true
	case kindRef:
		return keyLayout{"ref", "ssp", []string{"sym", "path", "range"}}, true
	case kindDef:
		return keyLayout{"def", "ssp", []string{"sym", "path", "range"}}, true
	case kindOut:
		return keyLayout{"out", "ssss", []string{"from", "kind", "to", "path"}}, true
	case kindIn:
		return keyLayout{"in", "ssss", []string{"to", "kind", "from", "path"}}, true
	case kindName:
		return keyLayout{"name", "sss", []string{"name", "sym", "path"}}, true
	case kindPkg:
		return keyLayout{"pkg", "ss", []string{"pkg", "path"}}, true
	}
	return keyLayout{}, false
}

// appendPrefix appends the space and kind.
func appendPrefix(dst []byte, space uint64, k kind) []byte {
	dst = binary.BigEndian.AppendUint64(dst, space)
	return append(dst, byte(k))
}

// appendField appends a string field and its separator.
func appendField(dst []byte, s string) []byte {
	dst = append(dst, s...)
	return append(dst, 0)
}

// appendPos appends a range as 16 big-endian bytes.
func appendPos(dst []byte, r textpos.Range) []byte {
	dst = binary.BigEndian.AppendUint32(dst, r.Start.Line)
	dst = binary.BigEndian.AppendUint32(dst, r.Start.Col)
	dst = binary.BigEndian.AppendUint32(dst, r.End.Line)
	return binary.BigEndian.AppendUint32(dst, r.End.Col)
}

func appendDocKey(dst []byte, space uint64, path string) []byte {
	return append(appendPrefix(dst, space, kindDoc), path...)
}

func appendDocSymKey(dst []byte, space uint64, path, sym string) []byte {
	return append(appendField(appendPrefix(dst, space, kindDocSym), path), sym...)
}

func appendDocOccKey(dst []byte, space uint64, path string) []byte {
	return append(appendPrefix(dst, space, kindDocOcc), path...)
}

func appendDocEdgeKey(dst []byte, space uint64, path string) []byte {
	return append(appendPrefix(dst, space, kindDocEdge), path...)
}

func appendSymKey(dst []byte, space uint64, sym, path string) []byte {
	return append(appendField(appendPrefix(dst, space, kindSym), sym), path...)
}

func appendRefKey(dst []byte, space uint64, sym, path string, r textpos.Range) []byte {
	dst = appendField(appendField(appendPrefix(dst, space, kindRef), sym), path)
	return appendPos(dst, r)
}

func appendDefKey(dst []byte, space uint64, sym, path string, r textpos.Range) []byte {
	dst = appendField(appendField(appendPrefix(dst, space, kindDef), sym), path)
	return appendPos(dst, r)
}

func appendOutKey(dst []byte, space uint64, e *Edge, path string) []byte {
	dst = appendField(appendPrefix(dst, space, kindOut), e.From)
	dst = appendField(appendField(dst, string(e.Kind)), e.To)
	return append(dst, path...)
}

func appendInKey(dst []byte, space uint64, e *Edge, path string) []byte {
	dst = appendField(appendPrefix(dst, space, kindIn), e.To)
	dst = appendField(appendField(dst, string(e.Kind)), e.From)
	return append(dst, path...)
}

func appendNameKey(dst []byte, space uint64, name, sym, path string) []byte {
	dst = appendField(appendField(appendPrefix(dst, space, kindName), name), sym)
	return append(dst, path...)
}

func appendPkgKey(dst []byte, space uint64, pkg, path string) []byte {
	return append(appendField(appendPrefix(dst, space, kindPkg), pkg), path...)
}

func appendMetaKey(dst []byte, k kind) []byte { return appendPrefix(dst, spaceMeta, k) }

func appendManifestKey(dst []byte, l Layer) []byte {
	return append(appendMetaKey(dst, kindManifest), byte(l))
}

func appendPendingKey(dst []byte, gen uint64) []byte {
	return binary.BigEndian.AppendUint64(appendMetaKey(dst, kindPending), gen)
}

// prefixEnd returns the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil // p is all 0xff: no upper bound
}

// spaceStart returns the first key of a space.
func spaceStart(space uint64) []byte { return binary.BigEndian.AppendUint64(nil, space) }

// decodedKey is a key split into its parts.
type decodedKey struct {
	space  uint64
	kind   kind
	fields []string // string fields; positions and numbers are kept below
	rng    textpos.Range
	num    uint64
	layer  Layer
}

// decodeKey splits a key by its kind's layout.
func decodeKey(b []byte) (decodedKey, bool) {
	var d decodedKey
	if len(b) < 9 {
		return d, false
	}
	d.space = binary.BigEndian.Uint64(b)
	d.kind = kind(b[8])
	lay, ok := layoutOf(d.kind)
	if !ok {
		return d, false
	}
	rest := b[9:]
	for i := 0; i < len(lay.fields); i++ {
		last := i == len(lay.fields)-1
		switch lay.fields[i] {
		case fieldString:
			s, r, ok := cutField(rest, last)
			if !ok {
				return d, false
			}
			d.fields, rest = append(d.fields, s), r
		case fieldPos:
			if len(rest) < 16 {
				return d, false
			}
			d.rng, rest = decodePos(rest), rest[16:]
		case fieldNum:
			if len(rest) < 8 {
				return d, false
			}
			d.num, rest = binary.BigEndian.Uint64(rest), rest[8:]
		case fieldLayer:
			if len(rest) < 1 {
				return d, false
			}
			d.layer, rest = Layer(rest[0]), rest[1:]
		}
	}
	return d, len(rest) == 0
}

// cutField returns the string field at the start of b and what follows its
// separator; the last field runs to the end.
func cutField(b []byte, last bool) (string, []byte, bool) {
	if last {
		if bytes.IndexByte(b, 0) >= 0 {
			return "", nil, false
		}
		return string(b), nil, true
	}
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", nil, false
	}
	return string(b[:i]), b[i+1:], true
}

func decodePos(b []byte) textpos.Range {
	return textpos.Range{
		Start: textpos.Position{Line: binary.BigEndian.Uint32(b), Col: binary.BigEndian.Uint32(b[4:])},
		End:   textpos.Position{Line: binary.BigEndian.Uint32(b[8:]), Col: binary.BigEndian.Uint32(b[12:])},
	}
}

// spaceName names a space for printing: meta, live, gen1, gen2, …
func spaceName(space uint64) string {
	switch space {
	case spaceMeta:
		return "meta"
	case spaceLive:
		return "live"
	}
	return "gen" + strconv.FormatUint(space-firstGenSpace+1, 10)
}

// formatKey renders a key readably, e.g. "gen1/ref sym=a path=x.go range=1:1-1:4".
func formatKey(b []byte) string {
	d, ok := decodeKey(b)
	if !ok {
		return fmt.Sprintf("undecodable %q", b)
	}
	lay, _ := layoutOf(d.kind)
	var sb strings.Builder
	sb.WriteString(spaceName(d.space) + "/" + lay.name)
	si := 0
	for i, f := range lay.fields {
		sb.WriteString(" " + lay.labels[i] + "=")
		switch f {
		case fieldString:
			sb.WriteString(quoteIfNeeded(d.fields[si]))
			si++
		case fieldPos:
			sb.WriteString(d.rng.String())
		case fieldNum:
			sb.WriteString(strconv.FormatUint(d.num, 10))
		case fieldLayer:
			sb.WriteString(d.layer.String())
		}
	}
	return sb.String()
}

// quoteIfNeeded quotes s when it is empty or holds spaces or quotes.
func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\"=") || !strconv.CanBackquote(s) {
		return strconv.Quote(s)
	}
	return s
}

// docLocal reports whether id is a symbol local to the document at path,
// "local <name> <path>" (SCIP locals are made unique per document that
// way). Nothing outside the document refers to such a symbol, so a
// document writes no symbol, name, reference or definition index records
// for it: readers find it among the document's own records, by the path
// in its id.
func docLocal(id, path string) bool {
	p, ok := localPath(id)
	return ok && p == path
}

// localPath returns the document a local symbol id names: "a/b.go" for
// "local 4 a/b.go".
func localPath(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, "local ")
	if !ok {
		return "", false
	}
	_, p, ok := strings.Cut(rest, " ")
	return p, ok && p != ""
}

// validID checks that a path or symbol id can be a key field.
func validID(what, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("graph: %s %q contains a NUL byte", what, s)
	}
	return nil
}
