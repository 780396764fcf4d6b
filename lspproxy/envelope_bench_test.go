package lspproxy

import "testing"

func BenchmarkScanEnvelope(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","id":42,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///work/main/testdata/goapp/service/catalog.go"},"position":{"line":29,"character":16}}}`)
	resp := []byte(`{"jsonrpc":"2.0","result":[{"uri":"file:///work/main/testdata/goapp/store/store.go","range":{"start":{"line":10,"character":1},"end":{"line":10,"character":4}}}],"id":42}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scanEnvelope(req); err != nil {
			b.Fatal(err)
		}
		if _, err := scanEnvelope(resp); err != nil {
			b.Fatal(err)
		}
	}
}
