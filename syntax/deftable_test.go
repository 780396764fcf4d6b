package syntax

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/graph/graphtest"
	"github.com/lspgraph/lspgraph/internal/arena"
)

// TestDefTableEqualsStore indexes real Go packages and holds the table of
// definitions the index leaves beside the store to the one read back from
// the store's symbols: the same documents, each with the same definitions
// in the same order. A table of another commit, a damaged one and a
// missing one are refused.
func TestDefTableEqualsStore(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for _, dir := range []string{"go/token", "go/scanner", "go/ast", "go/types"} {
		copyGoTree(t, root, dir)
	}
	st, err := graph.Open(filepath.Join(t.TempDir(), "store"), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Index(ctx, st, IndexOptions{Root: root, Workers: 2, TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	m := graphtest.BaseManifest(t, st)
	token := m.Extra[extraDefTable]
	if token == 0 {
		t.Fatal("the manifest names no table of definitions")
	}
	// Read into memory, and mapped (as a process that ends after its
	// index reads it).
	got, err := readDefTable(st.Dir(), token, false)
	if err != nil {
		t.Fatal(err)
	}
	mapped, err := readDefTable(st.Dir(), token, true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want, err := storeDefTable(ctx, r, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.runs) != len(want.runs) || len(want.runs) < 50 {
		t.Fatalf("the table holds %d documents, the store %d", len(got.runs), len(want.runs))
	}
	defs := 0
	for path, w := range want.runs {
		for _, got := range []defTable{got, mapped} {
			g, ok := got.runs[path]
			if !ok {
				t.Errorf("%s: in the store, not in the table", path)
				continue
			}
			if gd, wd := got.st.run(g), want.st.run(w); !slices.Equal(gd, wd) {
				t.Errorf("%s: the table's definitions\n%v\nthe store's\n%v", path, gd, wd)
			}
		}
		defs += int(w[1] - w[0])
	}
	if defs < 1000 {
		t.Errorf("only %d definitions compared", defs)
	}
	// The indexes the file holds are the ones a table made of its
	// definitions has.
	for _, got := range []defTable{got, mapped} {
		if got.names == nil {
			t.Fatal("the table holds no indexes")
		}
		runs := slices.Collect(maps.Values(got.runs))
		slices.SortFunc(runs, func(a, b [2]int32) int { return int(a[0] - b[0]) })
		built := newNameTable(got.st, runs)
		a := got.names
		if !slices.Equal(a.byName, built.byName) || !slices.Equal(a.nameNext, built.nameNext) ||
			!slices.Equal(a.byPkgName.keys, built.byPkgName.keys) || !slices.Equal(a.byPkgName.first, built.byPkgName.first) ||
			!slices.Equal(a.byPkgName.next, built.byPkgName.next) || a.byPkgName.shift != built.byPkgName.shift ||
			!maps.EqualFunc(a.files, built.files, func(x, y [2]int32) bool { return x == y }) ||
			!maps.EqualFunc(a.defaults, built.defaults, slices.Equal[[]int32]) {
			t.Error("the file's indexes are not those of a table made of its definitions")
		}
		for i := range int32(len(built.nameNext)) {
			id := built.id(i)
			x, okx := a.symbolIndex(nil, id)
			y, oky := built.symbolIndex(nil, id)
			if x != y || okx != oky {
				t.Fatalf("symbol %s: the file's index gives %d, %v; a table made of it %d, %v", id, x, okx, y, oky)
			}
		}
		for i := range uint32(len(got.st.strs)) {
			if k, ok := got.st.find(got.st.short(i)); !ok || k != i {
				t.Fatalf("string %d (%q): the file's index finds %d, %v", i, got.st.short(i), k, ok)
			}
		}
	}

	if _, err := readDefTable(st.Dir(), token+1, true); !errors.Is(err, errStaleDefTable) {
		t.Errorf("a table read under another token: %v, want errStaleDefTable", err)
	}
	file := filepath.Join(st.Dir(), defTableFile)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for name, damaged := range map[string][]byte{
		"cut short": b[:len(b)/2],
		"a byte flipped": func() []byte {
			c := slices.Clone(b)
			c[len(c)/3] ^= 0x40
			return c
		}(),
		"empty":       nil,
		"not a table": []byte("package main\n"),
	} {
		if err := os.WriteFile(file, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, m := range []bool{false, true} {
			if _, err := readDefTable(st.Dir(), token, m); err == nil {
				t.Errorf("%s: a damaged table was read (mapped: %v)", name, m)
			}
		}
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	for _, m := range []bool{false, true} {
		if _, err := readDefTable(st.Dir(), token, m); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a missing table (mapped: %v): %v", m, err)
		}
	}
}

// FuzzReadDefTable reads tables of definitions whose layout is fuzzed
// (the checksum made right, so that the reading itself is exercised): a
// table is refused or read, never a panic, and what is read holds only
// runs within its definitions and strings within its table.
func FuzzReadDefTable(f *testing.F) {
	st := newDefStore()
	r1 := st.add([]definition{
		{ID: "go p a.F", DisplayName: "F", Kind: "function", Language: "go", Package: "p", Path: "a.go", Signature: "func F()"},
		{ID: "go p a.T", DisplayName: "T", Kind: "struct", Language: "go", Package: "p", Path: "a.go"},
	})
	r2 := st.add([]definition{{ID: "go q b.G", DisplayName: "G", Kind: "method", Language: "go", Package: "q", Path: "b.go", External: true}})
	// The table without its indexes, and with them.
	runs := [][2]int32{r1, r2, {}}
	for _, names := range []*NameTable{nil, newNameTable(st, runs)} {
		dir := f.TempDir()
		if err := writeDefTable(dir, 7, st, []string{"a.go", "b.go", "c.go"}, runs, names); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, defTableFile))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[len(defTableMagic) : len(b)-8])
	}
	f.Add([]byte{1, 7, 0, 0})
	f.Fuzz(func(t *testing.T, body []byte) {
		dir := t.TempDir()
		file := append([]byte(defTableMagic), body...)
		file = binary.LittleEndian.AppendUint64(file, xxhash.Sum64(file))
		if err := os.WriteFile(filepath.Join(dir, defTableFile), file, 0o600); err != nil {
			t.Fatal(err)
		}
		tab, err := readDefTable(dir, 7, false)
		if err != nil {
			return
		}
		if tab.names != nil {
			// Every list the indexes give ends, within the table.
			for k := range uint32(len(tab.st.strs)) {
				name := tab.st.short(k)
				for _, l := range []symbolList{tab.names.named(nil, name, nameAny), tab.names.inPackage(nil, name, name)} {
					n := 0
					for i := range l.all {
						if n++; n > int(tab.st.len()) || i >= tab.st.len() {
							t.Fatalf("a list of %q runs past the table", name)
						}
						_ = tab.names.def(i)
					}
				}
				if i, ok := tab.names.symbolIndex(nil, name); ok {
					_ = tab.names.def(i)
				}
			}
		}
		for path, r := range tab.runs {
			if r[0] < 0 || r[1] > tab.st.len() || r[0] >= r[1] {
				t.Fatalf("%s: run %v of %d definitions", path, r, tab.st.len())
			}
			for _, d := range tab.st.run(r) {
				_ = d.ID + d.DisplayName + d.Kind + d.Language + d.Package + d.Path + d.Signature
			}
		}
	})
}

// TestPendingDefTable: a table written beside a commit is in place once
// installed, and leaves nothing behind when discarded.
func TestPendingDefTable(t *testing.T) {
	st := newDefStore()
	r := st.add([]definition{{ID: "go p a.F", DisplayName: "F", Kind: "function", Language: "go", Package: "p", Path: "a.go"}})
	dir := t.TempDir()
	// The remains of a write killed long ago go; a recent one may be
	// another process's, and stays.
	old, recent := filepath.Join(dir, defTableFile+"-1.tmp"), filepath.Join(dir, defTableFile+"-2.tmp")
	for _, n := range []string{old, recent} {
		if err := os.WriteFile(n, []byte("cut short"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	startDefTable(dir, 3, st, []string{"a.go"}, [][2]int32{r}, nil).discard()
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a temporary table an hour old was left: %v", err)
	}
	if err := os.Remove(recent); err != nil {
		t.Errorf("a recent temporary table was removed: %v", err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
		t.Fatalf("a discarded table left %v", names)
	}
	if err := startDefTable(dir, 3, st, []string{"a.go"}, [][2]int32{r}, nil).install(); err != nil {
		t.Fatal(err)
	}
	tab, err := readDefTable(dir, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.st.run(tab.runs["a.go"]); len(got) != 1 || got[0].ID != "go p a.F" || got[0].Path != "a.go" {
		t.Errorf("installed table holds %v", got)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Errorf("an installed table left %v", names)
	}
}

// TestDefTableLayout holds the structs a table of definitions is read
// into, where it lies, to the layout its file is written in.
func TestDefTableLayout(t *testing.T) {
	var d packedDef
	var r arena.Ref
	for _, c := range []struct {
		what      string
		got, want uintptr
	}{
		{"arena.Ref", unsafe.Sizeof(r), refSize},
		{"packedDef", unsafe.Sizeof(d), packedDefSize},
		{"packedDef.id", unsafe.Offsetof(d.id), 0},
		{"packedDef.sig", unsafe.Offsetof(d.sig), refSize},
		{"packedDef.name", unsafe.Offsetof(d.name), 2 * refSize},
		{"packedDef.at", unsafe.Offsetof(d.at), 2*refSize + 16},
		{"packedDef.external", unsafe.Offsetof(d.external), 44},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
}

// TestNameTableClasses: the index by name serves a name's members and its
// other definitions apart, and both together in the table's order, in a
// table built and in one read back from its file.
func TestNameTableClasses(t *testing.T) {
	def := func(id, kind, path string) definition {
		return definition{ID: id, DisplayName: "Close", Kind: kind, Language: "go", Package: "p", Path: path}
	}
	st := newDefStore()
	runs := [][2]int32{
		st.add([]definition{def("a.Close", "function", "a.go"), def("a.T#Close", "method", "a.go")}),
		st.add([]definition{def("b.U#Close", "method", "b.go"), def("b.Close", "variable", "b.go")}),
		st.add([]definition{def("c.V#Close", "field", "c.go"), {ID: "c.New", DisplayName: "New", Kind: "constructor", Language: "go", Package: "p", Path: "c.go"}}),
	}
	built := newNameTable(st, runs)
	check := func(what string, tab *NameTable) {
		t.Helper()
		ids := func(class int) []string {
			l := tab.named(nil, "Close", class)
			var out []string
			for i := range l.all {
				out = append(out, tab.id(i))
			}
			return out
		}
		for class, want := range map[int][]string{
			nameAny:    {"a.Close", "a.T#Close", "b.U#Close", "b.Close", "c.V#Close"},
			nameMember: {"a.T#Close", "b.U#Close", "c.V#Close"},
			nameOther:  {"a.Close", "b.Close"},
		} {
			if got := ids(class); !slices.Equal(got, want) {
				t.Errorf("%s: class %d: %q, want %q", what, class, got, want)
			}
		}
		named, err := tab.Named(context.Background(), "Close")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range named {
			got = append(got, s.ID)
		}
		if want := []string{"a.Close", "a.T#Close", "b.U#Close", "b.Close", "c.V#Close"}; !slices.Equal(got, want) {
			t.Errorf("%s: Named: %q, want %q", what, got, want)
		}
	}
	check("built", built)
	dir := t.TempDir()
	if err := writeDefTable(dir, 7, st, []string{"a.go", "b.go", "c.go"}, runs, built); err != nil {
		t.Fatal(err)
	}
	read, err := readDefTable(dir, 7, false)
	if err != nil {
		t.Fatal(err)
	}
	if read.names == nil {
		t.Fatal("the table read back has no indexes")
	}
	check("read back", read.names)
}
