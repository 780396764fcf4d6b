package graph

import (
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// TestTableSyncsReportsFailure: a table whose sync fails, among tables
// that sync, fails the merge that wrote them (it is not ingested), and
// every file is closed either way.
func TestTableSyncsReportsFailure(t *testing.T) {
	mem := vfs.NewMem()
	failing := errorfs.InjectorFunc(func(op errorfs.Op) error {
		if op.Kind == errorfs.OpFileSync && op.Path == "bad.sst" {
			return errorfs.ErrInjected
		}
		return nil
	})
	fs := errorfs.Wrap(mem, failing)
	var syncs tableSyncs
	for _, name := range []string{"a.sst", "bad.sst", "b.sst"} {
		f, err := fs.Create(name, "")
		if err != nil {
			t.Fatal(err)
		}
		tf := newTableFile(f, &syncs)
		if err := tf.Write([]byte("table " + name)); err != nil {
			t.Fatal(err)
		}
		if err := tf.Finish(); err != nil {
			t.Fatalf("Finish %s: %v (the sync's error belongs to wait)", name, err)
		}
	}
	err := syncs.wait()
	if !errors.Is(err, errorfs.ErrInjected) {
		t.Fatalf("wait = %v, want the injected sync failure", err)
	}
	for _, name := range []string{"a.sst", "b.sst"} {
		fi, err := mem.Stat(name)
		if err != nil || fi.Size() != int64(len("table "+name)) {
			t.Errorf("%s: %v, %v: want its bytes written", name, fi, err)
		}
	}

	var ok tableSyncs
	f, err := mem.Create("good.sst", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := newTableFile(f, &ok).Finish(); err != nil {
		t.Fatal(err)
	}
	if err := ok.wait(); err != nil {
		t.Errorf("wait after syncs that succeed = %v", err)
	}
}
