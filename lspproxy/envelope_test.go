package lspproxy

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestScanEnvelope(t *testing.T) {
	for _, tc := range []struct {
		msg    string
		kind   kind
		method string
		id     string
		err    string
	}{
		{msg: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, kind: kindCall, method: "initialize", id: "1"},
		{msg: ` { "method" : "exit" , "jsonrpc":"2.0" } `, kind: kindNotification, method: "exit"},
		{msg: `{"params":{"a":"}{][\"","b":[[{}]]},"method":"a\/b\u0041","id":"x\"y"}`, kind: kindCall, method: "a/bA", id: `"x\"y"`},
		{msg: `{"jsonrpc":"2.0","result":null,"id":9007199254740993}`, kind: kindResponse, id: "9007199254740993"},
		{msg: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse"},"id":null}`, kind: kindResponse, id: "null"},
		{msg: `{"jsonrpc":"2.0","id":-1.5e3,"result":[]}`, kind: kindResponse, id: "-1.5e3"},
		{msg: `[{"id":1}]`, err: "not a JSON object"},
		{msg: `{"id":1,"method":"x"`, err: "expected ',' or '}'"},
		{msg: `{"id":1,"method":"x"} {}`, err: "trailing data"},
		{msg: `{"id":1,"method":7}`, err: "method is not a string"},
		{msg: `{"params":[1,2}`, err: "expected ',' or '}'"},
		{msg: `{"params":[1,[2]`, err: "unexpected end"},
		{msg: `{"id":{"a":1},"method":"m"}`, err: "neither a number nor a string"},
		{msg: `{"jsonrpc":"2.0"}`, err: "neither a request"},
		{msg: `{"id":tru,"result":1}`, err: "invalid literal"},
		{msg: `{"method":"m","params":"unterminated}`, err: "unterminated string"},
	} {
		e, err := scanEnvelope([]byte(tc.msg))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.msg, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.msg, err)
			continue
		}
		if e.kind != tc.kind || e.method != tc.method || string(e.id) != tc.id {
			t.Errorf("%s: got kind %d method %q id %s, want %d %q %s", tc.msg, e.kind, e.method, e.id, tc.kind, tc.method, tc.id)
		}
	}
}

// The envelope of a request of a common method and of a response costs no
// allocation.
func TestScanEnvelopeAllocs(t *testing.T) {
	req := []byte(`{"jsonrpc":"2.0","id":42,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///a.go"},"position":{"line":29,"character":16}}}`)
	resp := []byte(`{"jsonrpc":"2.0","result":[{"uri":"file:///b.go","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":4}}}],"id":42}`)
	if n := testing.AllocsPerRun(100, func() {
		if e, err := scanEnvelope(req); err != nil || e.method != "textDocument/definition" {
			t.Fatal(e.method, err)
		}
		if _, err := scanEnvelope(resp); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per request and response", n)
	}
}

// FuzzEnvelope: the scanner never panics, and on any message encoding/json
// accepts it finds the same method, id, params and result.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///a.go"},"position":{"line":1,"character":2}}}`,
		`{"jsonrpc":"2.0","id":"s1","result":[{"uri":"file:///b.go"}]}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{"kind":"end"}}}`,
		`{"method":"a\"b","params":["]}\\"]}`,
		`{"id":1,"error":{"code":1,"message":"m","data":null}}`,
		`{}`, `[]`, `{"a":`, `"x"`,
		`{"method":"exit"}`, `{"method":"textDocument\/definition","id":2}`, `{"method":"exit\u0000","id":3}`,
		// Escapes before an escaped quote, and a string past the first 16
		// bytes: the quote found first is not the end.
		`{"method":"textDocument/didOpen","params":{"textDocument":{"text":"line one\nline two\n\"quoted\" three\\\nfour"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := scanEnvelope(b)
		if err != nil || !json.Valid(b) {
			return
		}
		// Member names are case-sensitive in JSON-RPC: compare with a
		// map, not struct fields (encoding/json matches those ignoring
		// case).
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return
		}
		if raw, ok := m["method"]; ok {
			var method string
			if json.Unmarshal(raw, &method) == nil && method != e.method {
				t.Errorf("method %q, encoding/json %q", e.method, method)
			}
		}
		if !sameJSON(m["id"], e.id) || !sameJSON(m["params"], e.params) || !sameJSON(m["result"], e.result) {
			t.Errorf("members differ from encoding/json for %s", b)
		}
	})
}

func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b) || string(a) == "null" || string(b) == "null"
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// FuzzTextDocumentURI: textDocumentURI never panics, and on params that
// encoding/json accepts, with one textDocument and one uri, it finds the
// uri encoding/json finds (member names matched exactly).
func FuzzTextDocumentURI(f *testing.F) {
	for _, s := range []string{
		`{"textDocument":{"uri":"file:///a.go","languageId":"go","version":1,"text":"package a\n"}}`,
		`{"textDocument":{"version":2,"uri":"file:///b%20c.go"},"contentChanges":[{"text":"x"}]}`,
		`{"position":{"line":1},"textDocument":{"uri":"file:///\u00e9.go"}}`,
		`{"textDocument":{"uri":""}}`, `{"textDocument":{"uri":7}}`, `{"textDocument":[]}`,
		`{"TextDocument":{"uri":"file:///a.go"}}`, `{"textDocument":{"uri":"file:///a.go"`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := textDocumentURI(b)
		if !json.Valid(b) || bytes.Count(b, []byte("textDocument")) > 1 || bytes.Count(b, []byte("uri")) > 1 {
			return
		}
		var params map[string]json.RawMessage
		var doc map[string]json.RawMessage
		var want string
		if json.Unmarshal(b, &params) == nil && json.Unmarshal(params["textDocument"], &doc) == nil {
			_ = json.Unmarshal(doc["uri"], &want)
		}
		if got != want || ok != (want != "") {
			t.Errorf("textDocumentURI(%s) = %q, %v; encoding/json finds %q", b, got, ok, want)
		}
	})
}

// FuzzAnswerID: answerID never panics; on a message encoding/json accepts
// with one "id" member it finds that id, exactly as scanEnvelope does, and
// it takes no request or notification for an answer (a message with a
// method and a result is neither: see answerID).
func FuzzAnswerID(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","result":[{"uri":"file:///b.go"}],"id":7}`,
		`{"jsonrpc":"2.0","id":"s1","result":[{"uri":"file:///b.go"}]}`,
		`{"jsonrpc":"2.0","error":{"code":-1,"message":"m"},"id":"a\\\"b"}`,
		`{"result":"x\",\"id\":1}","id":2}`, `{"result":{"a":"\\\\"},"id":-3}`,
		`{"result":1 , "id" : 4 }`, `{"result":"id"}`, `{"result":null,"id":null}`,
		`{"result":[],"id":1e3}`, `{"id":1,"method":"m","result":2}`, `{"result":2,"method":"m","id":1}`,
		`{"result":[1,"id":3}`, `{"result":,"id":5}`, `{"id":1}`, `{}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		id, ok := answerID(b)
		if !ok || !json.Valid(b) || bytes.Count(b, []byte(`"id"`)) > 1 {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return
		}
		_, result := m["result"]
		_, rpcErr := m["error"]
		if _, has := m["method"]; has {
			if !result && !rpcErr {
				t.Errorf("answerID(%s) took a message with a method for an answer", b)
			}
			return // a method and a result: no JSON-RPC message
		}
		if !sameJSON(m["id"], id) {
			t.Errorf("answerID(%s) = %s, encoding/json finds %s", b, id, m["id"])
		}
		if e, err := scanEnvelope(b); err != nil || string(e.id) != string(id) {
			t.Errorf("answerID(%s) = %s, scanEnvelope %s (%v)", b, id, e.id, err)
		}
	})
}

// TestFastHead: the requests fastHead takes (vscode-jsonrpc's, eglot's and Neovim's layouts)
// and the ones it leaves to the scanner.
func TestFastHead(t *testing.T) {
	for _, c := range []struct {
		body, id, method string
	}{
		{`{"jsonrpc":"2.0","id":12,"method":"textDocument/definition","params":{}}`, `12`, "textDocument/definition"},
		{`{"jsonrpc":"2.0","id":"x-1","method":"textDocument/hover","params":{}}`, `"x-1"`, "textDocument/hover"},
		{`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`, `3`, "shutdown"},
		{`{"jsonrpc":"2.0","id":-3,"method":"shutdown"}`, ``, ""},                       // a sign
		{`{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}`, ``, ""},                      // a fraction
		{`{"jsonrpc":"2.0","id":"a\"b","method":"shutdown"}`, ``, ""},                   // an escape in the id
		{`{"jsonrpc":"2.0","id":1,"method":"textDocument/rename","params":{}}`, ``, ""}, // a method commonMethod does not know
		{`{"jsonrpc":"2.0","id":1,"method":"textDocument\/hover","params":{}}`, ``, ""},
		{`{"jsonrpc":"2.0","id":1, "method":"textDocument/hover"}`, ``, ""}, // whitespace
		{`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover" }`, ``, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover"`, ``, ""}, // cut short
		{`{"id":1,"jsonrpc":"2.0","method":"textDocument/hover"}`, ``, ""},
		{`{"id":4,"method":"textDocument/hover","params":{},"jsonrpc":"2.0"}`, `4`, "textDocument/hover"}, // Neovim's
		{`{"id":"n","method":"shutdown","jsonrpc":"2.0"}`, `"n"`, "shutdown"},
	} {
		es := startEnvelope([]byte(c.body))
		ok := es.fastHead([]byte(c.body))
		if ok != (c.method != "") || ok && (string(es.e.id) != c.id || es.e.method != c.method) {
			t.Errorf("fastHead(%s) = %v, id %s, method %q; want id %s, method %q", c.body, ok, es.e.id, es.e.method, c.id, c.method)
		}
	}
}

// FuzzFastHead: where fastHead reads a head, it leaves the scan as head
// does, and the envelope finished from there is the same; where it does
// not, the scan is untouched.
func FuzzFastHead(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":12,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///a.go"}}}`,
		`{"jsonrpc":"2.0","id":"s","method":"shutdown"}`,
		`{"jsonrpc":"2.0","id":1,"method":"exit","id":2}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}x`,
		`{"jsonrpc":"2.0","id":1,"method":"exit\"","params":1}`,
		`{"jsonrpc":"2.0","id":"","method":"exit","method":"shutdown"}`,
		`{"jsonrpc":"2.0","id":`,
		`{"id":7,"method":"textDocument/references","params":{},"jsonrpc":"2.0"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast := startEnvelope(b)
		if !fast.fastHead(b) {
			if untouched := startEnvelope(b); !reflect.DeepEqual(fast, untouched) {
				t.Fatalf("fastHead declined %q but changed the scan: %+v", b, fast)
			}
			return
		}
		slow := startEnvelope(b)
		slow.head()
		if slow.err != nil || string(fast.e.id) != string(slow.e.id) || fast.e.method != slow.e.method || fast.s.i != slow.s.i || fast.done != slow.done {
			t.Fatalf("%q: fastHead left id %s, method %q at %d (done %v); head id %s, method %q at %d (done %v, err %v)",
				b, fast.e.id, fast.e.method, fast.s.i, fast.done, slow.e.id, slow.e.method, slow.s.i, slow.done, slow.err)
		}
		fe, ferr := fast.finish()
		se, serr := slow.finish()
		if (ferr == nil) != (serr == nil) || !reflect.DeepEqual(fe, se) {
			t.Fatalf("%q: finished apart: %+v (%v) and %+v (%v)", b, fe, ferr, se, serr)
		}
	})
}

// FuzzAnswerIDFast: answerID's shortcut for the layouts gopls and
// vscode-jsonrpc write finds what the scan does, or leaves the message to
// it.
func FuzzAnswerIDFast(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","result":[{"uri":"file:///b.go"}],"id":7}`,
		`{"jsonrpc":"2.0","result":null,"id":"s"}`,
		`{"jsonrpc":"2.0","result":{"id":1}}`,
		`{"jsonrpc":"2.0","result":1,"method":"m","id":1}`,
		`{"jsonrpc":"2.0","id":12,"result":{"a":1}}`,
		`{"jsonrpc":"2.0","id":12,"result":`,
		`{"jsonrpc":"2.0","id":12,"error":{}}`,
		`{"jsonrpc":"2.0","id":12.5,"result":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fastID, fastOK, known := answerIDFast(b)
		if !known {
			return
		}
		id, ok := scanAnswerID(b)
		if fastOK != ok || string(fastID) != string(id) {
			t.Fatalf("%q: shortcut %s, %v; scan %s, %v", b, fastID, fastOK, id, ok)
		}
	})
}

func TestAnswerIDFast(t *testing.T) {
	for _, c := range []struct {
		body, id string
		known    bool
	}{
		{`{"jsonrpc":"2.0","result":[{"uri":"file:///b.go"}],"id":7}`, `7`, true},
		{`{"jsonrpc":"2.0","id":12,"result":{"a":1}}`, `12`, true},
		{`{"jsonrpc":"2.0","result":{"id":1}}`, ``, true}, // no id: not an answer
		{`{"jsonrpc":"2.0","id":12,"error":{}}`, ``, false},
		{`{"id":12,"jsonrpc":"2.0","result":{}}`, ``, false},
	} {
		id, ok, known := answerIDFast([]byte(c.body))
		if known != c.known || string(id) != c.id || ok != (c.id != "") {
			t.Errorf("answerIDFast(%s) = %s, %v, %v; want %s, known %v", c.body, id, ok, known, c.id, c.known)
		}
	}
}
