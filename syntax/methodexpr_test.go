package syntax

import (
	"slices"
	"testing"
)

// TestGoMethodExpression checks that a method expression (*T).M names T's
// method M (as go/ssa's builder does: `build: (*builder).buildFromSyntax`)
// and that (*x).M on a local pointer still follows x's type.
func TestGoMethodExpression(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod": "module example.com/m\n",
		"b/b.go": `package b

type builder struct{}

func (b *builder) buildFromSyntax(x int) {}
func (b *builder) buildWrapper(x int)    {}

type other struct{}

func (o *other) buildWrapper(x int) {}

type fn struct{ build func(*builder, int) }

func Make(flag bool) fn {
	f := fn{build: (*builder).buildFromSyntax}
	if flag {
		f.build = (*builder).buildWrapper
	}
	p := &other{}
	g := (*p).buildWrapper
	_ = g
	return f
}
`,
	})
	_, docs := extractTree(t, root)
	got := edgesFrom(docs, "syntax go example.com/m/b Make", "syntax go example.com/m/")
	want := []string{
		"references b builder 0.99 syntax:same-file",
		"references b builder.buildFromSyntax 0.99 syntax:declared-type",
		"references b builder.buildWrapper 0.99 syntax:declared-type",
		"references b fn 0.99 syntax:same-file",
		"references b fn.build 0.99 syntax:declared-type",
		"references b other 0.99 syntax:same-file",
		"references b other.buildWrapper 0.99 syntax:declared-type",
	}
	if !slices.Equal(got, want) {
		t.Errorf("edges from Make:\n got %q\nwant %q", got, want)
	}
}
