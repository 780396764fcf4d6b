package indexbench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// DumpStats describes what CopyDump wrote.
type DumpStats struct {
	Documents   int   `json:"documents"`
	Occurrences int   `json:"occurrences"`
	Bytes       int64 `json:"bytes"`
}

// CopyDump writes to out a SCIP dump holding the documents of the dump in
// copies times: copy k's documents under the directory "copyK/", and the
// symbols of the packages the dump defines renamed to packages of their
// own ("<package>/copyK"), so that no two copies share a symbol. Symbols
// of other packages (the dependencies' external symbols) stay shared, as
// in a monorepo whose projects use the same libraries.
func CopyDump(in, out string, copies int) (DumpStats, error) {
	var st DumpStats
	data, err := os.ReadFile(in)
	if err != nil {
		return st, fmt.Errorf("reading %s: %w", in, err)
	}
	var idx scip.Index
	if err := proto.Unmarshal(data, &idx); err != nil {
		return st, fmt.Errorf("decoding %s: %w", in, err)
	}
	data = nil
	// The packages the dump defines: those of its documents' symbols.
	own := map[string]bool{}
	for _, d := range idx.Documents {
		for _, s := range d.Symbols {
			if pkg, ok := symbolPackage(s.Symbol); ok {
				own[pkg] = true
			}
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return st, fmt.Errorf("creating %s: %w", out, err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	field := func(num protowire.Number, m proto.Message) error {
		b, err := proto.Marshal(m)
		if err != nil {
			return err
		}
		buf = protowire.AppendTag(buf[:0], num, protowire.BytesType)
		buf = protowire.AppendBytes(buf, b)
		n, err := w.Write(buf)
		st.Bytes += int64(n)
		return err
	}
	if idx.Metadata != nil {
		if err := field(1, idx.Metadata); err != nil {
			return st, fmt.Errorf("writing %s: %w", out, err)
		}
	}
	for k := 1; k <= copies; k++ {
		rename := func(sym string) string { return renameSymbol(sym, own, k) }
		for _, d := range idx.Documents {
			c := proto.Clone(d).(*scip.Document)
			c.RelativePath = "copy" + strconv.Itoa(k) + "/" + c.RelativePath
			for _, o := range c.Occurrences {
				o.Symbol = rename(o.Symbol)
			}
			for _, s := range c.Symbols {
				s.Symbol = rename(s.Symbol)
				s.EnclosingSymbol = rename(s.EnclosingSymbol)
				for _, r := range s.Relationships {
					r.Symbol = rename(r.Symbol)
				}
			}
			if err := field(2, c); err != nil {
				return st, fmt.Errorf("writing %s: %w", out, err)
			}
			st.Documents++
			st.Occurrences += len(c.Occurrences)
		}
	}
	for _, s := range idx.ExternalSymbols {
		if err := field(3, s); err != nil {
			return st, fmt.Errorf("writing %s: %w", out, err)
		}
	}
	if err := w.Flush(); err != nil {
		return st, fmt.Errorf("writing %s: %w", out, err)
	}
	return st, f.Close()
}

// symbolPackage returns the package field of a global SCIP symbol
// ("scheme manager package version descriptors").
func symbolPackage(sym string) (string, bool) {
	if sym == "" || strings.HasPrefix(sym, "local ") {
		return "", false
	}
	f := strings.SplitN(sym, " ", 5)
	if len(f) < 5 {
		return "", false
	}
	return f[2], true
}

// renameSymbol gives a symbol of the packages own copy k's package name.
func renameSymbol(sym string, own map[string]bool, k int) string {
	pkg, ok := symbolPackage(sym)
	if !ok || !own[pkg] {
		return sym
	}
	f := strings.SplitN(sym, " ", 5)
	f[2] = pkg + "/copy" + strconv.Itoa(k)
	return strings.Join(f, " ")
}
