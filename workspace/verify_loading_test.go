package workspace

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

// TestProxyVerifyWhileLoading: a server that answers from a syntax-only
// view until its project has loaded is not asked to verify before then:
// the answer says why d=1 is unverified. Once it has loaded, lspgraph.impact
// asks it (references, then call hierarchy) before answering.
func TestProxyVerifyWhileLoading(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	x := &proxied{s: openSession(t, root, dir)} // closed after the proxy has stopped
	c := lsptest.Proxied(lspproxy.Config{ServerName: "scripted", Commands: x.commands(), Observer: x.observer(), StartGated: true}).Connect(t)
	x.setProxy(c.Proxy)

	c.Editor.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":%q,"capabilities":{}}}`, fileURI(root)))
	c.Server.Recv(t)
	c.Server.Send(t, `{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}`)
	c.Editor.Recv(t)
	c.Editor.Send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	c.Server.Recv(t)

	impactOf := func(id int) impactReply {
		t.Helper()
		c.Editor.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"workspace/executeCommand","params":{"command":"lspgraph.impact","arguments":["Catalog.Save"]}}`, id))
		var r impactReply
		if err := json.Unmarshal(c.Editor.Recv(t), &r); err != nil || r.Error != nil || r.Result.Verification == nil {
			t.Fatalf("lspgraph.impact: %+v %v", r, err)
		}
		return r
	}
	r := impactOf(2)
	if v := r.Result.Verification; !strings.Contains(v.Error, "still loading") {
		t.Errorf("verification while the server loads: %+v, want it to say the server is still loading", v)
	}
	if d := r.Result.Depths[0].Dependents; len(d) == 0 || d[0].Verification != impact.Unverified {
		t.Errorf("d=1 while the server loads: %+v, want unverified dependents", d)
	}

	// The server has loaded; the proxy asks it before answering.
	c.Server.Send(t, `{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///x.go","diagnostics":[]}}`)
	c.Editor.Recv(t)
	c.Editor.Send(t, `{"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"lspgraph.impact","arguments":["Catalog.Save"]}}`)
	var asked []string
	for _, result := range []string{"[]", "null"} {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(c.Server.Recv(t), &req); err != nil {
			t.Fatal(err)
		}
		asked = append(asked, req.Method)
		c.Server.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result))
	}
	if fmt.Sprint(asked) != "[textDocument/references textDocument/prepareCallHierarchy]" {
		t.Errorf("the proxy asked the server %v", asked)
	}
	var after impactReply
	if err := json.Unmarshal(c.Editor.Recv(t), &after); err != nil || after.Result.Verification == nil {
		t.Fatalf("lspgraph.impact after the load: %+v %v", after, err)
	}
	if v := after.Result.Verification; !v.Ran || v.Error != "" || v.GraphOnly == 0 {
		t.Errorf("verification after the load: %+v, want a run that found the graph's dependents graph-only", v)
	}
}

type impactReply struct {
	Result struct {
		Depths []struct {
			Dependents []impact.Dependent `json:"dependents"`
		} `json:"depths"`
		Verification *impact.VerificationInfo `json:"verification"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}
