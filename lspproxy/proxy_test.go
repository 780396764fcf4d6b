package lspproxy_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

func TestMain(m *testing.M) {
	lsptest.MaybeRunFakeServer()
	maybeRunBenchMiddle()
	os.Exit(m.Run())
}

// testConfig has one injected command besides the built-in status.
func testConfig() lspproxy.Config {
	return lspproxy.Config{
		ServerName: "fake",
		Commands: map[string]lspproxy.CommandFunc{
			"lspgraph.impact": func(ctx context.Context, args []json.RawMessage, srv lspproxy.Requester) (any, error) {
				return map[string]any{"args": args}, nil
			},
		},
	}
}

// runBoth runs a scenario directly and through the proxy and checks that
// each side received the same messages, except the documented initialize
// rewrite.
func runBoth(t *testing.T, cfg lspproxy.Config, scenario func(t *testing.T, c *lsptest.Connection)) {
	t.Helper()
	var editor, server [2][]json.RawMessage
	for i, conn := range lsptest.Both(cfg) {
		ok := t.Run(conn.Name, func(t *testing.T) {
			c := conn.Connect(t)
			scenario(t, c)
			editor[i], server[i] = c.Editor.Received(), c.Server.Received()
		})
		if !ok {
			return
		}
	}
	if d := lsptest.Diff(editor[0], editor[1], lsptest.UndoInitializeRewrite); d != "" {
		t.Errorf("editor received different messages through the proxy:\n%s", d)
	}
	if d := lsptest.Diff(server[0], server[1], nil); d != "" {
		t.Errorf("server received different messages through the proxy:\n%s", d)
	}
}

// expect fails unless msg holds the same JSON value as want.
func expect(t *testing.T, msg json.RawMessage, want string) {
	t.Helper()
	if d := lsptest.Diff([]json.RawMessage{json.RawMessage(want)}, []json.RawMessage{msg}, nil); d != "" {
		t.Fatal(d)
	}
}

// field decodes one member path of msg.
func field(t *testing.T, msg json.RawMessage, path ...string) any {
	t.Helper()
	v, err := lsptest.Decode(msg)
	if err != nil {
		t.Fatalf("decoding %s: %v", msg, err)
	}
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":42,"rootUri":"file:///work/app","capabilities":{"window":{"workDoneProgress":true}},"workspaceFolders":[{"uri":"file:///work/app","name":"app"}]}}`

// initialize runs initialize/initialized with the given server
// capabilities and returns the result the editor received.
func initialize(t *testing.T, c *lsptest.Connection, caps string) json.RawMessage {
	t.Helper()
	c.Editor.Send(t, initializeRequest)
	expect(t, c.Server.Recv(t), initializeRequest)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":1,"result":{"capabilities":`+caps+`,"serverInfo":{"name":"fake","version":"0.1"}}}`)
	got := c.Editor.Recv(t)
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	expect(t, c.Server.Recv(t), `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	return got
}

// shutdown runs shutdown and exit, with the server closing its end after
// exit as a real server does.
func shutdown(t *testing.T, c *lsptest.Connection) {
	t.Helper()
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":99,"method":"shutdown"}`)
	expect(t, c.Server.Recv(t), `{"jsonrpc":"2.0","id":99,"method":"shutdown"}`)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":99,"result":null}`)
	expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":99,"result":null}`)
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"exit"}`)
	expect(t, c.Server.Recv(t), `{"jsonrpc":"2.0","method":"exit"}`)
	c.Server.Close()
	if err := c.Wait(t, lsptest.Timeout); err != nil {
		t.Fatalf("proxy after shutdown and exit: %v", err)
	}
}

func commands(t *testing.T, initResult json.RawMessage) []string {
	t.Helper()
	list, _ := field(t, initResult, "result", "capabilities", "executeCommandProvider", "commands").([]any)
	var out []string
	for _, c := range list {
		out = append(out, c.(string))
	}
	return out
}

func TestInitialize(t *testing.T) {
	for _, tc := range []struct {
		name, caps string
		want       []string
	}{
		{"no provider", `{"hoverProvider":true}`, []string{"lspgraph.impact", "lspgraph.status"}},
		{"empty list", `{"executeCommandProvider":{"commands":[]}}`, []string{"lspgraph.impact", "lspgraph.status"}},
		{"merge", `{"executeCommandProvider":{"commands":["gopls.tidy","lspgraph.status"],"workDoneProgress":true}}`, []string{"gopls.tidy", "lspgraph.status", "lspgraph.impact"}},
		{"null provider", `{"executeCommandProvider":null,"positionEncoding":"utf-8"}`, []string{"lspgraph.impact", "lspgraph.status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runBoth(t, testConfig(), func(t *testing.T, c *lsptest.Connection) {
				got := initialize(t, c, tc.caps)
				if c.Proxy == nil {
					return
				}
				if cmds := commands(t, got); !reflect.DeepEqual(cmds, tc.want) {
					t.Errorf("advertised commands = %q, want %q", cmds, tc.want)
				}
				if tc.name == "merge" && field(t, got, "result", "capabilities", "executeCommandProvider", "workDoneProgress") != true {
					t.Errorf("workDoneProgress lost from executeCommandProvider: %s", got)
				}
				s := c.Proxy.Session()
				if s.RootURI != "file:///work/app" || s.ServerName != "fake" || s.ServerVersion != "0.1" {
					t.Errorf("session = %+v", s)
				}
				wantEnc := "utf-16"
				if strings.Contains(tc.caps, "utf-8") {
					wantEnc = "utf-8"
				}
				if s.Encoding.String() != wantEnc {
					t.Errorf("encoding = %v, want %s", s.Encoding, wantEnc)
				}
			})
		})
	}
}

func TestMessagesBothWays(t *testing.T) {
	runBoth(t, testConfig(), func(t *testing.T, c *lsptest.Connection) {
		initialize(t, c, `{}`)
		// Editor notification and request; an id beyond int32 and unknown
		// members at every level must survive.
		didOpen := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///work/app/a.go","languageId":"go","version":1,"text":"package a\n"}}}`
		c.Editor.Send(t, didOpen)
		expect(t, c.Server.Recv(t), didOpen)
		def := `{"jsonrpc":"2.0","id":4294967297,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///work/app/a.go"},"position":{"line":0,"character":8},"futureField":[1,2.50,{"a":null}],"workDoneToken":"w1"},"extraMember":true}`
		c.Editor.Send(t, def)
		expect(t, c.Server.Recv(t), def)
		defResult := `{"jsonrpc":"2.0","id":4294967297,"result":[{"uri":"file:///work/app/b.go","range":{"start":{"line":3,"character":5},"end":{"line":3,"character":8}},"originSelectionRange2030":{}}]}`
		c.Server.Send(t, defResult)
		expect(t, c.Editor.Recv(t), defResult)
		// Server notifications and server-to-client requests with numeric
		// and string ids.
		for _, m := range []string{
			`{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"loading <a&b>"}}`,
			`{"jsonrpc":"2.0","id":0,"method":"window/workDoneProgress/create","params":{"token":"p1"}}`,
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"p1","value":{"kind":"begin","title":"Loading"}}}`,
			`{"jsonrpc":"2.0","id":"s1","method":"workspace/configuration","params":{"items":[{"section":"gopls"}]}}`,
			`{"jsonrpc":"2.0","id":8,"method":"client/registerCapability","params":{"registrations":[{"id":"r","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":[{"globPattern":"**/*.go"}]}}]}}`,
			`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"p1","value":{"kind":"end"}}}`,
		} {
			c.Server.Send(t, m)
			expect(t, c.Editor.Recv(t), m)
		}
		for _, m := range []string{
			`{"jsonrpc":"2.0","id":0,"result":null}`,
			`{"jsonrpc":"2.0","id":"s1","result":[{"buildFlags":[]}]}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"no","data":{"why":[1]}}}`,
		} {
			c.Editor.Send(t, m)
			expect(t, c.Server.Recv(t), m)
		}
		// A server command is forwarded.
		exec := `{"jsonrpc":"2.0","id":"e1","method":"workspace/executeCommand","params":{"command":"gopls.tidy","arguments":[{"URIs":["file:///work/app/go.mod"]}]}}`
		c.Editor.Send(t, exec)
		expect(t, c.Server.Recv(t), exec)
		c.Server.Send(t, `{"jsonrpc":"2.0","id":"e1","result":null}`)
		expect(t, c.Editor.Recv(t), `{"jsonrpc":"2.0","id":"e1","result":null}`)
		shutdown(t, c)
	})
}

func TestCancellation(t *testing.T) {
	runBoth(t, testConfig(), func(t *testing.T, c *lsptest.Connection) {
		initialize(t, c, `{}`)
		for _, id := range []string{`3`, `"abc"`} {
			req := `{"jsonrpc":"2.0","id":` + id + `,"method":"textDocument/references","params":{"textDocument":{"uri":"file:///a.go"},"position":{"line":1,"character":2},"context":{"includeDeclaration":true}}}`
			cancel := `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`
			c.Editor.Send(t, req)
			c.Editor.Send(t, cancel)
			expect(t, c.Server.Recv(t), req)
			expect(t, c.Server.Recv(t), cancel)
			resp := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32800,"message":"cancelled"}}`
			c.Server.Send(t, resp)
			expect(t, c.Editor.Recv(t), resp)
		}
		// The server cancels its own request to the editor.
		for _, id := range []string{`9`, `"srv-9"`} {
			req := `{"jsonrpc":"2.0","id":` + id + `,"method":"workspace/applyEdit","params":{"edit":{}}}`
			cancel := `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`
			c.Server.Send(t, req)
			c.Server.Send(t, cancel)
			expect(t, c.Editor.Recv(t), req)
			expect(t, c.Editor.Recv(t), cancel)
			resp := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32800,"message":"cancelled"}}`
			c.Editor.Send(t, resp)
			expect(t, c.Server.Recv(t), resp)
		}
		shutdown(t, c)
	})
}
