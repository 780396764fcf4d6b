package syntax

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// testDocStates returns states of three documents: one with a lookups
// record, one skipped (no keys), one without a record.
func testDocStates() map[string]docState {
	rec := string(encodeDocRecord(rootfs.Stamp{Size: 120, MTime: 1700000000123456789}, SkipNone,
		[]projectAnswer{{Query: 1, Arg: "go.mod", A: "example.com/m"}}, map[uint32]struct{}{7: {}, 3: {}}))
	skipped := string(encodeDocRecord(rootfs.Stamp{Size: 9}, SkipGenerated, nil, nil))
	return map[string]docState{
		"a/a.go":     newDocState("sha256:aa", "go", rec),
		"gen/z.go":   newDocState("sha256:zz", "go", skipped),
		"py/b.py":    newDocState("sha256:bb", "python", ""),
		"ünïcode.ts": newDocState("sha256:cc", "typescript", rec),
	}
}

// writeTestDocStates writes states into dir under token.
func writeTestDocStates(t *testing.T, dir string, token int, states map[string]docState) []byte {
	t.Helper()
	if err := startDocStates(dir, token, states).install(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, docStatesFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDocStatesRoundTrip: the file gives back every document's hash,
// language and lookups record, the record decoded as the store's would be.
func TestDocStatesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := testDocStates()
	writeTestDocStates(t, dir, 42, want)
	got, err := readDocStates(dir, 42, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d documents, wrote %d", len(got), len(want))
	}
	for p, w := range want {
		g := got[p]
		if g.hash != w.hash || g.language != w.language || g.lookups != w.lookups || g.hasRec != w.hasRec ||
			g.rec.stat != w.rec.stat || g.rec.skipped != w.rec.skipped || g.rec.keys != w.rec.keys || len(g.rec.asked) != len(w.rec.asked) {
			t.Errorf("%s: read %+v, wrote %+v", p, g, w)
		}
	}
	if !got["a/a.go"].hasRec || got["py/b.py"].hasRec {
		t.Error("a record was lost, or one made up")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, docStatesFile+"-*.tmp")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestDocStatesRefused: a file of another commit, damaged, cut short, of
// another layout or not such a file is an error, never states.
func TestDocStatesRefused(t *testing.T) {
	dir := t.TempDir()
	good := writeTestDocStates(t, dir, 7, testDocStates())
	name := filepath.Join(dir, docStatesFile)
	if _, err := readDocStates(dir, 8, false); !errors.Is(err, errStaleDocStates) {
		t.Errorf("another token: %v, want errStaleDocStates", err)
	}
	resealed := func(b []byte) []byte {
		b = b[:len(b)-8]
		return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
	}
	version := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(version[len(docStatesMagic):], docStatesVersion+1)
	count := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(count[len(count)-16:], 5)
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x40
	for _, c := range []struct {
		name, want string
		b          []byte
	}{
		{"flipped byte", "checksum", flipped},
		{"cut short", "checksum", good[:len(good)-20]},
		{"empty", "not a file", nil},
		{"another file", "not a file", []byte(strings.Repeat("lspgraph syntax definitions\n", 3))},
		{"another layout", "layout", version},
		{"a document more than it holds", "cut short", resealed(count)},
		{"bytes after the documents", "bytes after", resealed(append(append(good[:len(good)-16:len(good)-16], 0), good[len(good)-16:]...))},
	} {
		if err := os.WriteFile(name, c.b, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, mapped := range []bool{false, true} {
			states, err := readDocStates(dir, 7, mapped)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s (mapped %v): %d states, error %v; want one saying %q", c.name, mapped, len(states), err, c.want)
			}
		}
	}
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	if _, err := readDocStates(dir, 7, false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no file: %v", err)
	}
}

// FuzzReadDocStates reads files whose body is anything and whose checksum
// holds: the fields are parsed, never a panic, and what is read
// has as many documents as the count says.
func FuzzReadDocStates(f *testing.F) {
	dir := f.TempDir()
	good, err := os.ReadFile(func() string {
		if err := startDocStates(dir, 3, testDocStates()).install(); err != nil {
			f.Fatal(err)
		}
		return filepath.Join(dir, docStatesFile)
	}())
	if err != nil {
		f.Fatal(err)
	}
	head := len(docStatesMagic) + 16
	f.Add(uint64(4), good[head:len(good)-16])
	f.Add(uint64(1), []byte{3, 'a', '.', 'g', 'o', 0, 0, 0})
	f.Add(uint64(2), []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, n uint64, body []byte) {
		b := append([]byte(nil), good[:head]...)
		b = append(b, body...)
		b = binary.LittleEndian.AppendUint64(b, n)
		b = binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, docStatesFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
		states, err := readDocStates(d, 3, false)
		if err == nil && uint64(len(states)) > n {
			t.Errorf("%d states read, the count says %d", len(states), n)
		}
	})
}
