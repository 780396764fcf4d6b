package lspproxy

import (
	"bytes"
	"testing"
)

// writeHook is an io.Writer that runs a func on each write.
type writeHook func([]byte)

func (h writeHook) Write(b []byte) (int, error) { h(b); return len(b), nil }

// testFrame returns body framed and read back as the loops read frames.
func testFrame(t *testing.T, body string) frame {
	t.Helper()
	var buf bytes.Buffer
	fw := frameWriter{w: &buf}
	if err := fw.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	f, err := newFrameReader(&buf).next()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAnswerBeforeRegistration: an answer that comes back while the
// editor loop still registers the request it forwarded first (forwardCall)
// is routed to the editor once the request is registered, not dropped as
// an answer to an unknown request.
func TestAnswerBeforeRegistration(t *testing.T) {
	var toEditor bytes.Buffer
	p := New(Config{})
	p.editorW = frameWriter{w: &toEditor}
	answer := testFrame(t, `{"jsonrpc":"2.0","result":null,"id":7}`)
	p.serverW = frameWriter{w: writeHook(func([]byte) {
		// The server answers at once: the server loop routes the
		// answer before forwardCall has registered the request.
		p.serverFrame(answer)
		if toEditor.Len() != 0 {
			t.Errorf("answer forwarded before its request was pending: %q", toEditor.String())
		}
	})}
	request := testFrame(t, `{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{}}`)
	es := startEnvelope(request.body)
	es.head()
	if !p.forwardCall(&es, request) {
		t.Fatal("forwardCall did not forward a hover request")
	}
	if got := toEditor.String(); got != string(answer.wire) {
		t.Fatalf("editor got %q, want the answer %q", got, answer.wire)
	}
	if st := p.Stats(); st.PendingEditor != 0 {
		t.Errorf("%d requests still pending", st.PendingEditor)
	}
	// An answer to an unknown id outside registration is dropped at once.
	toEditor.Reset()
	p.serverFrame(testFrame(t, `{"jsonrpc":"2.0","result":null,"id":8}`))
	if toEditor.Len() != 0 || len(p.early) != 0 {
		t.Errorf("answer to an unknown request: editor got %q, %d kept", toEditor.String(), len(p.early))
	}
}
