package lang

import (
	"path"
	"strings"
)

// IsTestPath reports whether a document is a test file by the naming
// conventions of its language (its graph language, as [Of] names it):
//
//   - Go: `*_test.go`.
//   - TypeScript and JavaScript: `*.test.*`, `*.spec.*`, or under a
//     `__tests__/` directory (Jest, Vitest, Mocha).
//   - Python: `test_*.py`, `*_test.py` (pytest's and unittest's discovery),
//     `conftest.py`, or under a `tests/` or `test/` directory.
//   - Java: `*Test.java`, `*Tests.java` (Surefire), or under `src/test/`
//     (Maven's and Gradle's layout).
//   - Rust: under a `tests/` directory (Cargo's integration tests), or
//     `*_test.rs`. Unit tests inside a source file are not a path rule:
//     the syntax extractor finds them by their attributes.
//
// Any other language has no test convention here.
func IsTestPath(p, language string) bool {
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	dir := "/" + path.Dir(p) + "/"
	under := func(d string) bool { return strings.Contains(dir, "/"+d+"/") }
	switch language {
	case "go":
		return strings.HasSuffix(stem, "_test")
	case "typescript", "javascript":
		return strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || under("__tests__")
	case "python":
		return strings.HasPrefix(base, "test_") || strings.HasSuffix(stem, "_test") || stem == "conftest" ||
			under("tests") || under("test")
	case "java":
		return strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") || under("src/test")
	case "rust":
		return strings.HasSuffix(stem, "_test") || under("tests")
	}
	return false
}
