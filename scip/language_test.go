package scip

import "testing"

func TestDocumentLanguageAndTests(t *testing.T) {
	for _, c := range []struct {
		declared, path, lang string
		test                 bool
	}{
		{"", "pkg/a.go", "go", false},
		{"", "pkg/a_test.go", "go", true},
		{"TypeScript", "src/a.ts", "typescript", false},
		{"", "src/a.spec.tsx", "typescript", true},
		{"", "src/__tests__/a.js", "javascript", true},
		{"", "shop/orders.py", "python", false},
		{"", "tests/test_orders.py", "python", true},
		{"", "src/main/java/shop/Order.java", "java", false},
		{"", "src/test/java/shop/OrderTest.java", "java", true},
		{"", "crates/shop/src/order.rs", "rust", false},
		{"", "crates/shop/tests/checkout.rs", "rust", true},
		{"", "README.md", "", false},
	} {
		lang := documentLanguage(c.declared, c.path)
		if lang != c.lang || isTestPath(c.path, lang) != c.test {
			t.Errorf("%s (declared %q): language %q, test %v; want %q, %v", c.path, c.declared, lang, isTestPath(c.path, lang), c.lang, c.test)
		}
	}
}
