package scip

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
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
