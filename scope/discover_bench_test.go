package scope

import (
	"os"
	"runtime"
	"testing"
)

// BenchmarkDiscover times Discover over LSPGRAPH_DISCOVER_ROOT (GOROOT/src
// unless set): without a cache; again through a SourceCache that holds
// every source (a work tree discovered again after a file was saved reads
// that one file more); and told that one path changed (DiscoverChanged:
// no walk), by module and by package.
func BenchmarkDiscover(b *testing.B) {
	root := os.Getenv("LSPGRAPH_DISCOVER_ROOT")
	if root == "" {
		root = runtime.GOROOT() + "/src"
	}
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			if _, err := Discover(root); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		var c SourceCache
		if _, err := c.Discover(root); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := c.Discover(root); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(c.Counts().Read), "read/op")
	})
	b.Run("changed", func(b *testing.B) {
		var c SourceCache
		if _, err := c.Discover(root); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := c.DiscoverChanged(root, []string{"a/changed.go"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("changed-packages", func(b *testing.B) {
		var c SourceCache
		if _, err := c.DiscoverPackages(root); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := c.DiscoverPackagesChanged(root, []string{"a/changed.go"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
