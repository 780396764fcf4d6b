package syntax

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/rootfs"
)

func TestCargoCrateName(t *testing.T) {
	for _, c := range []struct{ toml, want string }{
		{"[package]\nname = \"shop-core\"\nversion = \"0.1.0\"\n", "shop_core"},
		{"[package]\nname = 'plain'   # a comment\n", "plain"},
		{"[package]\nname = \"shop-core\"\n\n[lib]\nname = \"shop\"\npath = \"src/lib.rs\"\n", "shop"},
		{"[dependencies]\nname = \"not-a-package\"\n\n[package]\nversion = \"1\"\nname = \"late\"\n", "late"},
		{"[workspace]\nmembers = [\"a\", \"b\"]\n", ""}, // a virtual manifest
		{"[package]\nname.workspace = true\n", ""},
	} {
		if got := cargoCrateName([]byte(c.toml)); got != c.want {
			t.Errorf("cargoCrateName(%q) = %q, want %q", c.toml, got, c.want)
		}
	}
}

// TestRustModulePaths checks the crate and module of files in a workspace
// of two crates under a virtual manifest, and of files with no Cargo.toml.
func TestRustModulePaths(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"Cargo.toml":          "[workspace]\nmembers = [\"core\", \"cli\"]\n",
		"core/Cargo.toml":     "[package]\nname = \"shop-core\"\n",
		"cli/Cargo.toml":      "[package]\nname = \"shop-cli\"\n\n[lib]\nname = \"cli\"\n",
		"loose/src/thing.rs":  "",
		"core/src/nested.rs":  "",
		"core/src/a/b/mod.rs": "",
	})
	fsys, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	p := newProject(root, fsys)
	for _, c := range []struct{ file, crate, module string }{
		{"core/src/lib.rs", "shop_core", "shop_core"},
		{"core/src/main.rs", "shop_core", "shop_core"},
		{"core/src/orders.rs", "shop_core", "shop_core::orders"},
		{"core/src/orders/mod.rs", "shop_core", "shop_core::orders"},
		{"core/src/orders/line.rs", "shop_core", "shop_core::orders::line"},
		{"core/src/orders/line/line_test.rs", "shop_core", "shop_core::orders::line::line_test"},
		{"core/src/bin/admin.rs", "admin", "admin"},
		{"core/src/bin/shop-admin/main.rs", "shop_admin", "shop_admin"},
		{"core/src/bin/shop-admin/args.rs", "shop_admin", "shop_admin::args"},
		{"core/tests/checkout.rs", "checkout", "checkout"},
		{"core/tests/common/mod.rs", "common", "common"},
		{"core/tests/flow/main.rs", "flow", "flow"},
		{"core/tests/flow/steps.rs", "flow", "flow::steps"},
		{"core/benches/totals.rs", "totals", "totals"},
		{"core/examples/demo.rs", "demo", "demo"},
		{"core/build.rs", "shop_core", "shop_core::build"},
		{"cli/src/lib.rs", "cli", "cli"},
		{"cli/src/cmd/run.rs", "cli", "cli::cmd::run"},
		{"loose/src/thing.rs", "crate", "crate::loose::src::thing"}, // no Cargo.toml: the path from the root
	} {
		crate, module := p.rustModule(c.file)
		if crate != c.crate || module != c.module {
			t.Errorf("rustModule(%q) = %q, %q; want %q, %q", c.file, crate, module, c.crate, c.module)
		}
	}
}

// TestRustResolution checks each rule on a small crate: paths through
// crate::, self::, super:: and use declarations (renamed, grouped, glob),
// receiver and declared types, re-exports, impl blocks for a type of
// another module, generics and locals, macros and test-only code.
func TestRustResolution(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"Cargo.toml": "[package]\nname = \"app\"\n",
		"src/lib.rs": `pub mod model;
pub mod util;
mod ext;

pub use model::Item;

macro_rules! twice { ($e:expr) => { $e * 2 }; }

pub fn run() -> u32 {
    let item = crate::model::Item::new(1);
    let n = util::double(item.size());
    helper(n);
    twice!(n)
}

fn helper(_n: u32) {}
`,
		"src/model.rs": `use crate::util::{double as dbl, *};

pub struct Item { pub n: u32 }

pub enum Kind { Small, Big(u32) }

impl Item {
    pub fn new(n: u32) -> Self { Self { n } }
    pub fn size(&self) -> u32 { self.grow() + dbl(self.n) + triple(1) }
    fn grow(&self) -> u32 { Self::unit() }
    fn unit() -> u32 { 1 }
    pub fn kind(&self) -> Kind {
        let k = Kind::Big(self.n);
        match k { Kind::Small => k, other => other }
    }
}

pub fn sum<T: Into<u32>>(xs: Vec<T>, f: impl Fn(T) -> u32) -> u32 {
    fn inner(x: u32) -> u32 { x }
    struct Local { v: u32 }
    impl Local { fn get(&self) -> u32 { self.v + crate::util::one() } }
    trait LocalTrait { fn lt(&self); }
    xs.into_iter().map(|x| inner(f(x))).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(Item::new(2).n, 2);
    }
}
`,
		"src/util.rs": `pub fn double(n: u32) -> u32 { n * 2 }
pub fn triple(n: u32) -> u32 {
    use crate::util as u;
    u::double(n) + super::util::one()
}
pub fn one() -> u32 { 1 }
pub fn zero() -> crate::Item { crate::Item::new(0) }
`,
		"src/ext.rs": `use crate::model::Item;

pub trait Describe { fn describe(&self) -> String; }

impl Describe for Item {
    fn describe(&self) -> String { format!("{}", self.n) }
}

pub fn show<D: Clone + Describe>(d: &D) -> String { d.describe() }
`,
	})
	files, docs := extractTree(t, root)
	syms := map[string]graph.Symbol{}
	for _, f := range files {
		if f.Skipped != SkipNone {
			t.Fatalf("%s skipped: %s %s", f.Document.Path, f.Skipped, f.Failure)
		}
		for _, s := range f.Symbols {
			syms[s.ID] = s
		}
	}
	for id, kind := range map[string]string{
		"syntax rust app":                  "module",
		"syntax rust app::model":           "module",
		"syntax rust app run":              "function",
		"syntax rust app twice!":           "macro",
		"syntax rust app::model Item":      "struct",
		"syntax rust app::model Item.n":    "field",
		"syntax rust app::model Item.new":  "method",
		"syntax rust app::model Kind.Big":  "enum-member",
		"syntax rust app::model sum":       "function",
		"syntax rust app::ext Describe":    "interface",
		"syntax rust app::model::tests":    "module",
		"syntax rust app::model Item.size": "method",
		// An impl of a type of another module: its methods are the type's.
		"syntax rust app::model Item.describe": "method",
	} {
		if s, ok := syms[id]; !ok || s.Kind != kind {
			t.Errorf("symbol %q: %+v, want kind %s", id, s, kind)
		}
	}
	if s := syms["syntax rust app::model Item.describe"]; s.Package != "app::model" || s.Def.Path != "src/ext.rs" {
		t.Errorf("Item.describe is in package %q at %s, want app::model at src/ext.rs", s.Package, s.Def.Path)
	}
	for id := range syms {
		if strings.HasSuffix(id, " inner") || strings.HasSuffix(id, " T") || strings.Contains(id, "Local") ||
			strings.Contains(id, " .") || strings.Contains(id, "get") || strings.Contains(id, " v") {
			t.Errorf("a local item or type parameter became a symbol: %s", id)
		}
	}

	edges := map[string][]string{}
	roles := map[string]graph.Role{}
	for _, df := range docs {
		for _, e := range df.Edges {
			if e.Kind != graph.EdgeContains && e.Kind != graph.EdgeImports {
				edges[e.From] = append(edges[e.From], fmt.Sprintf("%s %s %.2f %s", e.Kind, strings.TrimPrefix(e.To, "syntax rust "), e.Confidence, e.Reason))
			}
		}
		for _, o := range df.Occurrences {
			if o.Enclosing == "syntax rust app::model::tests sizes" {
				roles[o.Symbol] |= o.Roles
			}
		}
	}
	for from, want := range map[string][]string{
		"syntax rust app run": {
			"calls app helper 0.90 syntax:same-file",
			"calls app twice! 0.90 syntax:same-file",
			"calls app::model Item.new 0.80 syntax:declared-type",
			"calls app::model Item.size 0.80 syntax:declared-type",
			"calls app::util double 0.85 syntax:imported-package",
			"references app::model Item 0.85 syntax:imported-package",
		},
		"syntax rust app::model Item.size": {
			"calls app::model Item.grow 0.80 syntax:receiver-type",
			"calls app::util double 0.85 syntax:imported-package", // renamed
			"calls app::util triple 0.85 syntax:imported-package", // through the glob
			"references app::model Item.n 0.80 syntax:receiver-type",
		},
		"syntax rust app::model Item.grow": {"calls app::model Item.unit 0.80 syntax:receiver-type"},
		"syntax rust app::model Item.new":  {"references app::model Item.n 0.80 syntax:receiver-type"},
		"syntax rust app::model Item.kind": {
			"calls app::model Kind.Big 0.80 syntax:declared-type",
			"references app::model Item.n 0.80 syntax:receiver-type",
			"references app::model Kind 0.90 syntax:same-file",
			"references app::model Kind.Small 0.80 syntax:declared-type",
		},
		"syntax rust app::model sum": { // generics, an impl Trait, local items and a closure: only the call out
			"calls app::util one 0.85 syntax:imported-package",
		},
		"syntax rust app::util triple": {
			"calls app::util double 0.85 syntax:imported-package", // through a use in the body
			"calls app::util one 0.85 syntax:imported-package",    // through super::
		},
		"syntax rust app::util zero": { // through the re-export in lib.rs
			"calls app::model Item.new 0.60 syntax:unique-global-name",
			"references app::model Item 0.60 syntax:unique-global-name",
		},
		"syntax rust app::ext":          {"references app::model Item 0.85 syntax:imported-package"}, // impl … for Item
		"syntax rust app::ext Describe": nil,
		"syntax rust app::ext show": { // through the bound of a type parameter
			"calls app::ext Describe.describe 0.80 syntax:declared-type",
			"references app::ext Describe 0.90 syntax:same-file",
		},
		"syntax rust app::model Item": {"implements app::ext Describe 0.90 syntax:same-file"}, // impl Describe for Item
		"syntax rust app::model Item.describe": {
			"implements app::ext Describe.describe 0.90 syntax:same-file",
			"references app::model Item.n 0.80 syntax:receiver-type",
		},
		"syntax rust app::model::tests sizes": {
			"calls app::model Item.new 0.80 syntax:declared-type",
			"references app::model Item 0.90 syntax:same-file",
			"references app::model Item.n 0.60 syntax:unique-global-name",
		},
	} {
		got := edges[from]
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("edges from %s:\n got %q\nwant %q", from, got, want)
		}
	}
	if r := roles["syntax rust app::model Item.new"]; r&graph.RoleTest == 0 || r&graph.RoleCall == 0 {
		t.Errorf("the call in a #[test] function has roles %b, want call and test", r)
	}
}

// TestRustFixtureBuilds checks that the fixture crate is real Rust: cargo
// builds and tests it (skipped without cargo, unless LSPGRAPH_E2E=1).
func TestRustFixtureBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a crate")
	}
	cargo := lookCargo()
	if cargo == "" {
		if os.Getenv("LSPGRAPH_E2E") == "1" {
			t.Fatal("cargo is not installed")
		}
		t.Skip("cargo is not installed")
	}
	// Built in a copy, so that Cargo.lock and target/ stay out of the tree.
	dir := t.TempDir()
	err := filepath.WalkDir("testdata/rustcrate", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("testdata/rustcrate", p)
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFiles(t, dir, map[string]string{filepath.ToSlash(rel): string(b)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cargo, "test", "--offline", "--quiet")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CARGO_TARGET_DIR="+filepath.Join(dir, "target"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cargo test in a copy of testdata/rustcrate: %v\n%s", err, out)
	}
}

// lookCargo returns the cargo binary on PATH or in ~/.cargo/bin, or "".
func lookCargo() string {
	if p, err := exec.LookPath("cargo"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cargo", "bin", "cargo")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
