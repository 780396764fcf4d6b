package lspproxy

import (
	"fmt"
	"strings"
	"testing"
)

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

// BenchmarkScanEnvelopeLongText scans a didOpen whose text has an escape
// every 50 bytes and no quote, at two sizes: the time per byte should not
// grow with the text.
func BenchmarkScanEnvelopeLongText(b *testing.B) {
	for _, mb := range []int{1, 4} {
		text := strings.Repeat(strings.Repeat("x", 48)+`\n`, mb*20000)
		msg := []byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.py","languageId":"python","version":1,"text":"` + text + `"}}}`)
		b.Run(fmt.Sprintf("text=%dMB", mb), func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				e, err := scanEnvelope(msg)
				if err != nil || e.method != "textDocument/didOpen" || len(e.params) != len(msg)-len(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":`)-1 {
					b.Fatalf("%v %q %d", err, e.method, len(e.params))
				}
			}
		})
	}
}

// BenchmarkTextDocumentURI reads the uri of a didOpen of a 4 MB text, as
// the editor loop does for every text document notification.
func BenchmarkTextDocumentURI(b *testing.B) {
	text := strings.Repeat(strings.Repeat("x", 48)+`\n`, 80000)
	params := []byte(`{"textDocument":{"uri":"file:///a.py","languageId":"python","version":1,"text":"` + text + `"}}`)
	b.SetBytes(int64(len(params)))
	for b.Loop() {
		if uri, ok := textDocumentURI(params); !ok || uri != "file:///a.py" {
			b.Fatal(uri, ok)
		}
	}
}
