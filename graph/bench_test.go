package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// synthDoc builds document i of a synthetic workspace shaped like a SCIP
// dump of a Go repository (the pebble corpus averages 550 occurrences and
// 87 definitions per document): it defines syms symbols and makes occs
// occurrences, most referencing symbols of other documents with a skewed
// popularity, and one edge per distinct (enclosing, referenced) pair.
func synthDoc(rng *rand.Rand, i, docs, syms, occs int) DocumentFacts {
	path := fmt.Sprintf("pkg%03d/file%05d.go", i%200, i)
	f := DocumentFacts{Document: Document{Path: path, Language: "go", Package: fmt.Sprintf("example.com/pkg%03d", i%200), Digest: "d"}}
	symID := func(doc, n int) string {
		return fmt.Sprintf("scip-go gomod example.com v1 `example.com/pkg%03d`/Sym%05d_%d().", doc%200, doc, n)
	}
	for n := range syms {
		r := textpos.Range{Start: textpos.Position{Line: uint32(n * 10), Col: 5}, End: textpos.Position{Line: uint32(n * 10), Col: 12}}
		f.Symbols = append(f.Symbols, Symbol{ID: symID(i, n), DisplayName: fmt.Sprintf("Sym%05d_%d", i, n), Kind: "function",
			Language: "go", Signature: "func(ctx context.Context) error", Def: Location{Path: path, Range: r}})
		f.Occurrences = append(f.Occurrences, Occurrence{Range: r, Symbol: symID(i, n), Roles: RoleDefinition})
	}
	edges := map[[2]string]int{}
	for n := syms; n < occs; n++ {
		// Zipf-like: small document numbers are referenced most.
		doc := int(float64(docs) * rng.Float64() * rng.Float64() * rng.Float64())
		target := symID(doc, rng.IntN(syms))
		enc := symID(i, (n-syms)%syms)
		line := uint32(n/4*3 + 1)
		col := uint32(n%4*20 + 4)
		r := textpos.Range{Start: textpos.Position{Line: line, Col: col}, End: textpos.Position{Line: line, Col: col + 8}}
		f.Occurrences = append(f.Occurrences, Occurrence{Range: r, Symbol: target, Roles: RoleReference | RoleCall, Enclosing: enc})
		edges[[2]string{enc, target}]++
	}
	for k, c := range edges {
		f.Edges = append(f.Edges, Edge{From: k[0], Kind: EdgeReferences, To: k[1], Confidence: 1, Source: SourceSCIP, Count: c})
	}
	slices.SortFunc(f.Edges, func(a, b Edge) int { return cmpStrings(a.From+a.To, b.From+b.To) })
	return f
}

func cmpStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func factCount(docs []DocumentFacts) int {
	n := 0
	for _, f := range docs {
		n += 1 + len(f.Symbols) + len(f.Occurrences) + len(f.Edges)
	}
	return n
}

// BenchmarkWrite compares GenerationWriter.PutDocument with a raw Pebble
// baseline writing the same keys and values, one batch per document, into
// the same kind of store, in the same run.
func BenchmarkWrite(b *testing.B) {
	const docs, syms, occs = 200, 90, 550
	rng := rand.New(rand.NewPCG(1, 2))
	facts := make([]DocumentFacts, docs)
	for i := range facts {
		facts[i] = synthDoc(rng, i, docs, syms, occs)
	}
	nFacts := factCount(facts)
	var kvs [][2][]byte // the keys the store writes, per document in order
	var docEnds []int
	for i := range facts {
		nf, err := normalizeFacts(facts[i])
		if err != nil {
			b.Fatal(err)
		}
		_ = emitRecords(genSpace(1), &nf, &hashSymIDs{}, func(k, v []byte) error {
			kvs = append(kvs, [2][]byte{slices.Clone(k), slices.Clone(v)})
			return nil
		})
		docEnds = append(docEnds, len(kvs))
	}
	b.Run("graph", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			benchGeneration(b, facts)
		}
		reportRate(b, nFacts, len(kvs), cpuTime()-cpu0)
	})
	b.Run("pebble-baseline", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			benchRawPebble(b, kvs, docEnds)
		}
		reportRate(b, nFacts, len(kvs), cpuTime()-cpu0)
	})
}

// BenchmarkLiveWrite rewrites documents of the live layer, as an editor's
// session does while files are edited: 1,000 synthetic documents written
// once, then each operation replaces the next one (its old records
// deleted, its new ones written, in one batch).
func BenchmarkLiveWrite(b *testing.B) {
	ctx := context.Background()
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	const docs = 1000
	facts := make([]DocumentFacts, docs)
	for i := range facts {
		facts[i] = synthDoc(rng, i, docs, 20, 150)
		if err := s.PutDocument(ctx, Live, facts[i]); err != nil {
			b.Fatal(err)
		}
	}
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		f := facts[i%docs]
		f.Document.Digest = fmt.Sprint(i)
		if err := s.PutDocument(ctx, Live, f); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
}

// reportRate reports facts and keys per wall-clock second, and facts per
// CPU second of the whole process (background compactions included), which
// is steadier on a loaded machine.
func reportRate(b *testing.B, facts, keys int, cpu time.Duration) {
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(facts)/sec, "facts/s")
	b.ReportMetric(float64(keys)/sec, "keys/s")
	b.ReportMetric(float64(facts)/(cpu.Seconds()/float64(b.N)), "facts/cpu-s")
}

func benchGeneration(b *testing.B, facts []DocumentFacts) {
	ctx := context.Background()
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range facts {
		if err := g.PutDocument(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
	if err := g.Commit(ctx, Manifest{}); err != nil {
		b.Fatal(err)
	}
}

func benchRawPebble(b *testing.B, kvs [][2][]byte, docEnds []int) {
	dir := b.TempDir()
	db, err := pebble.Open(dir, pebbleOptions(vfs.Default, nil, false))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := 0
	for _, end := range docEnds {
		batch := db.NewBatch()
		for _, kv := range kvs[start:end] {
			_ = batch.Set(kv[0], kv[1], nil)
		}
		if err := batch.Commit(pebble.NoSync); err != nil {
			b.Fatal(err)
		}
		batch.Close()
		start = end
	}
	if err := db.Flush(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRead measures References and Incoming on a synthetic graph of
// 1.1M occurrences built once, and reports p50/p99 latencies.
func BenchmarkRead(b *testing.B) {
	const docs, syms, occs = 2000, 90, 550
	ctx := context.Background()
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	g, err := s.BeginGeneration(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	start := time.Now()
	for i := range docs {
		f := synthDoc(rng, i, docs, syms, occs)
		ids = append(ids, f.Symbols[rng.IntN(len(f.Symbols))].ID)
		if err := g.PutDocument(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
	if err := g.Commit(ctx, Manifest{}); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d documents, %d occurrences in %s", docs, docs*occs, time.Since(start).Round(time.Millisecond))
	m := s.db.Metrics()
	b.Logf("after load: L0 %d files in %d sublevels, read amplification %d", m.Levels[0].TablesCount, m.Levels[0].Sublevels, m.ReadAmp())
	// Measure the steady state an editor session sees, not the minute of
	// compactions that follows a bulk load.
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if m = s.db.Metrics(); m.Compact.NumInProgress == 0 && m.Levels[0].Sublevels <= 1 {
			break
		}
	}
	b.Logf("measured at read amplification %d", m.ReadAmp())
	r, err := s.Reader()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.Run("References", func(b *testing.B) {
		benchLatency(b, ids, func(id string) (int, error) {
			occs, err := r.References(ctx, id, 0)
			return len(occs), err
		})
	})
	b.Run("Incoming", func(b *testing.B) {
		benchLatency(b, ids, func(id string) (int, error) {
			es, err := r.Incoming(ctx, id, EdgeFilter{})
			return len(es), err
		})
	})
}

// benchLatency calls query on ids in turn and reports p50/p99 of the
// wall-clock latency and of the CPU time the calling thread spent (which a
// loaded machine's scheduling does not inflate), and the mean result size.
func benchLatency(b *testing.B, ids []string, query func(string) (int, error)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var lat, cpu []time.Duration
	total := 0
	i := 0
	for b.Loop() {
		t0, c0 := time.Now(), threadCPU()
		n, err := query(ids[i%len(ids)])
		cpu = append(cpu, threadCPU()-c0)
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		total += n
		i++
	}
	report := func(d []time.Duration, name string) {
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1e3, "p50-"+name)
		b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds())/1e3, "p99-"+name)
	}
	report(lat, "µs")
	report(cpu, "cpu-µs")
	b.ReportMetric(float64(total)/float64(len(lat)), "results/op")
}
