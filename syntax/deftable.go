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
	defTableVersion = 1
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

// encodeDefTable writes the table to a new temporary file in dir and
// returns its name.
func encodeDefTable(dir string, token int, st *defStore, paths []string, runs [][2]int32) (string, error) {
	removeStaleDefTables(dir, time.Now().Add(-staleDefTable))
	f, err := os.CreateTemp(dir, defTableFile+"-*.tmp")
	if err != nil {
		return "", err
	}
	h := xxhash.New()
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	put := func(b []byte) {
		_, _ = w.Write(b)
		_, _ = h.Write(b)
	}
	num := func(v uint64) { buf = binary.AppendUvarint(buf[:0], v); put(buf) }
	str := func(s string) { num(uint64(len(s))); _, _ = w.WriteString(s); _, _ = h.WriteString(s) }

	// The strings the definitions name, numbered in the order met.
	renum := make([]uint32, len(st.strs))
	var strs []uint32
	use := func(i uint32) {
		if renum[i] == 0 {
			strs = append(strs, i)
			renum[i] = uint32(len(strs))
		}
	}
	docs := 0
	for _, r := range runs {
		if r[1] <= r[0] {
			continue
		}
		docs++
		for i := r[0]; i < r[1]; i++ {
			p := st.at(i)
			use(p.name)
			use(p.kind)
			use(p.lang)
			use(p.pkg)
			use(p.at)
		}
	}
	put([]byte(defTableMagic))
	num(defTableVersion)
	num(uint64(token))
	num(uint64(len(strs)))
	for _, i := range strs {
		str(st.short(i))
	}
	num(uint64(docs))
	for k, r := range runs {
		if r[1] <= r[0] {
			continue
		}
		str(paths[k])
		num(uint64(r[1] - r[0]))
		for i := r[0]; i < r[1]; i++ {
			p := st.at(i)
			str(st.text.String(p.id))
			str(st.text.String(p.sig))
			for _, s := range [...]uint32{p.name, p.kind, p.lang, p.pkg, p.at} {
				num(uint64(renum[s] - 1))
			}
			ext := uint64(0)
			if p.external {
				ext = 1
			}
			num(ext)
		}
	}
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
// instead of read, and is never unmapped (the table's strings are the
// file's bytes): only for a process that ends after its index.
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
	if len(b) < len(defTableMagic)+8 || string(b[:len(defTableMagic)]) != defTableMagic {
		return defTable{}, fmt.Errorf("syntax: %s is not a table of definitions", defTableFile)
	}
	body, sum := b[:len(b)-8], binary.LittleEndian.Uint64(b[len(b)-8:])
	if xxhash.Sum64(body) != sum {
		return defTable{}, fmt.Errorf("syntax: the table of definitions %s is damaged (checksum)", defTableFile)
	}
	// The strings stay in the file's bytes, which the table adopts.
	st := newDefStore()
	r := defTableReader{factDecoder: factDecoder{data: unsafe.String(&body[0], len(body)), off: len(defTableMagic)}, ref: st.text.Adopt(body)}
	if v := r.uint(); v != defTableVersion {
		return defTable{}, fmt.Errorf("syntax: the table of definitions has layout %d, not %d", v, defTableVersion)
	}
	if t := r.uint(); t != uint64(token) {
		return defTable{}, errStaleDefTable
	}
	n := r.count()
	st.byStr.Reserve(n)
	st.strs = make([]arena.Ref, 0, n)
	for range n {
		// Distinct as written (the checksum vouches for the bytes), so
		// inserted without a look-up first.
		s, ref := r.str()
		if r.err != nil {
			return defTable{}, r.damaged()
		}
		st.strs = append(st.strs, ref)
		st.byStr.Insert(s, uint32(len(st.strs)-1))
	}
	docs := r.count()
	t := defTable{st: st, runs: make(map[string][2]int32, docs)}
	for range docs {
		path, _ := r.str()
		k := r.count()
		lo := st.n
		for range k {
			var d packedDef
			_, d.id = r.str()
			_, d.sig = r.str()
			for _, f := range [...]*uint32{&d.name, &d.kind, &d.lang, &d.pkg, &d.at} {
				i := r.uint()
				if i >= uint64(len(st.strs)) {
					r.fail("a string out of range")
					return defTable{}, r.damaged()
				}
				*f = uint32(i)
			}
			d.external = r.bool()
			if r.err != nil {
				return defTable{}, r.damaged()
			}
			st.append(d)
		}
		if _, dup := t.runs[path]; dup || k == 0 {
			r.fail("a document twice or empty")
			return defTable{}, r.damaged()
		}
		t.runs[path] = [2]int32{lo, st.n}
	}
	if r.err == nil && r.off != len(r.data) {
		r.fail("trailing bytes")
	}
	if r.err != nil {
		return defTable{}, r.damaged()
	}
	return t, nil
}

// defTableReader reads the fields of a table of definitions: the numbers
// as a fact record's (factDecoder), each string its length and bytes,
// returned with its Ref in the arena that adopted the file (ref).
type defTableReader struct {
	factDecoder
	ref func(off, n int) arena.Ref
}

// str reads a string: a view of the file's bytes, and its Ref.
func (r *defTableReader) str() (string, arena.Ref) {
	n := r.count()
	if r.err != nil || n == 0 {
		return "", arena.Ref{}
	}
	off := r.off
	r.off += n
	return r.data[off:r.off], r.ref(off, n)
}

// damaged is the reader's error, as a damaged table's.
func (r *defTableReader) damaged() error {
	return fmt.Errorf("syntax: the table of definitions %s is damaged: %w", defTableFile, r.err)
}
