package scip

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"google.golang.org/protobuf/encoding/protowire"
)

// memChildEnv makes the test binary a child that streams a dump and
// reports its peak resident set size.
const memChildEnv = "LSPGRAPH_SCIP_MEMCHILD"

// TestMemoryBounded checks that streaming a dump takes memory that does not
// grow with the dump's size: the pebble corpus dump (41 MB), then the same
// documents four times over under other paths (164 MB), each converted in
// a fresh process whose peak RSS is read from /proc: once converting alone,
// once importing into a new store (the store's share — sort chunks, Pebble's
// tables — is bounded by the graph's options, not by the dump).
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB; run without -short")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read the peak RSS")
	}
	small := filepath.Join(corpusDir(t), "tanstack-store-ts.scip")
	large := filepath.Join(corpusDir(t), "pebble-go.scip")
	for _, f := range []string{small, large} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("corpus dump absent: %v", err)
		}
	}
	peak := func(file string, copies int, mode string) int64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryChild$", "-test.v")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d|%s", memChildEnv, file, copies, mode))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		_, rest, ok := strings.Cut(string(out), "peak_kb=")
		if !ok {
			t.Fatalf("child printed no peak:\n%s", out)
		}
		kb, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return kb
	}
	// The fourfold dump is written to a file first, so the child's peak is
	// the importer's alone.
	large4 := filepath.Join(t.TempDir(), "pebble-go-x4.scip")
	f, err := os.Create(large4)
	if err != nil {
		t.Fatal(err)
	}
	if err := multiplyDump(f, large, 4); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"convert", "import"} {
		s := peak(small, 1, mode)
		// The peak is that of the collector's cycles, each letting the
		// heap grow to twice what was live at the one before: a run of a
		// second samples fewer cycles than one of four, and reached its
		// highest in one run of three (112-122 MB where four times the
		// dump took 140-154 MB). The pebble dump's peak is the highest
		// of three runs.
		var l1s []int64
		for range 3 {
			l1s = append(l1s, peak(large, 1, mode)>>10)
		}
		l1 := slices.Max(l1s)
		l4 := peak(large4, 1, mode) >> 10
		t.Logf("peak RSS (%s): tanstack-store-ts (1.3 MB) %d MB; pebble-go (41 MB) %v MB; pebble-go ×4 (164 MB) %d MB", mode, s>>10, l1s, l4)
		// Four times the data may not take noticeably more memory.
		if l4 > l1+l1/4+16 {
			t.Errorf("%s: peak RSS grew with the dump: %d MB for 41 MB, %d MB for 164 MB", mode, l1, l4)
		}
	}
}

// TestMemoryChild is the child of TestMemoryBounded.
func TestMemoryChild(t *testing.T) {
	spec := os.Getenv(memChildEnv)
	if spec == "" {
		t.Skip("run by TestMemoryBounded")
	}
	parts := strings.Split(spec, "|")
	if len(parts) != 3 {
		t.Fatalf("bad %s=%q", memChildEnv, spec)
	}
	file, mode := parts[0], parts[2]
	copies, err := strconv.Atoi(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(multiplyDump(pw, file, copies)) }()
	var sum Summary
	if mode == "import" {
		store, err := graph.Open(filepath.Join(t.TempDir(), "store"), graph.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		sum, err = Import(context.Background(), store, pr, Options{})
		if err != nil {
			t.Fatal(err)
		}
	} else {
		sum, err = ConvertStream(context.Background(), pr, Options{}, func(context.Context, graph.DocumentFacts) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Printf("documents=%d bytes=%d peak_kb=%s\n", sum.Documents, sum.Bytes, strings.Fields(rest)[0])
		}
	}
}

// multiplyDump writes file to w, then copies-1 more times with every
// document under a new path ("copyN/docK"), so that the stream holds copies
// times the documents without duplicates. The copies are made on the wire:
// a relative_path field appended to a document's payload overrides the
// one before it (protobuf: the last value of a field wins).
func multiplyDump(w io.Writer, file string, copies int) error {
	for i := 0; i < copies; i++ {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		err = copyDump(w, bufio.NewReaderSize(f, 1<<20), i)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// copyDump copies one dump record by record, renaming documents when
// copy > 0. Only one record is in memory at a time.
func copyDump(w io.Writer, r *bufio.Reader, copy int) error {
	var payload, rec []byte
	for k := 0; ; k++ {
		tag, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		l, err := binary.ReadUvarint(r)
		if err != nil {
			return err
		}
		payload = slices.Grow(payload[:0], int(l))[:l]
		if _, err := io.ReadFull(r, payload); err != nil {
			return err
		}
		rec = protowire.AppendVarint(rec[:0], tag)
		if copy > 0 && protowire.Number(tag>>3) == fieldDocuments {
			extra := protowire.AppendTag(nil, 1, protowire.BytesType)
			extra = protowire.AppendString(extra, fmt.Sprintf("copy%d/doc%d", copy, k))
			rec = protowire.AppendVarint(rec, uint64(len(payload)+len(extra)))
			rec = append(append(rec, payload...), extra...)
		} else {
			rec = protowire.AppendVarint(rec, l)
			rec = append(rec, payload...)
		}
		if _, err := w.Write(rec); err != nil {
			return err
		}
	}
}
