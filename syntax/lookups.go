package syntax

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// What a document's resolution looked up, kept with the document in the
// graph (graph.DocumentFacts.Lookups) so that the next index of the same
// root re-resolves only the documents a change can reach (incremental.go).
//
// Resolution reads the table of definitions through five kinds of key: a
// display name, a package and name, a document and name, a symbol id, and
// the module of a TS/JS default export. Every key a document's resolution
// asks for is recorded, found or not, as a 32-bit hash. A definition that
// appears, goes or changes changes what each of its own keys finds; a
// document none of whose keys changed resolves to the same facts, since
// every step of its resolution (a type's member is looked up by the id the
// step before found) read the same answers. A hash shared by two keys
// only makes a document resolve again for nothing.

// The kinds of key.
const (
	lookName     byte = 'N' // display name
	lookPackage  byte = 'P' // package, display name
	lookPath     byte = 'F' // document, display name
	lookID       byte = 'I' // symbol id
	lookDefaults byte = 'D' // a module's default exports: its path without extension
)

// lookupKey is the hash of one key.
func lookupKey(kind byte, a, b string) uint32 {
	var d xxhash.Digest
	d.Reset()
	_, _ = d.Write([]byte{kind})
	_, _ = d.WriteString(a)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(b)
	return uint32(d.Sum64())
}

// look records a lookup of the key (kind, a, b) while f.looked is set.
func (f *FileFacts) look(kind byte, a, b string) {
	if f == nil || f.looked == nil {
		return
	}
	f.looked[lookupKey(kind, a, b)] = struct{}{}
}

// definitionKeys calls mark with every key under which resolution finds d.
func definitionKeys(d *definition, mark func(uint32)) {
	mark(lookupKey(lookName, d.DisplayName, ""))
	mark(lookupKey(lookPackage, d.Package, d.DisplayName))
	mark(lookupKey(lookPath, d.Path, d.DisplayName))
	mark(lookupKey(lookID, d.ID, ""))
	if isDefaultExport(d) {
		mark(lookupKey(lookDefaults, stripExt(d.Path), ""))
	}
}

// changedKeys calls mark with the keys of every definition in old or new
// but not both alike (each list one document's, by id as
// definitionsOf and the store give them).
func changedKeys(old, new []definition, mark func(uint32)) {
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case j == len(new) || (i < len(old) && old[i].ID < new[j].ID):
			definitionKeys(&old[i], mark)
			i++
		case i == len(old) || new[j].ID < old[i].ID:
			definitionKeys(&new[j], mark)
			j++
		default:
			if old[i] != new[j] {
				definitionKeys(&old[i], mark)
				definitionKeys(&new[j], mark)
			}
			i++
			j++
		}
	}
}

// lookupsVersion starts a record; a record of another version is not
// read (the index is then built in full).
const lookupsVersion = 2

// docRecord is what an index keeps per document for the next one: the
// size and modification time of the file when it was listed, why it was
// skipped, the project's answers its extraction depended on, and the keys
// its resolution looked up, sorted (4 big-endian bytes each). Decoded, its
// strings share the record's bytes.
type docRecord struct {
	stat    rootfs.Stamp
	skipped SkipReason
	asked   []projectAnswer
	keys    string
}

// encodeDocRecord returns the record of a document.
func encodeDocRecord(st rootfs.Stamp, skipped SkipReason, asked []projectAnswer, looked map[uint32]struct{}) []byte {
	b := []byte{lookupsVersion}
	b = binary.AppendVarint(b, st.Size)
	b = binary.AppendVarint(b, st.MTime)
	b = binary.AppendUvarint(b, uint64(len(skipped)))
	b = append(b, skipped...)
	b = appendAnswers(b, asked)
	keys := make([]uint32, 0, len(looked))
	for k := range looked {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = binary.BigEndian.AppendUint32(b, k)
	}
	return b
}

// restat returns the record with the file's size and time st.
func (rec *docRecord) restat(st rootfs.Stamp) []byte {
	looked := make(map[uint32]struct{}, len(rec.keys)/4)
	for i := range len(rec.keys) / 4 {
		looked[rec.key(i)] = struct{}{}
	}
	return encodeDocRecord(st, rec.skipped, rec.asked, looked)
}

// decodeDocRecord reads a record written by encodeDocRecord. The
// record's strings share b's bytes: an index reads every document's
// record, and copying each string of each was most of the reading.
func decodeDocRecord(b string) (docRecord, error) {
	var rec docRecord
	bad := func(what string) (docRecord, error) {
		return docRecord{}, fmt.Errorf("syntax: %w: document record: %s", errCorrupt, what)
	}
	if len(b) == 0 || b[0] != lookupsVersion {
		return bad("version")
	}
	d := factDecoder{data: b, off: 1}
	rec.stat.Size = d.varint()
	rec.stat.MTime = d.varint()
	if d.err != nil {
		return bad("file size and time")
	}
	rec.skipped = SkipReason(d.plain())
	if d.err != nil {
		return bad("skip reason")
	}
	if rec.asked = d.answers(); d.err != nil {
		return bad("answers")
	}
	if k := d.count(); d.err != nil || 4*k != len(d.data)-d.off {
		return bad("keys")
	}
	rec.keys = d.data[d.off:]
	return rec, nil
}

// key returns the record's i-th key.
func (rec *docRecord) key(i int) uint32 {
	k := rec.keys[4*i:]
	return uint32(k[0])<<24 | uint32(k[1])<<16 | uint32(k[2])<<8 | uint32(k[3])
}

// looksUp reports whether the record holds one of the keys of marked.
func (rec *docRecord) looksUp(marked map[uint32]struct{}) bool {
	for i := range len(rec.keys) / 4 {
		if _, ok := marked[rec.key(i)]; ok {
			return true
		}
	}
	return false
}

// cloneAnswers copies answers into memory of their own: those read from
// the fact cache share the memory of the whole entry, which an index that
// keeps them for every file until it writes the file would keep alive.
func cloneAnswers(answers []projectAnswer) []projectAnswer {
	if len(answers) == 0 {
		return nil
	}
	out := make([]projectAnswer, len(answers))
	for i, q := range answers {
		out[i] = projectAnswer{Query: q.Query, Arg: strings.Clone(q.Arg), A: strings.Clone(q.A), B: strings.Clone(q.B)}
	}
	return out
}
