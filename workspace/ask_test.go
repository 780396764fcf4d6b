package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestAsk: a plain request on the session socket answers like the
// JSON-RPC one; a command's error comes back as its message; with no
// session, Ask says so.
func TestAsk(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	ctx := context.Background()
	if _, _, err := Ask(ctx, dir, "cli", CommandStatus, nil, 0); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Ask with no session: %v; want ErrNoSession", err)
	}
	s := openSession(t, root, dir)
	ln, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	raw, _, err := Ask(ctx, dir, "cli", CommandImpact, []json.RawMessage{json.RawMessage(`"Catalog.Save"`)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctx, dir, "cli", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var viaRPC json.RawMessage
	if err := c.Command(ctx, CommandImpact, []json.RawMessage{json.RawMessage(`"Catalog.Save"`)}, 0, &viaRPC); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := json.Compact(&a, raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&b, viaRPC); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || !strings.Contains(a.String(), "Catalog.Import") {
		t.Errorf("plain and JSON-RPC answers differ or lack Catalog.Import:\n%.300s\n%.300s", raw, viaRPC)
	}
	_, pid, err := Ask(ctx, dir, "cli", CommandImpact, []json.RawMessage{json.RawMessage(`"NoSuchSymbolAnywhere"`)}, 0)
	if err == nil || !strings.Contains(err.Error(), "NoSuchSymbolAnywhere") || pid == 0 {
		t.Errorf("Ask for an unknown symbol: %v (pid %d); want the command's error naming it", err, pid)
	}
}
