package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bindings "github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"
)

// TestImportPatchInSession: a dump of the next commit, imported through
// the session, patches the base generation in place, and the session's
// next answer is the patched generation's, not the one it cached.
func TestImportPatchInSession(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	s := openSession(t, root, dir)
	ctx := context.Background()
	breaks := func() []string { return willBreak(t, s, "Catalog.Save") }
	if got := breaks(); !slices.Contains(got, "Catalog.Import") {
		t.Fatalf("before: d=1 is %v, want Catalog.Import in it", got)
	}

	// The next commit's dump: Catalog.Import no longer calls Save.
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "scip", "goapp.scip"))
	if err != nil {
		t.Fatal(err)
	}
	var idx bindings.Index
	if err := proto.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for _, d := range idx.Documents {
		if d.RelativePath != "service/catalog.go" {
			continue
		}
		d.Occurrences = slices.DeleteFunc(d.Occurrences, func(o *bindings.Occurrence) bool {
			call := strings.HasSuffix(o.Symbol, "/Catalog#Save().") && o.SymbolRoles&int32(bindings.SymbolRole_Definition) == 0
			if call {
				dropped++
			}
			return call
		})
	}
	if dropped == 0 {
		t.Fatal("the fixture's service/catalog.go has no call of Catalog.Save")
	}
	if b, err = proto.Marshal(&idx); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(t.TempDir(), "next.scip")
	if err := os.WriteFile(next, b, 0o644); err != nil {
		t.Fatal(err)
	}
	arg, _ := json.Marshal(ImportRequest{File: next, Commit: "next"})
	res, err := s.Command(ctx, CommandImport, Call{Args: []json.RawMessage{arg}})
	if err != nil {
		t.Fatal(err)
	}
	sum := res.(ImportResult).Summary
	if !sum.Patched || sum.Converted != 1 || sum.Generation != 1 {
		t.Errorf("import summary %+v, want generation 1 patched, 1 document converted", sum)
	}
	if got := breaks(); slices.Contains(got, "Catalog.Import") {
		t.Errorf("after the patch: d=1 is %v, still with Catalog.Import", got)
	}
}
