package syntax

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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
	defTableVersion = 4
)

// defTableDir is the directory the table of definitions of store is kept
// in, if it can keep one (it is on disk and writable).
func defTableDir(store *graph.Store) (string, bool) {
	return store.Dir(), store.OnDisk() && !store.ReadOnly()
}

// newFileToken draws the token that names, in a commit's manifest, a file
// kept beside the store for that commit (the table of definitions, the
// documents' states): positive, and exact in a JSON number (the
// manifest's extra counts are ints).
func newFileToken() int { return 1 + int(rand.Uint64()>>12) }

// defTable is a table of definitions: st, and each document's run of it,
// by path.
type defTable struct {
	st   *defStore
	runs map[string][2]int32
	// names is the table the file's index resolved against, in the
	// store's order, when the file holds its indexes (nil otherwise):
	// an index whose definitions did not change resolves against it.
	names *NameTable
	// mapping is the file mapped (readDefTable with mapped), nil when it
	// was read: its pages can be released (releaseMapping) once the table
	// is done with.
	mapping []byte
}

// writeDefTable writes the definitions of st that runs (one per path of
// paths, empty for a path without definitions) hold into dir, under
// token, replacing the file there at once; with the indexes of names, the
// table made of them, when it is not nil.
func writeDefTable(dir string, token int, st *defStore, paths []string, runs [][2]int32, names *NameTable) error {
	return startDefTable(dir, token, st, paths, runs, names).install()
}

// pendingFile is a file kept beside the store (the table of definitions,
// the documents' states) being written to a temporary file while the
// commit it goes with runs; install puts it in place once the commit is
// done, discard drops it.
type pendingFile struct {
	dir, name string
	what      string // for errors: "the table of definitions"
	done      chan struct{}
	tmp       string // the temporary file, once written
	err       error
}

// startFile begins writing the file name of dir in the background:
// encode writes it to a temporary file of dir and returns that file's
// path.
func startFile(dir, name, what string, encode func() (string, error)) *pendingFile {
	p := &pendingFile{dir: dir, name: name, what: what, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.tmp, p.err = encode()
	}()
	return p
}

// startDefTable begins writeDefTable in the background. st, paths, runs
// and names must not change until it is installed or discarded.
func startDefTable(dir string, token int, st *defStore, paths []string, runs [][2]int32, names *NameTable) *pendingFile {
	return startFile(dir, defTableFile, "the table of definitions", func() (string, error) {
		return encodeDefTable(dir, token, st, paths, runs, names)
	})
}

// install waits for the file and renames it into place.
func (p *pendingFile) install() error {
	<-p.done
	err := p.err
	if err == nil {
		if err = os.Rename(p.tmp, filepath.Join(p.dir, p.name)); err != nil {
			_ = os.Remove(p.tmp)
		}
	}
	if err != nil {
		return fmt.Errorf("syntax: writing %s: %w", p.what, err)
	}
	return nil
}

// discard waits for the file and removes it.
func (p *pendingFile) discard() {
	<-p.done
	if p.err == nil {
		_ = os.Remove(p.tmp)
	}
}

// The file's layout (version 4), little-endian, each array starting at
// a multiple of 8 so that it is used where it lies (mapped or read), not
// decoded:
//
//	magic, then 8 bytes each for the fields of defTableHead
//	text: every string the table names, one after another
//	strings: an arena.Ref (12 bytes) per short string, numbered as
//	  the store that wrote the table numbers them
//	definitions: a packedDef (48 bytes) per definition, by document
//	documents: per document its path (an arena.Ref) and run (2 int32)
//	when indexed, the indexes a resolution looks names up in, as the
//	  index resolved against them (a NameTable and the store's index of
//	  strings): the string index's slots; by name, the first definition
//	  of each string and class (two per string: see NameTable.byName)
//	  and the next of each definition; by package and
//	  name, the pair table's keys, first definitions and nexts; by id,
//	  the index's slots; the TS/JS default exports
//	the XXH64 of everything before it
//
// Refs are into the text (chunk 0 of the arena that adopts the file).
// The definitions' order is the table's: document by document, in the
// order of the index's paths.

// defTableHead is the header of the file: its layout's version, the
// token of the commit it goes with, and the sizes of its sections.
type defTableHead struct {
	version, token     uint64
	text, strs, defs   uint64
	docs, indexed      uint64
	strSlots, strCount uint64 // the index of strings
	pkgSlots, pkgShift uint64 // the pair table by package and name
	idSlots, idCount   uint64 // the index by id
	defaults           uint64
}

const (
	defTableFields = 14
	defTableHeader = len(defTableMagic) + defTableFields*8
	refSize        = 12
	packedDefSize  = 48
	docEntrySize   = refSize + 8
)

func (h *defTableHead) fields() []*uint64 {
	return []*uint64{&h.version, &h.token, &h.text, &h.strs, &h.defs, &h.docs, &h.indexed,
		&h.strSlots, &h.strCount, &h.pkgSlots, &h.pkgShift, &h.idSlots, &h.idCount, &h.defaults}
}

// encodeDefTable writes the table to a new temporary file in dir and
// returns its name. names, when not nil, is the table resolved against:
// the one newNameTable made of st and runs, written for the next index
// to use where it lies. The file is written as it is made, in two passes
// over the definitions (one for the text, one for what refers to it), so
// that writing it holds nothing more in memory.
func encodeDefTable(dir string, token int, st *defStore, paths []string, runs [][2]int32, names *NameTable) (string, error) {
	removeStaleTemps(dir, defTableFile, time.Now().Add(-staleTemp))
	f, err := os.CreateTemp(dir, defTableFile+"-*.tmp")
	if err != nil {
		return "", err
	}
	head := defTableHead{version: defTableVersion, token: uint64(token), strs: uint64(len(st.strs))}
	// The text: the short strings, then per document each definition's
	// id and signature, then its path.
	eachText := func(fn func(string)) {
		for i := range st.strs {
			fn(st.short(uint32(i)))
		}
		for k, r := range runs {
			if r[1] <= r[0] {
				continue
			}
			for i := r[0]; i < r[1]; i++ {
				p := st.at(i)
				fn(st.text.String(p.id))
				fn(st.text.String(p.sig))
			}
			fn(paths[k])
		}
	}
	eachText(func(s string) { head.text += uint64(len(s)) })
	for _, r := range runs {
		if r[1] > r[0] {
			head.docs++
			head.defs += uint64(r[1] - r[0])
		}
	}
	// The indexes, when they are the table's: made of these runs, every
	// document one run of them.
	indexed := names != nil && names.files != nil && len(names.byName) == 2*len(st.strs) &&
		uint64(len(names.nameNext)) == head.defs && st.byStr.Len() == len(st.strs)
	var defaults []int32
	if indexed {
		head.indexed = 1
		head.strSlots, head.strCount = uint64(len(st.byStr.Slots())), uint64(st.byStr.Len())
		head.pkgSlots, head.pkgShift = uint64(len(names.byPkgName.keys)), uint64(names.byPkgName.shift)
		head.idSlots, head.idCount = uint64(len(names.byID.Slots())), uint64(names.byID.Len())
		for _, is := range names.defaults {
			defaults = append(defaults, is...)
		}
		slices.Sort(defaults)
		head.defaults = uint64(len(defaults))
	}

	// Written through a buffer of its own, hashed a buffer at a time.
	h := xxhash.New()
	w := bufio.NewWriterSize(f, 1<<20)
	written := 0
	out := make([]byte, 0, 64<<10)
	flush := func() {
		_, _ = w.Write(out)
		_, _ = h.Write(out)
		out = out[:0]
	}
	putString := func(s string) {
		if len(out)+len(s) > cap(out) {
			flush()
		}
		if len(s) > cap(out) {
			_, _ = w.WriteString(s)
			_, _ = h.WriteString(s)
		} else {
			out = append(out, s...)
		}
		written += len(s)
	}
	var buf []byte
	put := func(b []byte) {
		if len(b) > 0 {
			putString(unsafe.String(&b[0], len(b)))
		}
	}
	align := func() {
		var pad [8]byte
		put(pad[:(8-written%8)%8])
	}
	u32 := func(v uint32) {
		buf = binary.LittleEndian.AppendUint32(buf[:0], v)
		put(buf)
	}
	u64 := func(v uint64) {
		buf = binary.LittleEndian.AppendUint64(buf[:0], v)
		put(buf)
	}
	putString(defTableMagic)
	for _, v := range head.fields() {
		u64(*v)
	}
	align()
	eachText(putString)
	align()
	// What refers to the text, its offsets counted again in its order.
	at := uint32(0)
	ref := func(s string) {
		if s == "" {
			u32(0)
			u32(0)
			u32(0)
			return
		}
		u32(0)
		u32(at)
		u32(uint32(len(s)))
		at += uint32(len(s))
	}
	for i := range st.strs {
		ref(st.short(uint32(i)))
	}
	align()
	var docPaths []uint32 // each document's path's offset in the text
	for k, r := range runs {
		if r[1] <= r[0] {
			continue
		}
		for i := r[0]; i < r[1]; i++ {
			p := st.at(i)
			ref(st.text.String(p.id))
			ref(st.text.String(p.sig))
			for _, s := range [...]uint32{p.name, p.kind, p.lang, p.pkg, p.at} {
				u32(s)
			}
			ext := uint32(0)
			if p.external {
				ext = 1
			}
			u32(ext)
		}
		docPaths = append(docPaths, at)
		at += uint32(len(paths[k]))
	}
	align()
	lo, d := int32(0), 0
	for k, r := range runs {
		if r[1] <= r[0] {
			continue
		}
		if paths[k] == "" {
			u32(0)
			u32(0)
			u32(0)
		} else {
			u32(0)
			u32(docPaths[d])
			u32(uint32(len(paths[k])))
		}
		hi := lo + (r[1] - r[0])
		u32(uint32(lo))
		u32(uint32(hi))
		lo, d = hi, d+1
	}
	align()
	if indexed {
		for _, sec := range [...]any{st.byStr.Slots(), names.byName, names.nameNext,
			names.byPkgName.keys, names.byPkgName.first, names.byPkgName.next, names.byID.Slots(), defaults} {
			switch v := sec.(type) {
			case []uint64:
				for _, x := range v {
					u64(x)
				}
			case []int32:
				for _, x := range v {
					u32(uint32(x))
				}
			}
			align()
		}
	}
	flush()
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

// staleTemp is the age past which a temporary file of a file kept beside
// the store is the remains of a process killed while writing it: writing
// the table of definitions, the larger, takes about a second for a tree
// of a million lines.
const staleTemp = 10 * time.Minute

// removeStaleTemps removes the temporary files of the file name in dir
// last written before cutoff.
func removeStaleTemps(dir, name string, cutoff time.Time) {
	names, _ := filepath.Glob(filepath.Join(dir, name+"-*.tmp"))
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
	var bodySum uint64 // of all but the checksum at the end, when summed
	summed := false
	isMapped := false
	if mapped {
		b, isMapped, err = mapFile(name, func(f *os.File, size int64) error {
			if size < 8 {
				return nil
			}
			h := xxhash.New()
			if _, err := io.CopyBuffer(h, io.NewSectionReader(f, 0, size-8), make([]byte, 256<<10)); err != nil {
				return fmt.Errorf("syntax: reading %s: %w", defTableFile, err)
			}
			bodySum, summed = h.Sum64(), true
			return nil
		})
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return defTable{}, err
	}
	if len(b) < defTableHeader+8 || string(b[:len(defTableMagic)]) != defTableMagic {
		return defTable{}, fmt.Errorf("syntax: %s is not a table of definitions", defTableFile)
	}
	var head defTableHead
	for k, f := range head.fields() {
		*f = binary.LittleEndian.Uint64(b[len(defTableMagic)+8*k:])
	}
	if head.version != defTableVersion {
		return defTable{}, fmt.Errorf("syntax: the table of definitions has layout %d, not %d", head.version, defTableVersion)
	}
	if head.token != uint64(token) {
		return defTable{}, errStaleDefTable
	}
	body, sum := b[:len(b)-8], binary.LittleEndian.Uint64(b[len(b)-8:])
	if !summed {
		bodySum = xxhash.Sum64(body)
	}
	if bodySum != sum {
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
	fits := true
	section := func(n, size uint64) []byte {
		end := uint64(off) + n*size
		if !fits || n > uint64(len(body)) || end > uint64(len(body)) {
			fits = false
			return nil
		}
		sec := body[off:end]
		off = int(end + (8-end%8)%8)
		return sec
	}
	text := section(head.text, 1)
	strBytes := section(head.strs, refSize)
	defBytes := section(head.defs, packedDefSize)
	docBytes := section(head.docs, docEntrySize)
	var idx [8][]byte
	if head.indexed != 0 {
		ndefs := head.defs
		for k, sz := range [...][2]uint64{{head.strSlots, 8}, {2 * head.strs, 4}, {ndefs, 4}, {head.pkgSlots, 8}, {head.pkgSlots, 4}, {ndefs, 4}, {head.idSlots, 8}, {head.defaults, 4}} {
			idx[k] = section(sz[0], sz[1])
		}
	}
	if !fits || off != len(body) {
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
	t := defTable{st: st, runs: make(map[string][2]int32, len(docs))}
	if isMapped {
		t.mapping = b
	}
	files := make(map[uint32][2]int32, len(docs))
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
		at := defs[d.lo].at
		if _, dup := files[at]; dup || st.short(at) != path {
			return damaged("a document's definitions of another path")
		}
		for i := d.lo; i < d.hi; i++ {
			if defs[i].at != at {
				return damaged("a document's definitions of another path")
			}
		}
		files[at] = [2]int32{d.lo, d.hi}
	}
	if int(next) != len(defs) {
		return damaged("definitions of no document")
	}
	if head.indexed == 0 {
		st.byStr.Reserve(len(strs))
		for i, r := range strs {
			// Distinct as written (the checksum vouches for the bytes),
			// so inserted without a look-up first.
			st.byStr.Insert(st.text.String(r), uint32(i))
		}
		return t, nil
	}
	names, ok := adoptNames(st, files, &head, idx)
	if !ok {
		return damaged("its indexes")
	}
	t.names = names
	return t, nil
}

// adoptNames returns the NameTable of a file's indexes (idx, its sections
// in the order written), checked to hold only positions of its strings
// and definitions, and chains that only go forward.
func adoptNames(st *defStore, files map[uint32][2]int32, head *defTableHead, idx [8][]byte) (*NameTable, bool) {
	ndefs, nstrs := int32(head.defs), int32(head.strs)
	strSlots, byName, nameNext := castSlice[uint64](idx[0]), castSlice[int32](idx[1]), castSlice[int32](idx[2])
	pkgKeys, pkgFirst, pkgNext := castSlice[uint64](idx[3]), castSlice[int32](idx[4]), castSlice[int32](idx[5])
	idSlots, defaults := castSlice[uint64](idx[6]), castSlice[int32](idx[7])
	slotsOK := func(slots []uint64, count uint64, max int32) bool {
		if len(slots)&(len(slots)-1) != 0 || 2*count > uint64(len(slots)) {
			return false
		}
		held := uint64(0)
		for _, v := range slots {
			if v != 0 {
				if i := int64(uint32(v)) - 1; i < 0 || i >= int64(max) {
					return false
				}
				held++
			}
		}
		return held == count
	}
	chainOK := func(heads, next []int32) bool {
		for _, h := range heads {
			if h < 0 || h > ndefs {
				return false
			}
		}
		for i, n := range next {
			if n != -1 && (n <= int32(i) || n >= ndefs) {
				return false
			}
		}
		return true
	}
	// The pair table is at most three quarters full, as built: a probe
	// meets an empty slot.
	full := 0
	for _, f := range pkgFirst {
		if f != 0 {
			full++
		}
	}
	if 4*full > 3*len(pkgFirst) {
		return nil, false
	}
	if !slotsOK(strSlots, head.strCount, nstrs) || head.strCount != uint64(nstrs) || !slotsOK(idSlots, head.idCount, ndefs) ||
		!chainOK(byName, nameNext) || !chainOK(pkgFirst, pkgNext) || len(pkgKeys)&(len(pkgKeys)-1) != 0 ||
		(len(pkgKeys) > 0 && head.pkgShift != uint64(64-bits.TrailingZeros(uint(len(pkgKeys))))) {
		return nil, false
	}
	t := &NameTable{st: st, byName: byName, nameNext: nameNext, files: files,
		byPkgName: pairIndex{keys: pkgKeys, first: pkgFirst, next: pkgNext, shift: uint(head.pkgShift)},
		byID:      idIndex{arena.AdoptIndex(idSlots, int(head.idCount))}, defaults: map[string][]int32{}}
	for k, i := range defaults {
		if i < 0 || i >= ndefs || (k > 0 && i <= defaults[k-1]) {
			return nil, false
		}
		path := stripExt(st.short(st.at(i).at))
		t.defaults[path] = append(t.defaults[path], i)
	}
	st.byStr = arena.AdoptIndex(strSlots, int(head.strCount))
	return t, true
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
