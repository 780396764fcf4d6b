package syntax

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// dumpFlat renders a flat tree one node a line, indented by depth.
func dumpFlat(f *flat) string {
	var b strings.Builder
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		r := n.rec()
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), n.Type())
		if fl := n.field(); fl != "" {
			fmt.Fprintf(&b, " %s:", fl)
		}
		fmt.Fprintf(&b, " [%d,%d) %d:%d-%d:%d\n", r.startByte, r.endByte, r.startRow, r.startCol, r.endRow, r.endCol)
		for c := n.firstChild(); c != nil; c = c.nextSibling() {
			walk(c, depth+1)
		}
	}
	if len(f.recs) > 0 {
		walk(f.root(), 0)
	}
	return b.String()
}

func TestDumpTreeSitterGo(t *testing.T) {
	p := os.Getenv("GOAST_DUMP")
	if p == "" {
		t.Skip("GOAST_DUMP not set")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var f flat
	defer f.free()
	if err := f.parse(newGrammar("go", "go"), src, time.Second); err != nil {
		t.Fatal(err)
	}
	fmt.Print(dumpFlat(&f))
}
