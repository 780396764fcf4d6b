package goconv

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
)

// TestCollectGobreak checks every kind of site in testdata/gobreak/use,
// read off the source by hand (and against `go build` after changing
// Square.Name's signature: testdata/README.md): kind, line:col (1-based)
// and the enclosing declaration, for the sites that need Square.Name.
func TestCollectGobreak(t *testing.T) {
	r, err := Collect(context.Background(), "../testdata/gobreak")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) > 0 {
		t.Fatalf("type errors: %v", r.Errors)
	}
	name := graph.ConversionSymbol("example.com/gobreak/shape", "Square", "Name")
	iface := graph.ConversionSymbol("example.com/gobreak/shape", "Namer", "Name")
	size := graph.ConversionSymbol("example.com/gobreak/shape", "Square", "Size")
	var got, sizes []string
	for _, s := range r.Sites["use/use.go"] {
		at := fmt.Sprintf("%d:%d %s [%s]", s.Range.Start.Line+1, s.Range.Start.Col+1, s.Kind, s.EnclosingName)
		if slices.Contains(s.Needs, name) {
			got = append(got, at)
			if !slices.Contains(s.Needs, iface) {
				t.Errorf("%s needs Square.Name but not Namer.Name: %v", at, s.Needs)
			}
		}
		if slices.Contains(s.Needs, size) {
			sizes = append(sizes, at)
		}
	}
	want := []string{
		"11:21 var declaration []",
		"16:6 assignment [Assign]",
		"22:22 var declaration [Declare]",
		"30:12 argument [Argument]",
		"35:9 return [Return]",
		"45:19 composite-literal field [Field]",
		"50:23 composite-literal element [Elements]",
		"50:76 composite-literal element [Elements]",
		"60:14 comparison [Compare]",
		"65:18 type assertion [Assert]",
		"69:7 type switch case [Assert]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sites needing Square.Name:\n got %q\nwant %q", got, want)
	}
	if want := []string{"55:8 channel send [Send]"}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("sites needing Square.Size: %q, want %q", sizes, want)
	}
	if occ := r.Occurrences()["use/use.go"]; len(occ) == 0 || occ[0].Roles&graph.RoleConversion == 0 {
		t.Errorf("occurrences lack the conversion role: %+v", occ)
	}
}
