package syntax

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// goInferenceFiles is a module whose calls need a receiver's type the walk
// infers: from calls (one and several results), composite literals, new,
// conversions, type assertions, ranges, indexing, field chains, embedding,
// aliases and method values.
var goInferenceFiles = map[string]string{
	"go.mod": "module example.com/m\n",
	"db/db.go": `package db

type DB struct {
	Bounds Bounds
	iters  []*Iter
	byName map[string]*Iter
	Base
}

type Base struct{ inner *Inner }

func (b *Base) Flush() error { return nil }

type Inner struct{}

func (*Inner) Deep() {}

type Bounds struct{ Smallest Key }

type Key struct{}

func (Key) UserKey() []byte { return nil }

type Iter struct{}

func (*Iter) Next() bool   { return false }
func (*Iter) Close() error { return nil }

type Reader interface {
	Get() *Iter
}

type ReadCloser interface {
	Reader
	Close() error
}

type Alias = Iter

func Open(dir string) (*DB, error) { return &DB{}, nil }

func (d *DB) NewIter() *Iter { return nil }

func (d *DB) Iters() []*Iter { return d.iters }
`,
	"app/app.go": `package app

import "example.com/m/db"

type local struct{}

func (local) Run() {}

func Use(rc db.ReadCloser, v any) {
	d, err := db.Open("x")
	_ = err
	it := d.NewIter()
	it.Next()
	d.Bounds.Smallest.UserKey()
	d.Flush()
	d.inner.Deep()
	for _, x := range d.Iters() {
		x.Close()
	}
	d.Iters()[0].Next()
	p := new(local)
	p.Run()
	q := &local{}
	q.Run()
	c := db.Key(db.Key{})
	c.UserKey()
	if a, ok := v.(*db.Iter); ok {
		a.Close()
	}
	rc.Get().Next()
	rc.Close()
	var al db.Alias
	al.Next()
	f := d.NewIter
	_ = f
}
`,
}

func TestGoInference(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, goInferenceFiles)
	_, docs := extractTree(t, root)
	got := edgesFrom(docs, "syntax go example.com/m/app Use", "syntax go example.com/m/")
	want := []string{
		"calls app local.Run 0.99 syntax:declared-type",           // new(local), &local{}
		"calls db Base.Flush 0.99 syntax:promoted-member",         // d.Flush(): DB embeds Base
		"calls db DB.Iters 0.99 syntax:inferred-type",             // d from db.Open's first result
		"calls db DB.NewIter 0.99 syntax:inferred-type",           //
		"calls db Inner.Deep 0.99 syntax:promoted-member",         // d.inner (promoted field) .Deep()
		"calls db Iter.Close 0.99 syntax:inferred-type",           // range over d.Iters()
		"calls db Iter.Next 0.99 syntax:inferred-type",            // it := d.NewIter(); d.Iters()[0]; rc.Get()
		"calls db Key 0.99 syntax:imported-package",               // the conversion db.Key(…)
		"calls db Key.UserKey 0.99 syntax:inferred-type",          // d.Bounds.Smallest.UserKey(), c := db.Key(…)
		"calls db Open 0.99 syntax:imported-package",              //
		"calls db ReadCloser.Close 0.99 syntax:declared-type",     // rc's parameter type
		"calls db Reader.Get 0.99 syntax:promoted-member",         // ReadCloser embeds Reader
		"references app local 0.99 syntax:same-file",              //
		"references db Alias 0.99 syntax:imported-package",        //
		"references db Base.inner 0.99 syntax:promoted-member",    //
		"references db Bounds.Smallest 0.99 syntax:inferred-type", //
		"references db DB.Bounds 0.99 syntax:inferred-type",       //
		"references db DB.NewIter 0.99 syntax:inferred-type",      // the method value f := d.NewIter
		"references db Iter 0.99 syntax:imported-package",         //
		"references db Key 0.99 syntax:imported-package",          //
		"references db ReadCloser 0.99 syntax:imported-package",   //
	}
	if !slices.Equal(got, want) {
		t.Errorf("edges from Use:\n got %q\nwant %q", got, want)
	}

	// The same facts when app.go is re-extracted alone against the graph:
	// the declared types come from the symbols' Signatures in the store.
	alone := resolveAlone(t, root, "app/app.go", []byte(goInferenceFiles["app/app.go"]))
	if got := edgesFrom(alone, "syntax go example.com/m/app Use", "syntax go example.com/m/"); !slices.Equal(got, want) {
		t.Errorf("edges from Use, re-extracted alone:\n got %q\nwant %q", got, want)
	}
}

// TestGoTypeChains checks the type chains the walk writes for values.
func TestGoTypeChains(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, goInferenceFiles)
	files, _ := extractTree(t, root)
	var got []string
	for _, f := range files {
		for _, u := range f.Uses {
			if u.Kind == UseTyped && f.Document.Path == "app/app.go" {
				got = append(got, u.Name+" "+u.Qualifier)
			}
		}
	}
	want := []string{
		"NewIter db.Open()#0", "Next db.Open()#0:NewIter()", "Bounds db.Open()#0", "Smallest db.Open()#0:Bounds",
		"UserKey db.Open()#0:Bounds:Smallest", "Flush db.Open()#0", "inner db.Open()#0", "Deep db.Open()#0:inner",
		"Iters db.Open()#0", "Close db.Open()#0:Iters():[]", "Iters db.Open()#0", "Next db.Open()#0:Iters():[]",
		"Run local", "Run local", "UserKey db.Key()", "Close db.Iter", "Get db.ReadCloser",
		"Next db.ReadCloser:Get()", "Close db.ReadCloser", "Next db.Alias", "NewIter db.Open()#0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("typed uses:\n got %q\nwant %q", got, want)
	}
}

// edgesFrom lists the call and reference edges from one symbol as
// "kind target confidence reason", the target without prefix, sorted.
func edgesFrom(docs []graph.DocumentFacts, from, prefix string) []string {
	var got []string
	for _, df := range docs {
		for _, e := range df.Edges {
			if e.From == from && (e.Kind == graph.EdgeCalls || e.Kind == graph.EdgeReferences) {
				got = append(got, fmt.Sprintf("%s %s %.2f %s", e.Kind, strings.TrimPrefix(e.To, prefix), e.Confidence, e.Reason))
			}
		}
	}
	slices.Sort(got)
	return got
}

// TestTypeScriptInference checks the TypeScript receivers whose types the
// walk reads from declarations of the same file: this.f with a typed field
// (declared or a constructor parameter property), a local from a
// function's return annotation, a local from this.f.
func TestTypeScriptInference(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"package.json": `{"name": "app"}`,
		"src/store.ts": "export class Store {\n  get(): number { return 1; }\n}\n\nexport class Cache {\n  clear(): void {}\n}\n",
		"src/app.ts": `import { Store, Cache } from "./store";

function open(): Store {
  return new Store();
}

export class App {
  cache: Cache = new Cache();
  constructor(private store: Store) {}
  run(): void {
    this.store.get();
    this.cache.clear();
    const s = open();
    s.get();
    const c = this.cache;
    c.clear();
  }
}
`,
	})
	_, docs := extractTree(t, root)
	checkEdgesFrom(t, docs, "syntax typescript app src/app:App.run", "syntax typescript app ", []string{
		"calls src/app:open 0.99 syntax:same-file",
		"calls src/store:Cache.clear 0.99 syntax:declared-type",
		"calls src/store:Store.get 0.99 syntax:declared-type",
		"references src/app:App.cache 0.99 syntax:receiver-type",
		"references src/app:App.store 0.99 syntax:receiver-type",
	})
}

// TestPythonInference checks the Python receivers whose types the walk
// reads from the same file: self.f assigned a constructor call in
// __init__ or annotated in the class body, and a local from a top-level
// function's return annotation.
func TestPythonInference(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"pyproject.toml": "[project]\nname = \"app\"\n",
		"app/store.py":   "class Store:\n    def get(self):\n        return 1\n\n\nclass Cache:\n    def clear(self):\n        pass\n",
		"app/main.py": `from app.store import Store, Cache


def open_store() -> Store:
    return Store()


class App:
    cache: Cache

    def __init__(self):
        self.store = Store()

    def run(self):
        self.store.get()
        self.cache.clear()
        s = open_store()
        s.get()
        c = self.store
        c.get()
`,
	})
	_, docs := extractTree(t, root)
	checkEdgesFrom(t, docs, "syntax python app app.main:App.run", "syntax python app ", []string{
		"calls app.main:open_store 0.99 syntax:same-file",
		"calls app.store:Cache.clear 0.99 syntax:declared-type",
		"calls app.store:Store.get 0.99 syntax:declared-type",
		"references app.main:App.cache 0.99 syntax:receiver-type",
		"references app.main:App.store 0.99 syntax:receiver-type",
	})
}

// checkEdgesFrom compares the call and reference edges from one symbol
// with want (as edgesFrom writes them).
func checkEdgesFrom(t *testing.T, docs []graph.DocumentFacts, from, prefix string, want []string) {
	t.Helper()
	if got := edgesFrom(docs, from, prefix); !slices.Equal(got, want) {
		t.Errorf("edges from %s:\n got %q\nwant %q", from, got, want)
	}
}
