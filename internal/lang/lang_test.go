package lang

import (
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

func TestFileTypes(t *testing.T) {
	for _, c := range []struct{ path, language, id string }{
		{"a.go", "go", "go"},
		{"src/a.ts", "typescript", "typescript"},
		{"src/a.d.ts", "typescript", "typescript"},
		{"src/a.mts", "typescript", "typescript"},
		{"src/a.cts", "typescript", "typescript"},
		{"src/a.tsx", "typescript", "typescriptreact"},
		{"b.TSX", "typescript", "typescriptreact"}, // extensions match in any case
		{"a.js", "javascript", "javascript"},
		{"c.mjs", "javascript", "javascript"},
		{"c.cjs", "javascript", "javascript"},
		{"d.jsx", "javascript", "javascriptreact"},
		{"shop/a.py", "python", "python"},
		{"e.pyi", "python", "python"},
		{"g/Order.java", "java", "java"},
		{"h.rs", "rust", "rust"},
		{"f.txt", "", "plaintext"},
		{"Makefile", "", "plaintext"},
		{"go", "", "plaintext"},
		{".go", "go", "go"},
	} {
		if got := Of(c.path); got != c.language {
			t.Errorf("Of(%q) = %q, want %q", c.path, got, c.language)
		}
		if got := LanguageID(c.path); got != c.id {
			t.Errorf("LanguageID(%q) = %q, want %q", c.path, got, c.id)
		}
	}
}

func TestExtensions(t *testing.T) {
	for _, c := range []struct {
		languages []string
		want      []string
	}{
		{[]string{"go"}, []string{".go"}},
		{[]string{"javascript", "typescript"}, []string{".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx"}},
		{[]string{"python"}, []string{".py", ".pyi"}},
		{[]string{"cobol"}, nil},
	} {
		if got := Extensions(c.languages...); !slices.Equal(got, c.want) {
			t.Errorf("Extensions(%q) = %q, want %q", c.languages, got, c.want)
		}
	}
	// Every extension names its own language back.
	for _, ft := range fileTypes {
		for _, e := range ft.extensions {
			if Of("x"+e) != ft.language {
				t.Errorf("Of(x%s) = %q, want %q", e, Of("x"+e), ft.language)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	for name, want := range map[string]string{
		"go": "go", "Go": "go", "TypeScript": "typescript", "TypeScriptReact": "typescript",
		"typescriptreact": "typescript", "JavaScriptReact": "javascript", "Python": "python",
		"Java": "java", "Rust": "rust", "CPP": "cpp", "": "",
	} {
		if got := Normalize(name); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestIsTestPath(t *testing.T) {
	for _, c := range []struct {
		convention string
		path       string
		test       bool
	}{
		{"go *_test.go", "a/b_test.go", true},
		{"go *_test.go", "b_test.go", true},
		{"go: a file named test is no test", "a/test.go", false},
		{"go: a tests directory is no convention", "tests/b.go", false},
		{"go: plain source", "a/b.go", false},

		{"ts *.test.*", "src/x.test.ts", true},
		{"ts *.test.*", "src/x.test.d.ts", true},
		{"ts *.spec.*", "src/x.spec.tsx", true},
		{"js *.test.*", "lib/x.test.mjs", true},
		{"js *.spec.*", "lib/x.spec.jsx", true},
		{"ts __tests__/", "src/__tests__/x.ts", true},
		{"js __tests__/", "__tests__/x.js", true},
		{"ts: a name containing test is no test", "src/latest.ts", false},
		{"ts: a test directory is no convention", "test/x.ts", false},
		{"ts: plain source", "src/x.ts", false},

		{"python test_*.py", "shop/test_x.py", true},
		{"python test_*.py", "test_x.py", true},
		{"python *_test.py", "shop/x_test.py", true},
		{"python conftest.py", "shop/conftest.py", true},
		{"python tests/", "tests/h.py", true},
		{"python tests/", "tests/test_orders.py", true},
		{"python tests/", "pkg/tests/helpers.py", true},
		{"python test/", "test/h.py", true},
		{"python test/", "pkg/test/helpers.py", true},
		{"python: a name containing test is no test", "shop/latest.py", false},
		{"python: a directory named like tests is no test directory", "contests/h.py", false},
		{"python: plain source", "shop/orders.py", false},

		{"java *Test.java", "src/main/java/shop/OrderTest.java", true},
		{"java *Tests.java", "shop/OrderTests.java", true},
		{"java src/test/", "src/test/java/shop/Fixtures.java", true},
		{"java src/test/", "module/src/test/java/shop/Fixtures.java", true},
		{"java: a name ending in test, lower case, is no test", "src/main/java/shop/Latest.java", false},
		{"java: plain source", "src/main/java/shop/Order.java", false},

		{"rust tests/", "tests/checkout.rs", true},
		{"rust tests/", "crates/shop/tests/checkout.rs", true},
		{"rust *_test.rs", "src/order_test.rs", true},
		{"rust: a tests module file is decided by its attributes", "src/tests.rs", false},
		{"rust: plain source", "crates/shop/src/order.rs", false},

		{"unknown language: no convention", "tests/test_x.txt", false},
	} {
		if got := IsTestPath(c.path, Of(c.path)); got != c.test {
			t.Errorf("%s: IsTestPath(%q, %q) = %v, want %v", c.convention, c.path, Of(c.path), got, c.test)
		}
	}
}

func TestHashContent(t *testing.T) {
	// The format persists in stores (the overlay's digests): it must not change.
	if got, want := HashContent([]byte("package a\n")), "sha256:7b39baa38a2ec2b8d111bbbd8e448e80"; got != want {
		t.Errorf("HashContent = %q, want %q", got, want)
	}
	if HashContent(nil) != HashContent([]byte{}) || HashContent([]byte("a")) == HashContent([]byte("b")) {
		t.Error("HashContent does not depend on the content alone")
	}
}

func TestLSPSymbolID(t *testing.T) {
	if got, want := LSPSymbolID("a/b.go", textpos.Position{Line: 2, Col: 5}), "lsp a/b.go:3:6"; got != want {
		t.Errorf("LSPSymbolID = %q, want %q", got, want)
	}
}

func TestPairedTestPaths(t *testing.T) {
	for _, tc := range []struct {
		path, language, want string
	}{
		{"internal/x/catalog.go", "go", "internal/x/catalog_test.go"},
		{"packages/runtime-core/src/renderer.ts", "typescript", "packages/runtime-core/__tests__/renderer.spec.ts"},
		{"packages/runtime-core/src/renderer.ts", "typescript", "packages/runtime-core/src/__tests__/renderer.spec.ts"},
		{"packages/order/src/index.ts", "typescript", "packages/order/src/index.test.ts"},
		{"src/app.js", "javascript", "src/app.test.js"},
		{"src/flask/helpers.py", "python", "tests/test_helpers.py"},
		{"shop/pricing.py", "python", "shop/test_pricing.py"},
		{"core/src/main/java/a/b/Foo.java", "java", "core/src/test/java/a/b/FooTest.java"},
		{"crate/src/parse.rs", "rust", "crate/tests/parse.rs"},
	} {
		got := PairedTestPaths(tc.path, tc.language)
		if !slices.Contains(got, tc.want) {
			t.Errorf("PairedTestPaths(%q, %q) = %q; want it to hold %q", tc.path, tc.language, got, tc.want)
		}
		for _, g := range got {
			if !IsTestPath(g, tc.language) {
				t.Errorf("PairedTestPaths(%q) gives %q, which IsTestPath does not take for a test", tc.path, g)
			}
		}
	}
	if got := PairedTestPaths("a/x_test.go", "go"); got != nil {
		t.Errorf("a test file has no paired test: %q", got)
	}
}
