package graph

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// largeValue is the value length from which a generation writer keeps a
// record out of its chunks: the value is written once, as it comes, to the
// generation's value file, and only its key and place are sorted; the
// final merge reads it back into its sstable. A document's doc-first
// records (its symbols, occurrences and edges, whole) are most of a
// generation's bytes in few records: in the pebble corpus 36 of 66 MB in
// 2,200 of 325,000 records. Through the chunks each of their bytes was
// copied into a chunk, compressed into a run file, read back and
// decompressed for the merge before its sstable compressed it again.
const largeValue = 2 << 10

// valueFile holds the large values of a generation's records (see
// largeValue) until the generation's records are merged. It is never
// synced: a generation that does not commit is discarded, and Open removes
// its remains as it does run files'.
type valueFile struct {
	path string
	f    vfs.File
	w    *bufio.Writer
	off  int64 // bytes written
	raw  int64 // bytes of the records held, keys and values
	// refs maps each record's key to its value's place in the file
	// (valueRef); of equal keys the last added wins, as in a chunk.
	refs chunk
	ref  [12]byte
}

// createValueFile creates the value file path.
func (s *Store) createValueFile(path string) (*valueFile, error) {
	f, err := s.fs.Create(path, "")
	if err != nil {
		return nil, fmt.Errorf("graph: creating %s: %w", path, err)
	}
	return &valueFile{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// add writes the record k, v: v to the file, k to the refs.
func (vf *valueFile) add(k, v []byte) error {
	if uint64(len(v)) > maxRunRecord {
		return fmt.Errorf("graph: writing %s: a value of %d bytes", vf.path, len(v))
	}
	binary.BigEndian.PutUint64(vf.ref[:8], uint64(vf.off))
	binary.BigEndian.PutUint32(vf.ref[8:], uint32(len(v)))
	if _, err := vf.w.Write(v); err != nil {
		return fmt.Errorf("graph: writing %s: %w", vf.path, err)
	}
	vf.refs.add(k, vf.ref[:])
	vf.off += int64(len(v))
	vf.raw += int64(len(k) + len(v))
	return nil
}

// finishWriting writes out what is buffered and sorts the refs, so that
// the records can be read in key order.
func (vf *valueFile) finishWriting() error {
	if err := vf.w.Flush(); err != nil {
		return fmt.Errorf("graph: writing %s: %w", vf.path, err)
	}
	vf.refs.sortDedup()
	return nil
}

// remove closes and removes the file.
func (vf *valueFile) remove(fs vfs.FS) {
	_ = vf.f.Close()
	_ = fs.Remove(vf.path)
}

// valueRef decodes a ref: where a value starts in the file and its length.
func valueRef(ref []byte) (off int64, n int, err error) {
	if len(ref) != 12 {
		return 0, 0, fmt.Errorf("a value reference of %d bytes", len(ref))
	}
	return int64(binary.BigEndian.Uint64(ref)), int(binary.BigEndian.Uint32(ref[8:])), nil
}

// chunkSpan returns the sorted chunk c's entries with keys in [lo, hi)
// (nil for no bound) as [start, end).
func chunkSpan(c *chunk, lo, hi []byte) (start, end int) {
	byKey := func(e chunkEntry, k []byte) int { return bytes.Compare(c.key(e), k) }
	start, end = 0, len(c.ents)
	if lo != nil {
		start, _ = slices.BinarySearchFunc(c.ents, lo, byKey)
	}
	if hi != nil {
		end, _ = slices.BinarySearchFunc(c.ents, hi, byKey)
	}
	return start, max(start, end)
}

// valueFileSource reads the records [i, end) of a value file whose refs
// are sorted, each value read into one buffer it reuses.
type valueFileSource struct {
	vf     *valueFile
	i, end int
	buf    []byte
}

func (s *valueFileSource) next() ([]byte, []byte, bool, error) {
	if s.i >= s.end {
		return nil, nil, false, nil
	}
	e := s.vf.refs.ents[s.i]
	s.i++
	off, n, err := valueRef(s.vf.refs.value(e))
	if err == nil && off+int64(n) > s.vf.off {
		err = fmt.Errorf("a value from byte %d to %d of %d", off, off+int64(n), s.vf.off)
	}
	if err == nil {
		s.buf = slices.Grow(s.buf[:0], n)[:n]
		if _, err = s.vf.f.ReadAt(s.buf, off); err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("graph: reading %s: %w", s.vf.path, err)
	}
	return s.vf.refs.key(e), s.buf, true, nil
}
