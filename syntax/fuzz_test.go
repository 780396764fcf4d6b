package syntax

import (
	"context"
	"testing"
)

// FuzzExtract feeds arbitrary text to every grammar: extraction may find
// nothing, but it must never fail (SkipFailed means a walker broke).
func FuzzExtract(f *testing.F) {
	for _, seed := range []string{
		"package p\n\nfunc (x *T[K]) M(a, b int) (r int) { return a.b.c(d)[e] }\n",
		"package p\nfunc (\n",
		"type T struct { a, b int; *U; pkg.V }\nvar _, x = 1,\n",
		"import { a as b, type C } from './x';\nexport default class extends D { #p = 1; m() { this.#p(); } }\n",
		"export const f = async ({ a, b: [c] }, ...d) => a?.b?.(c);\nclass {",
		"from . import (a, b as c)\nclass K(Base):\n    def m(self, *a, **k):\n        self.x: int = 1\n        return lambda y: self.x + y\n",
		"def f(:\n  \"\"\"doc\n",
		"\x00\xff\xfe}}}{{{",
		"package a.b;\nimport static x.Y.z;\nclass C<T> extends D { C() { this(1); } int f; void m(T t) { t.g(); C.this.f = 1; new C.E<>(); } }\n",
		"use super::{self as s, a::*, b::{C, d as e}};\nimpl<T: Tr> Tr for &'a [T] { fn m(&self) -> Self::X { Self::n(s::f(x.y.z()), T::k) } }\n",
		"#[cfg(test)] mod t { use ::std::*; #[test] fn f() { let S { a, b: B(c) } = s; m!(a.b(c), x::y(), self.z); } }\nmacro_rules! m { ($x:expr) => { $x } }\n",
	} {
		f.Add(seed)
	}
	x := NewExtractor(Options{})
	defer x.Close()
	f.Fuzz(func(t *testing.T, src string) {
		for _, p := range []string{"a/f.go", "a/f.ts", "a/f.tsx", "a/f.js", "a/f.py", "a/F.java", "a/src/f.rs"} {
			ff, err := x.File(context.Background(), p, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if ff.Skipped == SkipFailed {
				t.Fatalf("%s: extraction failed: %s\n%q", p, ff.Failure, src)
			}
			if _, err := Resolve(context.Background(), []*FileFacts{ff}, nil); err != nil {
				t.Fatal(err)
			}
		}
	})
}
