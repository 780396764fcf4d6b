package syntax

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/arena"
)

// The table of definitions an index resolved against, kept beside the
// store: an incremental index needs every definition of the generation it
// brings up to date, and reading them back from the store (every
// document's symbols, documentation and ranges included, each definition
// interned again) was its largest cost that grows with the repository,
// 190 ms of CPU for GOROOT/src. The file holds the table as the index
// left it, each distinct string once; it is a cache: an index that finds
// it missing, stale or damaged reads the store instead.
//
// The generation's manifest names the file it goes with by a random
// token (extraDefTable), drawn for each commit: a file written for
// another commit, by another process or before a crash, has another
// token and is not used.

// defTableFile is the file's name in the store's directory.
const defTableFile = "syntax-definitions"

// extraDefTable is the manifest's extra count holding the token of the
// generation's table of definitions (0 or absent: none).
const extraDefTable = "definitions_table"

// defTableMagic starts the file; defTableVersion is its layout's
// version, raised when the layout changes.
const (
	defTableMagic   = "lspgraph syntax definitions\n"
	defTableVersion = 2
)

// defTableDir is the directory the table of definitions of store is kept
// in, if it can keep one (it is on disk and writable).
func defTableDir(store *graph.Store) (string, bool) {
	return store.Dir(), store.OnDisk() && !store.ReadOnly()
}

// newDefTableToken draws the token of a commit's table: positive, and
// exact in a JSON number (the manifest's extra counts are ints).
func newDefTableToken() int { return 1 + int(rand.Uint64()>>12) }

// defTable is a table of definitions: st, and each document's run of it,
// by path.
type defTable struct {
	st   *defStore
	runs map[string][2]int32
}

// writeDefTable writes the definitions of st that runs (one per path of
// paths, empty for a path without definitions) hold into dir, under
// token, replacing the file there at once. Only the strings those
// definitions name are written.
func writeDefTable(dir string, token int, st *defStore, paths []string, runs [][2]int32) error {
	return startDefTable(dir, token, st, paths, runs).install()
}

// pendingDefTable is a table of definitions being written to a temporary
// file beside the store while the commit it goes with runs; install puts
// it in place once the commit is done, discard drops it.
type pendingDefTable struct {
	dir  string
	done chan struct{}
	tmp  string // the temporary file, once written
	err  error
}

// startDefTable begins writeDefTable in the background. st, paths and
// runs must not change until it is installed or discarded.
func startDefTable(dir string, token int, st *defStore, paths []string, runs [][2]int32) *pendingDefTable {
	p := &pendingDefTable{dir: dir, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.tmp, p.err = encodeDefTable(dir, token, st, paths, runs)
	}()
	return p
}

// install waits for the table and renames it into place.
func (p *pendingDefTable) install() error {
	<-p.done
	err := p.err
	if err == nil {
		if err = os.Rename(p.tmp, filepath.Join(p.dir, defTableFile)); err != nil {
			_ = os.Remove(p.tmp)
		}
	}
	if err != nil {
		return fmt.Errorf("syntax: writing the table of definitions: %w", err)
	}
	return nil
}

// discard waits for the table and removes it.
func (p *pendingDefTable) discard() {
	<-p.done
	if p.err == nil {
		_ = os.Remove(p.tmp)
	}
}

// The file's layout (version 2), little-endian, each array starting at
// a multiple of 8 so that it is used where it lies (mapped or read), not
// decoded:
//
//	magic, then 8 bytes each: version, token, and the sizes of the
//	sections below (bytes of text; strings, definitions, documents)
//	text: every string the table names, one after another
//	strings: an arena.Ref (12 bytes) per distinct short string
//	definitions: a packedDef (48 bytes) per definition, by document
//	documents: per document its path (an arena.Ref) and run (2 int32)
//	the XXH64 of everything before it
//
// Refs are into the text (chunk 0 of the arena that adopts the file).
const (
	defTableHeader = len(defTableMagic) + 6*8
	refSize        = 12
	packedDefSize  = 48
	docEntrySize   = refSize + 8
)

// encodeDefTable writes the table to a new temporary file in dir and
// returns its name.
func encodeDefTable(dir string, token int, st *defStore, paths []string, runs [][2]int32) (string, error) {
	removeStaleDefTables(dir, time.Now().Add(-staleDefTable))
	f, err := os.CreateTemp(dir, defTableFile+"-*.tmp")
	if err != nil {
		return "", err
	}
	// The strings the definitions name, numbered in the order met, and
	// the text: the short strings, then each definition's id and
	// signature, then the paths.
	renum := make([]uint32, len(st.strs))
	var strs []uint32
	use := func(i uint32) {
		if renum[i] == 0 {
			strs = append(strs, i)
			renum[i] = uint32(len(strs))
		}
	}
	docs, defs := 0, 0
	for _, r := range runs {
		if r[1] <= r[0] {
			continue
		}
		docs++
		defs += int(r[1] - r[0])
		for i := r[0]; i < r[1]; i++ {
			p := st.at(i)
			use(p.name)
			use(p.kind)
			use(p.lang)
			use(p.pkg)
			use(p.at)
		}
	}
	var text []byte
	ref := func(s string) [3]uint32 {
		if s == "" {
			return [3]uint32{}
		}
		r := [3]uint32{0, uint32(len(text)), uint32(len(s))}
		text = append(text, s...)
		return r
	}
	putRef := func(b []byte, r [3]uint32) []byte {
		for _, v := range r {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	strRefs := make([]byte, 0, len(strs)*refSize)
	for _, i := range strs {
		strRefs = putRef(strRefs, ref(st.short(i)))
	}
	defBytes := make([]byte, 0, defs*packedDefSize)
	docBytes := make([]byte, 0, docs*docEntrySize)
	var docPaths [][3]uint32
	for k, r := range runs {
		if r[1] <= r[0] {
			continue
		}
		docPaths = append(docPaths, ref(paths[k]))
	}
	lo, d := int32(0), 0
	for _, r := range runs {
		if r[1] <= r[0] {
			continue
		}
		for i := r[0]; i < r[1]; i++ {
			p := st.at(i)
			defBytes = putRef(defBytes, ref(st.text.String(p.id)))
			defBytes = putRef(defBytes, ref(st.text.String(p.sig)))
			for _, s := range [...]uint32{p.name, p.kind, p.lang, p.pkg, p.at} {
				defBytes = binary.LittleEndian.AppendUint32(defBytes, renum[s]-1)
			}
			ext := uint32(0)
			if p.external {
				ext = 1
			}
			defBytes = binary.LittleEndian.AppendUint32(defBytes, ext)
		}
		hi := lo + (r[1] - r[0])
		docBytes = putRef(docBytes, docPaths[d])
		docBytes = binary.LittleEndian.AppendUint32(docBytes, uint32(lo))
		docBytes = binary.LittleEndian.AppendUint32(docBytes, uint32(hi))
		lo, d = hi, d+1
	}
	h := xxhash.New()
	w := bufio.NewWriterSize(f, 1<<20)
	put := func(b []byte) {
		_, _ = w.Write(b)
		_, _ = h.Write(b)
	}
	var pad [8]byte
	aligned := func(b []byte) {
		put(b)
		put(pad[:(8-len(b)%8)%8])
	}
	head := []byte(defTableMagic)
	for _, v := range []int{defTableVersion, token, len(text), len(strs), defs, docs} {
		head = binary.LittleEndian.AppendUint64(head, uint64(v))
	}
	aligned(head)
	aligned(text)
	aligned(strRefs)
	aligned(defBytes)
	aligned(docBytes)
	_, _ = w.Write(binary.LittleEndian.AppendUint64(nil, h.Sum64()))
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// staleDefTable is the age past which a temporary table file is the
// remains of a process killed while writing it: writing one takes about
// a second for a tree of a million lines.
const staleDefTable = 10 * time.Minute

// removeStaleDefTables removes the temporary table files in dir last
// written before cutoff.
func removeStaleDefTables(dir string, cutoff time.Time) {
	names, _ := filepath.Glob(filepath.Join(dir, defTableFile+"-*.tmp"))
	for _, n := range names {
		if fi, err := os.Lstat(n); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(cutoff) {
			_ = os.Remove(n)
		}
	}
}

// errStaleDefTable is returned by readDefTable for a file that is not the
// one of the token asked for.
var errStaleDefTable = errors.New("syntax: the table of definitions is another commit's")

// readDefTable reads the table of definitions in dir written under token.
// A missing file, one of another token and a damaged one are errors:
// the caller reads the store instead. With mapped, the file may be mapped
// instead of read, and is never unmapped (the table's strings and
// definitions are the file's bytes): only for a process that ends after
// its index.
func readDefTable(dir string, token int, mapped bool) (defTable, error) {
	name := filepath.Join(dir, defTableFile)
	var b []byte
	var err error
	if mapped {
		b, err = mapFile(name)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return defTable{}, err
	}
	if len(b) < defTableHeader+8 || string(b[:len(defTableMagic)]) != defTableMagic {
		return defTable{}, fmt.Errorf("syntax: %s is not a table of definitions", defTableFile)
	}
	num := func(k int) uint64 { return binary.LittleEndian.Uint64(b[len(defTableMagic)+8*k:]) }
	if v := num(0); v != defTableVersion {
		return defTable{}, fmt.Errorf("syntax: the table of definitions has layout %d, not %d", v, defTableVersion)
	}
	if t := num(1); t != uint64(token) {
		return defTable{}, errStaleDefTable
	}
	body, sum := b[:len(b)-8], binary.LittleEndian.Uint64(b[len(b)-8:])
	if xxhash.Sum64(body) != sum {
		return defTable{}, fmt.Errorf("syntax: the table of definitions %s is damaged (checksum)", defTableFile)
	}
	damaged := func(what string) (defTable, error) {
		return defTable{}, fmt.Errorf("syntax: the table of definitions %s is damaged: %s", defTableFile, what)
	}
	if !littleEndian() {
		return damaged("written on a machine of the other byte order")
	}
	// The sections, each checked to lie within the file.
	off := defTableHeader + (8-defTableHeader%8)%8
	section := func(n, size uint64) ([]byte, bool) {
		end := uint64(off) + n*size
		if n > uint64(len(body)) || end > uint64(len(body)) {
			return nil, false
		}
		sec := body[off:end]
		off = int(end + (8-end%8)%8)
		return sec, true
	}
	text, ok1 := section(num(2), 1)
	strBytes, ok2 := section(num(3), refSize)
	defBytes, ok3 := section(num(4), packedDefSize)
	docBytes, ok4 := section(num(5), docEntrySize)
	if !ok1 || !ok2 || !ok3 || !ok4 || off != len(body) {
		return damaged("sections past its end, or bytes after them")
	}
	st := newDefStore()
	if chunk := st.text.Adopt(text); len(text) > 0 && chunk(0, 1).Chunk() != 0 {
		return damaged("text not the arena's first chunk")
	}
	strs := castSlice[arena.Ref](strBytes)
	defs := castSlice[packedDef](defBytes)
	type docEntry struct {
		path   arena.Ref
		lo, hi int32
	}
	docs := castSlice[docEntry](docBytes)
	inText := func(r arena.Ref) bool { return r.Within(0, len(text)) }
	for _, r := range strs {
		if !inText(r) {
			return damaged("a string outside the text")
		}
	}
	nstr := uint32(len(strs))
	for k := range defs {
		d := &defs[k]
		// The flag's byte is 0 or 1 and the padding after it zero, as
		// written: a bool of another byte is not a bool.
		if flag := defBytes[k*packedDefSize+44 : (k+1)*packedDefSize]; flag[0] > 1 || flag[1] != 0 || flag[2] != 0 || flag[3] != 0 {
			return damaged("a definition's flag")
		}
		if !inText(d.id) || !inText(d.sig) || d.name >= nstr || d.kind >= nstr || d.lang >= nstr || d.pkg >= nstr || d.at >= nstr {
			return damaged("a definition naming a string it does not hold")
		}
	}
	// The definitions and strings are used where they lie: the last
	// chunk of each full, so that adding copies it first.
	st.strs = strs[:len(strs):len(strs)]
	for lo := 0; lo < len(defs); lo += defChunk {
		hi := min(lo+defChunk, len(defs))
		st.defs = append(st.defs, defs[lo:hi:hi])
	}
	st.n = int32(len(defs))
	st.byStr.Reserve(len(strs))
	for i, r := range strs {
		// Distinct as written (the checksum vouches for the bytes), so
		// inserted without a look-up first.
		st.byStr.Insert(st.text.String(r), uint32(i))
	}
	t := defTable{st: st, runs: make(map[string][2]int32, len(docs))}
	next := int32(0)
	for _, d := range docs {
		if !inText(d.path) || d.lo != next || d.hi <= d.lo || int(d.hi) > len(defs) {
			return damaged("a document's run out of order")
		}
		path := st.text.String(d.path)
		if _, dup := t.runs[path]; dup {
			return damaged("a document twice")
		}
		t.runs[path] = [2]int32{d.lo, d.hi}
		next = d.hi
	}
	if int(next) != len(defs) {
		return damaged("definitions of no document")
	}
	return t, nil
}

// castSlice views b, a whole number of T laid out as the file holds
// them, as a []T (b is 8-aligned: a section of the file).
func castSlice[T any](b []byte) []T {
	var zero T
	n := len(b) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// littleEndian reports whether this machine stores numbers as the table
// of definitions does.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}
