package workspace

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestVerifyCommandRefusals: lspgraph.verify needs a live server, and says
// which option is wrong.
func TestVerifyCommandRefusals(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	s := openSession(t, root, dir)
	for _, c := range []struct {
		arg, want string
	}{
		{`{}`, "no live language server"},
		{`null`, "no live language server"},
		{`{"layer": "live"}`, "layer must be base or all"},
		{`{"maxDrift": 2}`, "max-drift must be within 0-1"},
		{`{"sample": -1}`, "sample must be positive"},
		{`"goapp"`, "is not {sample, seed, maxDrift, layer, callers}"},
	} {
		_, err := s.Command(context.Background(), CommandVerify, Call{Args: []json.RawMessage{json.RawMessage(c.arg)}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("lspgraph.verify %s: %v; want an error saying %q", c.arg, err, c.want)
		}
	}
}
