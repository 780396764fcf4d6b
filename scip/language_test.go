package scip

import (
	"testing"

	"github.com/lspgraph/lspgraph/internal/lang"
)

func TestDocumentLanguageAndTests(t *testing.T) {
	for _, c := range []struct {
		declared, path, lang string
		test                 bool
	}{
		{"", "pkg/a.go", "go", false},
		{"", "pkg/a_test.go", "go", true},
		{"TypeScript", "src/a.ts", "typescript", false},
		{"TypeScriptReact", "src/a.tsx", "typescript", false},
		{"JavaScriptReact", "src/__tests__/a.jsx", "javascript", true},
		{"CPP", "src/a.cc", "cpp", false},
		{"", "src/a.spec.tsx", "typescript", true},
		{"", "src/__tests__/a.js", "javascript", true},
		{"", "shop/orders.py", "python", false},
		{"", "tests/test_orders.py", "python", true},
		{"", "tests/h.py", "python", true},
		{"", "test/h.py", "python", true},
		{"", "src/main/java/shop/Order.java", "java", false},
		{"", "src/test/java/shop/OrderTest.java", "java", true},
		{"", "crates/shop/src/order.rs", "rust", false},
		{"", "crates/shop/tests/checkout.rs", "rust", true},
		{"", "README.md", "", false},
	} {
		language := documentLanguage(c.declared, c.path)
		if language != c.lang || lang.IsTestPath(c.path, language) != c.test {
			t.Errorf("%s (declared %q): language %q, test %v; want %q, %v", c.path, c.declared, language, lang.IsTestPath(c.path, language), c.lang, c.test)
		}
	}
}
