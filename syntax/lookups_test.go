package syntax

import (
	"errors"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// TestDocRecordRoundTrip: a record decodes to what was encoded, keys
// sorted, and one cut anywhere is refused as corrupt.
func TestDocRecordRoundTrip(t *testing.T) {
	st := rootfs.Stamp{Size: 1234, MTime: -5}
	asked := []projectAnswer{{queryGoPackage, "net/http", "std/net/http", ""}, {queryTSModule, "a/b.ts", "pkg", "pkg/a/b"}}
	looked := map[uint32]struct{}{7: {}, 1 << 31: {}, 3: {}}
	b := encodeDocRecord(st, SkipGenerated, asked, looked)
	rec, err := decodeDocRecord(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if rec.stat != st || rec.skipped != SkipGenerated || !slices.Equal(rec.asked, asked) {
		t.Errorf("decoded %+v", rec)
	}
	var keys []uint32
	for i := range len(rec.keys) / 4 {
		keys = append(keys, rec.key(i))
	}
	if !slices.Equal(keys, []uint32{3, 7, 1 << 31}) {
		t.Errorf("keys %v, want 3 7 2147483648", keys)
	}
	if !rec.looksUp(map[uint32]struct{}{7: {}}) || rec.looksUp(map[uint32]struct{}{8: {}}) {
		t.Error("looksUp answers wrong")
	}
	if again, err := decodeDocRecord(string(rec.restat(rootfs.Stamp{Size: 1, MTime: 2}))); err != nil || again.stat != (rootfs.Stamp{Size: 1, MTime: 2}) ||
		!slices.Equal(again.asked, asked) || again.keys != rec.keys {
		t.Errorf("restat: %+v, %v", again, err)
	}
	for n := range len(b) {
		if _, err := decodeDocRecord(string(b[:n])); !errors.Is(err, errCorrupt) {
			t.Errorf("a record cut to %d bytes: %v", n, err)
		}
	}
}

// FuzzDecodeDocRecord: any bytes are refused or decoded, never a panic,
// and what is decoded encodes back to a record that decodes the same.
func FuzzDecodeDocRecord(f *testing.F) {
	f.Add(encodeDocRecord(rootfs.Stamp{Size: 10, MTime: 20}, SkipNone, []projectAnswer{{queryGoPackage, "a", "m/a", ""}}, map[uint32]struct{}{1: {}, 2: {}}))
	f.Add(encodeDocRecord(rootfs.Stamp{}, SkipHuge, nil, nil))
	f.Add([]byte{lookupsVersion, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := decodeDocRecord(string(b))
		if err != nil {
			return
		}
		again, err := decodeDocRecord(string(rec.restat(rec.stat)))
		if err != nil {
			t.Fatalf("a decoded record encodes to one that does not decode: %v", err)
		}
		if again.stat != rec.stat || again.skipped != rec.skipped || !slices.Equal(again.asked, rec.asked) {
			t.Fatalf("decoded %+v, then %+v", rec, again)
		}
	})
}
