package overlay

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/freshness"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lang"
	"github.com/lspgraph/lspgraph/syntax"
)

// step is one change to the workspace, made by the script.
type step struct {
	name string
	do   func(w *workspace, ov *Overlay)
	// buffers are the unsaved editor buffers after the step.
	buffers func(w *workspace) map[string][]byte
}

// goScript walks a history over testdata/goapp: every kind of change the
// overlay must follow, committed, staged, unstaged and unsaved.
func goScript() []step {
	const summarize = `
// Summarize describes a product with a normalized SKU.
func Summarize(sku, name string) string {
	return Describe(normalizeSKU(sku), name)
}
`
	const describeFile = `package service

import "example.com/goapp/store"

// Describe formats a product for display. Nothing calls it.
func Describe(sku, name string) string {
	return store.Entry{Key: sku, Value: name}.String()
}
`
	unsaved := func(w *workspace) []byte {
		return []byte(strings.Replace(w.read("service/catalog.go"), "// Lookup returns", `// Restore saves a product again.
func (c *Catalog) Restore(sku string) error {
	name, err := c.Lookup(sku)
	if err != nil {
		return err
	}
	return c.Save(sku, Summarize(sku, name))
}

// Lookup returns`, 1))
	}
	return []step{
		{name: "add a function (unstaged)", do: func(w *workspace, _ *Overlay) {
			w.write("service/catalog.go", w.read("service/catalog.go")+summarize)
			w.edit("cmd/goapp/main.go", "fmt.Println(service.Banner, n)", "fmt.Println(service.Banner, n, service.Summarize(\"a\", \"b\"))")
			// Uses a field of Catalog from another file: c.st.Get resolves
			// through the field's declared type.
			w.write("service/audit.go", "package service\n\n// Audit reads a product through the catalog's store.\nfunc Audit(c *Catalog, sku string) (string, error) {\n\treturn c.st.Get(sku)\n}\n")
		}},
		{name: "delete a function (committed)", do: func(w *workspace, _ *Overlay) {
			w.edit("store/memstore/mem.go", `// Len reports how many keys are stored.
func (m *Mem) Len() int {
	return len(m.data)
}
`, "")
			w.commit("delete Len")
		}},
		{name: "rename a file (staged)", do: func(w *workspace, _ *Overlay) {
			w.git("mv", "store/memstore/mem.go", "store/memstore/memory.go")
		}},
		{name: "move a function between files (untracked)", do: func(w *workspace, _ *Overlay) {
			w.edit("service/catalog.go", `// Describe formats a product for display. Nothing calls it.
func Describe(sku, name string) string {
	return store.Entry{Key: sku, Value: name}.String()
}
`, "")
			w.write("service/describe.go", describeFile)
		}},
		{name: "change a signature", do: func(w *workspace, _ *Overlay) {
			w.edit("service/catalog.go", "func NewCatalog(st store.Store) *Catalog {", "func NewCatalog(st store.Store, name string) *Catalog {")
			w.edit("store/store.go", "Put(key, value string) error", "Put(key, value string, ttl int) error")
		}},
		{name: "change a field's type", do: func(w *workspace, _ *Overlay) {
			w.edit("service/catalog.go", "\tst store.Store\n}", "\tst *memstore.Mem\n}")
		}},
		{name: "delete a file (unstaged)", do: func(w *workspace, _ *Overlay) {
			w.git("rm", "-q", "--cached", "store/filestore/file.go")
			w.git("commit", "-q", "-m", "untrack filestore")
			w.write(".gitignore", "store/filestore/\n")
		}},
		{name: "switch branch", do: func(w *workspace, _ *Overlay) {
			w.commit("work in progress")
			w.git("checkout", "-q", "-b", "other", w.git("rev-list", "--max-parents=0", "HEAD"))
			w.write("store/cache/cache.go", `package cache

import "example.com/goapp/store"

// Cache keeps the last value read.
type Cache struct {
	Next store.Store
	last string
}

// Get reads through to Next.
func (c *Cache) Get(key string) (string, error) {
	v, err := c.Next.Get(key)
	c.last = v
	return v, err
}

// Put writes through to Next.
func (c *Cache) Put(key, value string) error {
	return c.Next.Put(key, value)
}
`)
			w.edit("service/catalog.go", "return c.st.Get(sku)", "return c.st.Get(normalizeSKU(sku))")
			w.commit("cache")
		}},
		{name: "unsaved edit", do: func(w *workspace, ov *Overlay) {
			ov.BufferChanged("service/catalog.go", unsaved(w))
			if err := ov.Flush(context.Background()); err != nil {
				w.t.Fatal(err)
			}
		}, buffers: func(w *workspace) map[string][]byte {
			return map[string][]byte{"service/catalog.go": unsaved(w)}
		}},
		{name: "close the buffer", do: func(w *workspace, ov *Overlay) {
			ov.BufferClosed("service/catalog.go")
		}},
		{name: "back to the base commit", do: func(w *workspace, _ *Overlay) {
			w.git("checkout", "-q", "main")
			w.git("checkout", "-q", w.git("rev-list", "--max-parents=0", "HEAD"))
			w.write(".gitignore", "")
			w.git("checkout", "-q", "--", ".")
		}},
	}
}

// TestIncrementalEqualsFullRebuild is the regression net for ghost and
// missing edges: after every step of a scripted history, the base built at
// the first commit plus the overlay answers exactly as a fresh syntax index
// of the files as they are.
func TestIncrementalEqualsFullRebuild(t *testing.T) {
	for _, fx := range []struct {
		fixture string
		script  func() []step
	}{
		{"goapp", goScript},
		{"pyproject", pyScript},
		{"tsworkspace", tsScript},
	} {
		for _, mode := range []string{"proxy", "cli"} {
			t.Run(fx.fixture+"/"+mode, func(t *testing.T) {
				replay(t, fx.fixture, mode, fx.script())
			})
		}
	}
}

// replay runs a script over a fixture and compares after every step. In
// "cli" mode every step gets a new Overlay that only has the record file
// (buffer steps are left out); in "proxy" mode one Overlay lives throughout.
func replay(t *testing.T, fixture, mode string, script []step) {
	ctx := context.Background()
	w := newWorkspace(t, fixture)
	base := w.git("rev-parse", "HEAD")
	store := fullIndex(t, t.Name()+"/incremental", w.root, base, nil)
	state := filepath.Join(t.TempDir(), StateFile)
	open := func() *Overlay {
		ov, err := New(store, Options{Root: w.root, StatePath: state, Debounce: 1 << 40})
		if err != nil {
			t.Fatal(err)
		}
		return ov
	}
	ov := open()
	defer func() { ov.Close() }()
	if st, err := ov.Sync(ctx); err != nil || st.Live != 0 {
		t.Fatalf("sync at the base: %+v, %v", st, err)
	}
	if fi, err := os.Stat(state); err != nil {
		t.Fatalf("no record after a sync: %v", err)
	} else if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("record %s is mode %v, want 0600", state, fi.Mode().Perm())
	}
	for i, s := range script {
		if mode == "cli" && s.buffers != nil {
			continue // buffers live in the proxy's overlay
		}
		s.do(w, ov)
		st, err := ov.Sync(ctx)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		var buffers map[string][]byte
		if s.buffers != nil {
			buffers = s.buffers(w)
		}
		full := fullIndex(t, t.Name()+"/full"+string(rune('a'+i)), w.root, w.git("rev-parse", "HEAD"), buffers)
		compare(t, s.name, answers(t, store), answers(t, full))
		t.Logf("%s: %+v", s.name, st)

		// A second sync with nothing changed does no work.
		again, err := ov.Sync(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if again.Extracted != 0 || again.Returned != 0 {
			t.Errorf("%s: a sync with nothing changed extracted %d and returned %d documents", s.name, again.Extracted, again.Returned)
		}
		if mode == "cli" {
			ov.Close()
			ov = open()
		}
	}
}

// pyScript: the same kinds of change over testdata/pyproject.
func pyScript() []step {
	orders := "shop/orders.py"
	return []step{
		{name: "add a function", do: func(w *workspace, _ *Overlay) {
			w.write("shop/pricing.py", w.read("shop/pricing.py")+"\n\ndef discount(cents: int) -> int:\n    return quote(cents, 1, [FlatRule(5)])\n")
			w.write(orders, w.read(orders)+"\n\ndef discounted(cents: int) -> int:\n    return pricing.discount(cents)\n")
		}},
		{name: "delete a function with callers (committed)", do: func(w *workspace, _ *Overlay) {
			w.edit("shop/users.py", `def quote(base_cents: int, months: int) -> int:
    """Return a credit quota, with a 10% bonus from ten months on."""
    total = base_cents * months
    if months >= 10:
        total += total // 10
    return total
`, "")
			w.commit("drop users.quote")
		}},
		{name: "rename a module", do: func(w *workspace, _ *Overlay) {
			w.git("mv", "shop/users.py", "shop/accounts.py")
		}},
		{name: "move a class between modules", do: func(w *workspace, _ *Overlay) {
			w.edit("shop/pricing.py", `class FlatRule(PriceRule):
    """Takes a fixed amount off."""

    def __init__(self, off_cents: int) -> None:
        self.off_cents = off_cents

    def apply(self, cents: int) -> int:
        return max(0, cents - self.off_cents)
`, "")
			w.write("shop/flat.py", `from shop.pricing import PriceRule


class FlatRule(PriceRule):
    """Takes a fixed amount off."""

    def __init__(self, off_cents: int) -> None:
        self.off_cents = off_cents

    def apply(self, cents: int) -> int:
        return max(0, cents - self.off_cents)
`)
		}},
		{name: "rename a base-class method another module overrides", do: func(w *workspace, _ *Overlay) {
			w.edit("shop/pricing.py", `    def apply(self, cents: int) -> int:
        """Return the price after the rule; the base rule changes nothing."""`, `    def apply_to(self, cents: int) -> int:
        """Return the price after the rule; the base rule changes nothing."""`)
		}},
		{name: "unsaved edit", do: func(w *workspace, ov *Overlay) {
			ov.BufferChanged(orders, []byte(w.read(orders)+"\n\ndef rush(cents: int) -> int:\n    return discounted(cents) + quote(cents, 2)\n"))
			if err := ov.Flush(context.Background()); err != nil {
				w.t.Fatal(err)
			}
		}, buffers: func(w *workspace) map[string][]byte {
			return map[string][]byte{orders: []byte(w.read(orders) + "\n\ndef rush(cents: int) -> int:\n    return discounted(cents) + quote(cents, 2)\n")}
		}},
		{name: "close the buffer and undo", do: func(w *workspace, ov *Overlay) {
			ov.BufferClosed(orders)
			w.git("checkout", "-q", "-f", w.git("rev-list", "--max-parents=0", "HEAD"))
			w.git("clean", "-q", "-fd")
		}},
	}
}

// tsScript: the same kinds of change over testdata/tsworkspace.
func tsScript() []step {
	order := "packages/order/src/index.ts"
	return []step{
		{name: "add a function", do: func(w *workspace, _ *Overlay) {
			w.write("packages/pricing/src/rules.ts", w.read("packages/pricing/src/rules.ts")+"\n/** half applies a 50% rule. */\nexport function half(cents: number): number {\n  return new PercentRule(50).apply(cents);\n}\n")
			w.write(order, w.read(order)+"\nexport function halfOff(line: OrderLine): number {\n  return half(line.unitCents);\n}\n")
		}},
		{name: "delete a function with callers (committed)", do: func(w *workspace, _ *Overlay) {
			w.edit("packages/user/src/index.ts", `/** quote returns a credit quota; it only looks like @shop/pricing's quote. */
export function quote(baseCents: number, months: number): number {
  let total = baseCents * months;
  if (months >= 10) {
    total += total / 10;
  }
  return total;
}
`, "")
			w.commit("drop user quote")
		}},
		{name: "rename a module", do: func(w *workspace, _ *Overlay) {
			w.git("mv", "packages/pricing/src/rules.ts", "packages/pricing/src/rule.ts")
		}},
		{name: "move a function between files", do: func(w *workspace, _ *Overlay) {
			w.edit("packages/pricing/src/index.ts", `/** quote prices qty units at unitCents each, then applies every rule in order. */
export function quote(unitCents: number, qty: number, rules: PriceRule[] = []): number {
  let total = unitCents * qty;
  for (const rule of rules) {
    total = rule.apply(total);
  }
  return total;
}
`, "export { quote } from \"./quote\";\n")
			w.write("packages/pricing/src/quote.ts", `import { PriceRule } from "./rules";

/** quote prices qty units at unitCents each, then applies every rule in order. */
export function quote(unitCents: number, qty: number, rules: PriceRule[] = []): number {
  let total = unitCents * qty;
  for (const rule of rules) {
    total = rule.apply(total);
  }
  return total;
}
`)
		}},
		{name: "unsaved edit", do: func(w *workspace, ov *Overlay) {
			ov.BufferChanged(order, []byte(w.read(order)+"\nexport function twice(line: OrderLine): number {\n  return halfOff(line) + skuKey(line.sku).length;\n}\n"))
			if err := ov.Flush(context.Background()); err != nil {
				w.t.Fatal(err)
			}
		}, buffers: func(w *workspace) map[string][]byte {
			return map[string][]byte{order: []byte(w.read(order) + "\nexport function twice(line: OrderLine): number {\n  return halfOff(line) + skuKey(line.sku).length;\n}\n")}
		}},
		{name: "close the buffer and undo", do: func(w *workspace, ov *Overlay) {
			ov.BufferClosed(order)
			w.git("checkout", "-q", "-f", w.git("rev-list", "--max-parents=0", "HEAD"))
			w.git("clean", "-q", "-fd")
		}},
	}
}

// TestSyncLayer checks the live layer's documents after each kind of
// change: tombstones, renames, buffers and their digests.
func TestSyncLayer(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t, "goapp")
	base := w.git("rev-parse", "HEAD")
	store := fullIndex(t, t.Name()+"/store", w.root, base, nil)
	ov, err := New(store, Options{Root: w.root, Debounce: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer ov.Close()

	w.git("mv", "store/memstore/mem.go", "store/memstore/memory.go")
	w.git("rm", "-q", "store/filestore/file.go")
	w.write("service/new.go", "package service\n\nfunc Fresh() {}\n")
	if _, err := ov.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ov.BufferChanged("cmd/goapp/main.go", []byte(w.read("cmd/goapp/main.go")+"\nfunc extra() { run(nil) }\n"))
	ov.BufferChanged("store/store.go", []byte(w.read("store/store.go"))) // open, not modified
	if err := ov.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range r.LiveDocuments() {
		d, _, err := r.Document(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		kind, _, _ := strings.Cut(d.Digest, ":")
		got[p] = kind
	}
	want := map[string]string{
		"cmd/goapp/main.go":        "buffer",
		"service/new.go":           "disk",
		"store/filestore/file.go":  freshness.DigestDeleted,
		"store/memstore/mem.go":    freshness.DigestDeleted,
		"store/memstore/memory.go": "disk",
		// Dependents: unchanged, but they use Get and Put, whose
		// definitions in file.go are gone.
		"service/catalog.go":         "disk",
		"store/memstore/mem_test.go": "disk",
	}
	if len(got) != len(want) {
		t.Errorf("live documents = %v; want %v", got, want)
	}
	for p, k := range want {
		if got[p] != k {
			t.Errorf("live %s = %q; want %q", p, got[p], k)
		}
	}
	if syms, _ := r.DocumentSymbols(ctx, "store/filestore/file.go"); len(syms) != 0 {
		t.Errorf("a deleted document still defines %d symbols", len(syms))
	}
	if d := ov.Dirty(); len(d) != 1 || d[0] != "cmd/goapp/main.go" {
		t.Errorf("Dirty = %v", d)
	}
	b, err := freshness.Compute(ctx, r, w.root)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if b.Partial || len(b.Dirty) != 1 || len(b.Changed) != 4 || len(b.Live) != 7 {
		t.Errorf("freshness after sync = %+v", b)
	}

	// Closing the buffer and undoing the work tree gives everything back.
	ov.BufferClosed("cmd/goapp/main.go")
	ov.BufferClosed("store/store.go")
	w.git("reset", "-q", "--hard")
	w.git("clean", "-q", "-fd")
	if _, err := ov.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	r, err = store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if live := r.LiveDocuments(); len(live) != 0 {
		t.Errorf("live documents after undoing everything: %v", live)
	}
	m, ok, err := r.Manifest(graph.Live)
	if err != nil || !ok || m.Documents != 0 {
		t.Errorf("live manifest = %+v, %v, %v", m, ok, err)
	}
}

// TestLanguageServerFactsTakePrecedence: live facts the proxy wrote from the
// language server for a document's current text are not replaced by syntax;
// once the text moves on, they are.
func TestLanguageServerFactsTakePrecedence(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t, "goapp")
	store := fullIndex(t, t.Name()+"/store", w.root, w.git("rev-parse", "HEAD"), nil)
	ov, err := New(store, Options{Root: w.root, Debounce: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer ov.Close()
	if _, err := ov.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	const p = "service/catalog.go"
	w.write(p, w.read(p)+"\nfunc Extra() {}\n")
	lsp := graph.DocumentFacts{
		Document: graph.Document{Path: p, Language: "go", Source: graph.SourceLSP, ContentHash: lang.HashContent([]byte(w.read(p)))},
		Symbols:  []graph.Symbol{{ID: "lsp service/catalog.go:67:6", DisplayName: "Extra", Kind: "function", Def: graph.Location{Path: p}}},
	}
	if err := store.PutDocument(ctx, graph.Live, lsp); err != nil {
		t.Fatal(err)
	}
	source := func() string {
		r, err := store.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		d, _, err := r.Document(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return d.Source
	}
	if _, err := ov.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := source(); got != graph.SourceLSP {
		t.Errorf("after a sync of the text the server saw, %s is answered from %q; want lsp", p, got)
	}
	w.write(p, w.read(p)+"\nfunc Later() {}\n")
	if _, err := ov.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := source(); got != graph.SourceSyntax {
		t.Errorf("after the text changed again, %s is answered from %q; want syntax", p, got)
	}
}

// TestUnknownLiveLayer: a live layer the overlay has no record of is reset
// to the base, except for the language server's facts.
func TestUnknownLiveLayer(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t, "goapp")
	store := fullIndex(t, t.Name()+"/store", w.root, w.git("rev-parse", "HEAD"), nil)
	for _, d := range []graph.Document{
		{Path: "store/store.go", Language: "go", Source: graph.SourceLSP},
		{Path: "service/catalog.go", Language: "go", Source: graph.SourceSyntax, Digest: freshness.DigestDeleted},
	} {
		if err := store.PutDocument(ctx, graph.Live, graph.DocumentFacts{Document: d}); err != nil {
			t.Fatal(err)
		}
	}
	ov, err := New(store, Options{Root: w.root, Debounce: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer ov.Close()
	if _, err := ov.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if live := r.LiveDocuments(); len(live) != 1 || live[0] != "store/store.go" {
		t.Errorf("live documents = %v; want only the language server's store/store.go", live)
	}
}

// TestBufferDebounce: an edited buffer reaches the live layer by itself
// once the debounce passes, without a Sync or Flush.
func TestBufferDebounce(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t, "goapp")
	store := fullIndex(t, t.Name()+"/store", w.root, w.git("rev-parse", "HEAD"), nil)
	ov, err := New(store, Options{Root: w.root, Debounce: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ov.Close()
	if _, err := ov.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ov.BufferChanged("service/catalog.go", []byte(w.read("service/catalog.go")+"\nfunc Typed() {}\n"))
	deadline := time.Now().Add(20 * time.Second)
	for {
		if d := ov.Dirty(); len(d) == 1 && d[0] == "service/catalog.go" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the edited buffer never reached the live layer")
		}
		time.Sleep(5 * time.Millisecond)
	}
	r, err := store.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms, err := r.FindSymbols(ctx, "Typed", false, 0)
	if err != nil || len(syms) != 1 {
		t.Errorf("FindSymbols(Typed) = %v, %v; want the buffer's new function", syms, err)
	}
}

// TestSyncAfterIndexingTheWorkTree: a syntax index of a work tree that
// differs from HEAD holds the changed files as they are, so that a sync
// extracts none of them again (and the freshness block counts them
// covered); a file changed after the index is extracted, one changed back
// returns to the base; after every step the graph answers as a full
// index of the tree.
func TestSyncAfterIndexingTheWorkTree(t *testing.T) {
	ctx := context.Background()
	w := newWorkspace(t, "goapp")
	store := fullIndex(t, t.Name()+"/base", w.root, w.git("rev-parse", "HEAD"), nil)
	ov, err := New(store, Options{Root: w.root, StatePath: filepath.Join(t.TempDir(), StateFile), Debounce: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer ov.Close()
	script := goScript()
	script[0].do(w, ov) // three files changed or added, not committed
	if st, err := ov.Sync(ctx); err != nil || st.Extracted == 0 {
		t.Fatalf("sync after the changes: %+v, %v", st, err)
	}
	check := func(step string, want SyncStats) {
		t.Helper()
		st, err := ov.Sync(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Indexed != want.Indexed || st.Extracted != want.Extracted || st.Changed != want.Changed {
			t.Errorf("%s: %+v; want %d indexed, %d extracted, %d changed", step, st, want.Indexed, want.Extracted, want.Changed)
		}
		full := fullIndex(t, t.Name()+"/full-"+step, w.root, w.git("rev-parse", "HEAD"), nil)
		compare(t, step, answers(t, store), answers(t, full))
		r, err := store.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		b, err := freshness.Compute(ctx, r, w.root)
		if err != nil {
			t.Fatal(err)
		}
		if b.Partial {
			t.Errorf("%s: the freshness block is partial: %q", step, b.Reasons)
		}
	}
	// The work tree indexed as it is: every change is the base's.
	if _, err := syntax.Index(ctx, store, syntax.IndexOptions{Root: w.root, Commit: w.git("rev-parse", "HEAD"), Workers: 2}); err != nil {
		t.Fatal(err)
	}
	check("indexed", SyncStats{Indexed: 3})
	old := w.read("service/audit.go")
	w.write("service/audit.go", old+"\n// Audited marks what Audit read.\nvar Audited = true\n")
	check("changed after the index", SyncStats{Indexed: 2, Extracted: 1, Changed: 1})
	w.write("service/audit.go", old)
	check("changed back", SyncStats{Indexed: 3})
}
