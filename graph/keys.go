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
// a big-endian uint32); a number is 8 bytes big-endian; a symbol is its
// 8-byte id in the space (see symid.go), never its string. Paths and symbol
// strings never contain 0x00 (writers reject them), so keys sort by their
// fields in order and a field followed by 0x00 is a prefix for scans, as is
// a symbol's id.
//
// Each data space has its own symbol table: one symid record per symbol
// that its index records name, id → the symbol string, so a symbol string
// is stored once per space however many references, edges and names
// repeat it. A symbol's id is the hash symbolHash gives its string (the
// hashes of its owner and parent in the high bits, so that neighbours sort
// together), or, if another string of the space already holds that id, the
// next free id after it.
// The table grows only: replacing or deleting a document leaves its ids
// (a generation is dropped whole; the live layer when it is cleared).
//
// Within a data space, the records written by one document are the
// doc-first records (kinds D, S, O, E, T, L, all keyed by the document's
// path). The other kinds are indexes derived from them; a document's writer
// computes both from the same facts, so replacing a document deletes exactly
// the index keys it wrote. A symbol local to its document (see DocLocal)
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
//	   Within version 2, conversion sites (occurrences with RoleConversion
//	   of ConversionSymbol ids, counted under ManifestConversionPackages)
//	   use the existing records and a new role bit: a store written before
//	   them reads as one without conversion sites, whose satisfaction group
//	   is UNKNOWN.
//	3: symbols are interned per space: the sym, ref, def, out, in and name
//	   index keys hold 8-byte symbol ids instead of symbol strings, ref and
//	   def values the enclosing symbol's id; the symid records (kind 'I')
//	   map each id to its string.
//	4: a document's symbols are one doc-syms record (kind 'S', keyed by
//	   the path alone) instead of a doc-sym record per symbol keyed by the
//	   path and the symbol string: a tenth of a generation's keys, each of
//	   which cost its writing a sort, a merge and a place in an sstable.
//	5: a symbol's id leads with the hashes of its owner (package, module or
//	   file) and parent (type) instead of being the hash of its whole
//	   string (see symbolHash): ids, and so every index key, differ.
//	6: the ref, out and in indexes hold one record per group of facts
//	   instead of one per fact (see groups.go): ref per (symbol, document),
//	   its value every occurrence of the symbol there; out per (from,
//	   document) and in per (to, document), their values every edge of
//	   the group with its kind and other end. Edge values keep sources
//	   and reasons in a string table of the value, in doc-edges too.
//
//	   Within version 6, a document value's flags may hold docIDsHashed
//	   (values.go): every id the document's records hold is its symbol's
//	   hash. A value without it has its ids looked up, as before it.
//	   A term value's document length is rounded (postingLength); one
//	   written before holds it exact, and is read alike.
const SchemaVersion = 6

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
	// kindBaseVersion, a new kind within schema 5: a store without it
	// reads as one whose base layer's last change is unknown (0).
	kindBaseVersion kind = 'B' // → uint64 the Version of the last write that changed the base layer
	// kindChanges, a new kind within schema 5: a store without the
	// record of a version tells no change since before it (its readers
	// read again what they kept).
	kindChanges kind = 'H' // version (uint64) → changes value: the layer and documents that write changed
)

// Data space kinds: doc-first records.
const (
	kindDoc      kind = 'D' // path → document value
	kindDocSym   kind = 'S' // path → doc-syms value: every symbol of the document
	kindDocOcc   kind = 'O' // path → doc-occs value: every occurrence of the document
	kindDocEdge  kind = 'E' // path → doc-edges value: every edge of the document
	kindDocTerms kind = 'T' // path → doc-terms value: every term of the document
	// kindDocLookups holds DocumentFacts.Lookups; like the terms, a new
	// kind within schema 3: a store without it reads as one whose
	// producer recorded no lookups.
	kindDocLookups kind = 'L' // path → the producer's lookups, opaque
)

// Data space kind: the space's symbol table. Upper case, so that it sorts
// before the indexes that use it.
const kindSymID kind = 'I' // symbol id → symbol string

// Data space kinds: indexes derived from the doc-first records.
const (
	kindSym  kind = 's' // symbol id, path → symbol value
	kindRef  kind = 'r' // symbol id, path → refs value: the symbol's occurrences in the document
	kindDef  kind = 'd' // symbol id, path, pos → occurrence value; definitions only
	kindOut  kind = 'f' // from id, path → edges value: the edges from the symbol the document justifies
	kindIn   kind = 'b' // to id, path → edges value: the edges into the symbol the document justifies
	kindName kind = 'n' // display name, symbol id, path → ""
	kindPkg  kind = 'p' // package, path → ""
	kindTerm kind = 't' // word, path → term value: counts per field, document length (rounded)
)

// field types of a key layout.
const (
	fieldString = 's'
	fieldPos    = 'p'
	fieldNum    = 'g'
	fieldLayer  = 'l'
	fieldSym    = 'i' // an 8-byte symbol id
)

// symIDLen is the width of a symbol id in keys.
const symIDLen = 8

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
	case kindBaseVersion:
		return keyLayout{"base-version", "", nil}, true
	case kindChanges:
		return keyLayout{"changes", "g", []string{"version"}}, true
	case kindDoc:
		return keyLayout{"doc", "s", []string{"path"}}, true
	case kindDocSym:
		return keyLayout{"doc-syms", "s", []string{"path"}}, true
	case kindDocOcc:
		return keyLayout{"doc-occs", "s", []string{"path"}}, true
	case kindDocEdge:
		return keyLayout{"doc-edges", "s", []string{"path"}}, true
	case kindDocTerms:
		return keyLayout{"doc-terms", "s", []string{"path"}}, true
	case kindDocLookups:
		return keyLayout{"doc-lookups", "s", []string{"path"}}, true
	case kindTerm:
		return keyLayout{"term", "ss", []string{"word", "path"}}, true
	case kindSymID:
		return keyLayout{"symid", "i", []string{"id"}}, true
	case kindSym:
		return keyLayout{"sym", "is", []string{"sym", "path"}}, true
	case kindRef:
		return keyLayout{"ref", "is", []string{"sym", "path"}}, true
	case kindDef:
		return keyLayout{"def", "isp", []string{"sym", "path", "range"}}, true
	case kindOut:
		return keyLayout{"out", "is", []string{"from", "path"}}, true
	case kindIn:
		return keyLayout{"in", "is", []string{"to", "path"}}, true
	case kindName:
		return keyLayout{"name", "sis", []string{"name", "sym", "path"}}, true
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

func appendDocSymsKey(dst []byte, space uint64, path string) []byte {
	return append(appendPrefix(dst, space, kindDocSym), path...)
}

func appendDocOccKey(dst []byte, space uint64, path string) []byte {
	return append(appendPrefix(dst, space, kindDocOcc), path...)
}

func appendDocEdgeKey(dst []byte, space uint64, path string) []byte {
	return append(appendPrefix(dst, space, kindDocEdge), path...)
}

func appendSymIDKey(dst []byte, space, id uint64) []byte {
	return binary.BigEndian.AppendUint64(appendPrefix(dst, space, kindSymID), id)
}

// appendSymPrefix appends the space, kind and a symbol id: the prefix of
// the symbol's records of that kind.
func appendSymPrefix(dst []byte, space uint64, k kind, id uint64) []byte {
	return binary.BigEndian.AppendUint64(appendPrefix(dst, space, k), id)
}

func appendSymKey(dst []byte, space, sym uint64, path string) []byte {
	return append(appendSymPrefix(dst, space, kindSym, sym), path...)
}

func appendRefKey(dst []byte, space, sym uint64, path string) []byte {
	return append(appendSymPrefix(dst, space, kindRef, sym), path...)
}

func appendDefKey(dst []byte, space, sym uint64, path string, r textpos.Range) []byte {
	return appendPos(appendField(appendSymPrefix(dst, space, kindDef, sym), path), r)
}

// appendEdgeKey appends an out key (sym = from) or an in key (sym = to).
func appendEdgeKey(dst []byte, space uint64, k kind, sym uint64, path string) []byte {
	return append(appendSymPrefix(dst, space, k, sym), path...)
}

func appendNameKey(dst []byte, space uint64, name string, sym uint64, path string) []byte {
	dst = appendField(appendPrefix(dst, space, kindName), name)
	return append(binary.BigEndian.AppendUint64(dst, sym), path...)
}

func appendPkgKey(dst []byte, space uint64, pkg, path string) []byte {
	return append(appendField(appendPrefix(dst, space, kindPkg), pkg), path...)
}

func appendMetaKey(dst []byte, k kind) []byte { return appendPrefix(dst, spaceMeta, k) }

func appendManifestKey(dst []byte, l Layer) []byte {
	return append(appendMetaKey(dst, kindManifest), byte(l))
}

func appendChangesKey(dst []byte, version uint64) []byte {
	return binary.BigEndian.AppendUint64(appendMetaKey(dst, kindChanges), version)
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
	fields []string // string fields; positions, numbers and ids are kept below
	syms   []uint64 // symbol ids, in order
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
		case fieldSym:
			if len(rest) < symIDLen {
				return d, false
			}
			d.syms, rest = append(d.syms, binary.BigEndian.Uint64(rest)), rest[symIDLen:]
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

// formatKey renders a key readably, e.g. "gen1/ref sym=#00000000000000a1
// path=x.go range=1:1-1:4".
func formatKey(b []byte) string { return formatKeyWith(b, nil) }

// formatKeyWith renders a key as formatKey does, with each symbol id that
// name resolves (name may be nil) as its symbol string instead.
func formatKeyWith(b []byte, name func(space, id uint64) (string, bool)) string {
	d, ok := decodeKey(b)
	if !ok {
		return fmt.Sprintf("undecodable %q", b)
	}
	lay, _ := layoutOf(d.kind)
	var sb strings.Builder
	sb.WriteString(spaceName(d.space) + "/" + lay.name)
	si, ii := 0, 0
	for i, f := range lay.fields {
		sb.WriteString(" " + lay.labels[i] + "=")
		switch f {
		case fieldString:
			sb.WriteString(quoteIfNeeded(d.fields[si]))
			si++
		case fieldSym:
			id := d.syms[ii]
			ii++
			s, ok := "", false
			if name != nil && d.kind != kindSymID {
				s, ok = name(d.space, id)
			}
			if ok {
				sb.WriteString(quoteIfNeeded(s))
			} else {
				sb.WriteString(formatSymID(id))
			}
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

// formatSymID renders a symbol id as # and 16 hex digits.
func formatSymID(id uint64) string { return fmt.Sprintf("#%016x", id) }

// quoteIfNeeded quotes s when it is empty or holds spaces or quotes.
func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\"=") || !strconv.CanBackquote(s) {
		return strconv.Quote(s)
	}
	return s
}

// DocLocal reports whether id is a symbol local to the document at path,
// "local <name> <path>" (SCIP locals are made unique per document that
// way). Nothing outside the document refers to such a symbol, so a
// document writes no symbol, name, reference or definition index records
// for it: readers find it among the document's own records, by the path
// in its id.
func DocLocal(id, path string) bool {
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
