package cachefile

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrVersion is what Open's error wraps when a file is of another
// version: not damaged, written by another release.
var ErrVersion = errors.New("another version")

// Start begins a file of the given magic and version.
func Start(magic string, version byte) []byte {
	return append([]byte(magic), version)
}

// Seal ends a file begun with Start: it appends the SHA-256 of b.
func Seal(b []byte) []byte {
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// AppendString appends s as a uvarint length and its bytes.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Open checks that b is a file of the given magic and version, whole,
// and returns a Decoder of its body. what names the file in errors
// ("source cache file").
func Open(b []byte, magic string, version byte, what string) (*Decoder, error) {
	if len(b) < len(magic)+1+sha256.Size || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("not a %s", what)
	}
	if v := b[len(magic)]; v != version {
		return nil, fmt.Errorf("%s version %d, not %d: %w", what, v, version, ErrVersion)
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); string(got[:]) != string(sum) {
		return nil, fmt.Errorf("%s is damaged (checksum)", what)
	}
	return &Decoder{b: body, off: len(magic) + 1, what: what}, nil
}

// Decoder reads a file's body; the first error sticks, and every read
// after it gives zero.
type Decoder struct {
	b    []byte
	off  int
	err  error
	what string
}

// Err returns the first error.
func (d *Decoder) Err() error { return d.err }

// Fail records an error at the current offset, unless one is recorded.
func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%s is damaged at byte %d: %s", d.what, d.off, fmt.Sprintf(format, args...))
	}
}

// End returns the first error, or one when bytes are left unread.
func (d *Decoder) End() error {
	if d.err == nil && d.off != len(d.b) {
		d.Fail("%d bytes after the end", len(d.b)-d.off)
	}
	return d.err
}

// Uvarint reads an unsigned number.
func (d *Decoder) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.Fail("bad number")
		return 0
	}
	d.off += n
	return v
}

// Varint reads a signed number as binary.AppendVarint writes it.
func (d *Decoder) Varint() int64 {
	x := d.Uvarint()
	v := int64(x >> 1)
	if x&1 != 0 {
		v = ^v
	}
	return v
}

// Int reads a uvarint that must fit an int.
func (d *Decoder) Int() int {
	v := d.Uvarint()
	if v > uint64(maxInt) {
		d.Fail("number %d too large", v)
		return 0
	}
	return int(v)
}

const maxInt = int(^uint(0) >> 1)

// Count reads a count of items each at least min bytes long: no more
// than the bytes left can hold.
func (d *Decoder) Count(min int) int {
	v := d.Uvarint()
	if d.err == nil && v > uint64((len(d.b)-d.off)/min) {
		d.Fail("count %d exceeds what is left", v)
	}
	if d.err != nil {
		return 0
	}
	return int(v)
}

// Str reads a string AppendString wrote.
func (d *Decoder) Str() string {
	n := d.Uvarint()
	if d.err == nil && n > uint64(len(d.b)-d.off) {
		d.Fail("string of %d bytes exceeds what is left", n)
	}
	if d.err != nil {
		return ""
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}

// Index reads a uvarint that must be less than n: an index into a table
// of n items read before.
func (d *Decoder) Index(n int) int {
	i := d.Uvarint()
	if d.err == nil && i >= uint64(n) {
		d.Fail("index %d of %d", i, n)
	}
	if d.err != nil {
		return 0
	}
	return int(i)
}
