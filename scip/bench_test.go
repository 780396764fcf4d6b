package scip

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/scip-code/scip/bindings/go/scip"
)

// benchDumps are the dumps the benchmarks run on: the small fixture, the
// corpus dumps when present (pebble-go only without -short).
func benchDumps(b *testing.B) map[string][]byte {
	dumps := map[string][]byte{"tsworkspace": readDump(b, "tsworkspace")}
	for _, name := range []string{"tanstack-store-ts", "pebble-go"} {
		if name == "pebble-go" && testing.Short() {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(corpusDir(b), name+".scip")); err == nil {
			dumps[name] = data
		}
	}
	return dumps
}

// BenchmarkImport imports a dump into a fresh store per iteration.
func BenchmarkImport(b *testing.B) {
	for _, name := range sortedMapKeys(benchDumps(b)) {
		data := benchDumps(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			// CPU time (user and system, all threads) is steadier than wall
			// time on a shared machine; it includes the stores' opening.
			cpu0 := cpuSeconds()
			for b.Loop() {
				b.StopTimer()
				store, err := graph.Open(filepath.Join(b.TempDir(), "store"), graph.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := importBytes(store, data, Options{}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				store.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(len(data)), "input-bytes/op")
			b.ReportMetric((cpuSeconds()-cpu0)*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkConvert decodes and converts a dump without a store: the
// importer's own cost, to compare with BenchmarkImport.
func BenchmarkConvert(b *testing.B) {
	for _, name := range sortedMapKeys(benchDumps(b)) {
		data := benchDumps(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				_, err := ConvertStream(context.Background(), bytes.NewReader(data), Options{Size: int64(len(data))},
					func(context.Context, graph.DocumentFacts) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data)), "input-bytes/op")
		})
	}
}

// BenchmarkReimport imports a dump into a fresh store (not timed), then
// times the import of the same dump again and of the dump with one
// document in a hundred changed and one gone: the imports a CI job runs
// from commit to commit, which patch the generation in place.
func BenchmarkReimport(b *testing.B) {
	for _, name := range sortedMapKeys(benchDumps(b)) {
		data := benchDumps(b)[name]
		edited, _, _ := editEveryHundredth(b, data)
		edits := map[string][]byte{"same": data, "edited": edited}
		for _, edit := range []string{"same", "edited"} {
			b.Run(name+"/"+edit, func(b *testing.B) {
				in := edits[edit]
				b.SetBytes(int64(len(in)))
				var cpu float64
				for b.Loop() {
					b.StopTimer()
					store, err := graph.Open(filepath.Join(b.TempDir(), "store"), graph.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := importBytes(store, data, Options{}); err != nil {
						b.Fatal(err)
					}
					cpu0 := cpuSeconds()
					b.StartTimer()
					sum, err := importBytes(store, in, Options{})
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					cpu += cpuSeconds() - cpu0
					if !sum.Patched {
						b.Fatalf("%s: the import wrote a new generation, want a patch", edit)
					}
					store.Close()
					b.StartTimer()
				}
				b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// editEveryHundredth returns the dump with the last occurrence of every
// hundredth document dropped and its second document gone, and how many
// documents that changed and deleted (those whose path imports).
func editEveryHundredth(t testing.TB, data []byte) (edited []byte, changed, deleted int) {
	idx := parseIndex(t, data)
	var docs []*scip.Document
	for i, d := range idx.Documents {
		_, skip := cleanPath(d.RelativePath)
		if i == 1 {
			if skip == "" {
				deleted++
			}
			continue
		}
		if i%100 == 7 && len(d.Occurrences) > 1 {
			d.Occurrences = d.Occurrences[:len(d.Occurrences)-1]
			if skip == "" {
				changed++
			}
		}
		docs = append(docs, d)
	}
	idx.Documents = docs
	return marshalIndex(t, idx), changed, deleted
}
