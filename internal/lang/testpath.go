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

// PairedTestPaths returns the paths where the tests of the document p sit
// by its language's convention (its graph language, as [Of] names it),
// most conventional first; nil for a test file or a language without one:
//
//   - Go: `x_test.go` beside `x.go`.
//   - TypeScript and JavaScript: `x.test.ts`, `x.spec.ts` beside `x.ts`,
//     and the same names under `__tests__/` beside it or one level up
//     (`src/__tests__/x.spec.ts` for `src/x.ts`), with the extension's
//     TypeScript and JavaScript variants.
//   - Python: `test_x.py` and `x_test.py` beside `x.py`, and `test_x.py`
//     under `tests/` beside the package and at every directory above it.
//   - Java: `src/test/java/…/XTest.java` for `src/main/java/…/X.java`.
//   - Rust: `tests/x.rs` at the crate root (above `src/`).
func PairedTestPaths(p, language string) []string {
	if IsTestPath(p, language) {
		return nil
	}
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	join := func(parts ...string) string { return path.Join(parts...) }
	var out []string
	switch language {
	case "go":
		out = append(out, join(dir, stem+"_test.go"))
	case "typescript", "javascript":
		exts := []string{ext}
		for _, e := range []string{".ts", ".tsx", ".js", ".jsx", ".mts", ".mjs"} {
			if e != ext {
				exts = append(exts, e)
			}
		}
		parent := path.Dir(path.Clean(dir))
		for _, e := range exts {
			for _, kind := range []string{".spec", ".test"} {
				name := stem + kind + e
				out = append(out, join(dir, name), join(dir, "__tests__", name))
				if parent != "." && parent != "/" {
					out = append(out, join(parent, "__tests__", name))
				}
			}
		}
	case "python":
		out = append(out, join(dir, "test_"+stem+".py"), join(dir, stem+"_test.py"))
		for d := path.Clean(dir); ; d = path.Dir(d) {
			if d == "." || d == "/" {
				out = append(out, join("tests", "test_"+stem+".py"))
				break
			}
			out = append(out, join(d, "tests", "test_"+stem+".py"))
		}
	case "java":
		if i := strings.Index(p, "src/main/java/"); i >= 0 {
			out = append(out, join(p[:i], "src/test/java", strings.TrimPrefix(dir[i:], "src/main/java/"), stem+"Test.java"))
		}
	case "rust":
		if i := strings.LastIndex(p, "src/"); i >= 0 {
			out = append(out, join(p[:i], "tests", stem+".rs"))
		}
	}
	return out
}
