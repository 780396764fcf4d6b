package lspproxy

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// BenchmarkForwardCPU measures the proxy's own work per definition round
// trip (request in, response out), without pipes or scheduling, beside a
// frame copier doing the same reads and writes.
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
	b.Run("path=proxied", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := New(Config{QueueSize: 1})
			p.editorW = frameWriter{w: io.Discard}
			p.serverW = frameWriter{w: io.Discard}
			p.editorLoop(newFrameReader(bytes.NewReader(reqs.Bytes())))
			close(p.exitSeen) // keep serverEnded quiet
			p.exitSent = true
			p.serverLoop(newFrameReader(bytes.NewReader(resps.Bytes())))
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/roundtrip")
	})
	b.Run("path=copier", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, in := range []*bytes.Buffer{&reqs, &resps} {
				fr := newFrameReader(bytes.NewReader(in.Bytes()))
				w := frameWriter{w: io.Discard}
				for {
					body, err := fr.Read()
					if err != nil {
						break
					}
					w.Write(body)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/roundtrip")
	})
}
