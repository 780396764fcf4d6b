package workspace

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestTargetsOutsideRoot: an editor position or a context request naming a
// file outside the root is refused before anything is read, and the error
// tells nothing about the file (not whether it exists, nor its lines).
func TestTargetsOutsideRoot(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	s := openSession(t, root, dir)
	ctx := context.Background()
	for _, tc := range []struct {
		command, arg string
	}{
		{CommandImpact, `{"textDocument":{"uri":"file:///etc/passwd"},"position":{"line":3,"character":400}}`},
		{CommandImpact, `{"textDocument":{"uri":"file:///etc/no-such-file"},"position":{"line":3,"character":400}}`},
		{CommandImpact, `{"textDocument":{"uri":"file://` + root + `/../goapp-evil/x.go"},"position":{"line":0,"character":0}}`},
		{CommandContext, `{"textDocument":{"uri":"file:///etc/passwd"},"position":{"line":3,"character":4}}`},
	} {
		_, err := s.Command(ctx, tc.command, Call{Args: []json.RawMessage{json.RawMessage(tc.arg)}})
		if err == nil || !strings.Contains(err.Error(), "outside the workspace root") {
			t.Errorf("%s %s: %v; want a refusal naming the root", tc.command, tc.arg, err)
			continue
		}
		for _, leak := range []string{"line", "column", "no such file", "exist"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%s %s: error %q mentions %q", tc.command, tc.arg, err, leak)
			}
		}
	}
}
