package rootfs

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile reads a file six directories deep through a Root,
// beside os.Root's own read and an unconfined os.ReadFile as baselines.
func BenchmarkReadFile(b *testing.B) {
	dir := b.TempDir()
	rel := "a/b/c/d/e/f.go"
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, 4096), 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, bm := range []struct {
		name string
		read func() ([]byte, error)
	}{
		{"rootfs", func() ([]byte, error) { return r.ReadFile(rel) }},
		{"os.Root", func() ([]byte, error) { return r.root.ReadFile(filepath.FromSlash(rel)) }},
		{"os.ReadFile", func() ([]byte, error) { return os.ReadFile(p) }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bm.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
