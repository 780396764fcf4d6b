package lspproxy

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"
)

// BenchmarkForwardCPU measures the proxy's own work per definition round
// trip (request in, answer out, one pending at a time), without pipes or
// scheduling, beside
// CopyFrames (the bare copier) moving the same frames, in one run: each
// iteration runs both over 1,000 round trips, in alternating order, so load
// on a shared machine hits both alike. The proxy has an observer, so the
// copies it makes for it count; its queue holds one observation (nothing
// drains it here), the rest are dropped. Metrics: the median per round
// trip of each and their ratio.
func BenchmarkForwardCPU(b *testing.B) {
	const n = 1000
	var reqs, resps bytes.Buffer
	fw := frameWriter{}
	for i := range n {
		fw.w = &reqs
		fw.Write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///work/main/testdata/goapp/service/catalog.go"},"position":{"line":29,"character":16}}}`, i))
		fw.w = &resps
		fw.Write(fmt.Appendf(nil, `{"jsonrpc":"2.0","result":[{"uri":"file:///work/main/testdata/goapp/store/store.go","range":{"start":{"line":16,"character":1},"end":{"line":16,"character":4}}}],"id":%d}`, i))
	}
	proxied := func() {
		p := New(Config{QueueSize: 1, Observer: Observer{OnExchange: func(Exchange) {}}})
		p.editorW = frameWriter{w: io.Discard}
		p.serverW = frameWriter{w: io.Discard}
		// Request, answer, request...: one request pending at a time, as
		// an editor waiting for each answer has it.
		editor := newFrameReader(bytes.NewReader(reqs.Bytes()))
		server := newFrameReader(bytes.NewReader(resps.Bytes()))
		for range n {
			f, err := editor.next()
			if err != nil {
				b.Fatal(err)
			}
			p.editorFrame(f)
			if f, err = server.next(); err != nil {
				b.Fatal(err)
			}
			p.serverFrame(f)
		}
		// The loops count frames; here every answer must have found its
		// request and been handed to the observer (queued or dropped).
		if st := p.Stats(); st.PendingEditor != 0 || int64(st.Queued)+st.Dropped != n || st.Malformed != 0 {
			b.Fatalf("proxy stats %+v", st)
		}
	}
	copier := func() {
		for _, in := range []*bytes.Buffer{&reqs, &resps} {
			if err := CopyFrames(io.Discard, bytes.NewReader(in.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
	}
	var tp, tc []time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for k := range 2 {
			t0 := time.Now()
			if (i+k)%2 == 0 {
				proxied()
				tp = append(tp, time.Since(t0))
			} else {
				copier()
				tc = append(tc, time.Since(t0))
			}
		}
	}
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Nanoseconds()) / n
	}
	p, c := median(tp), median(tc)
	b.ReportMetric(p, "ns/roundtrip-proxied")
	b.ReportMetric(c, "ns/roundtrip-copier")
	b.ReportMetric(p/c, "proxied/copier")
	b.ReportMetric(0, "ns/op")
}
