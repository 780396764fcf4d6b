package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
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

// TestGuardedCommandPanic: a command that panics answers with an error
// naming the command and the panic, logs its stack, and leaves the caller
// running; one that does not panic answers as it would.
func TestGuardedCommandPanic(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	res, err := guarded(log, CommandContext, func() (any, error) {
		var forms []int
		return forms[2], nil
	})
	if err == nil || res != nil {
		t.Fatalf("a panicking command answered %v, %v; want an error", res, err)
	}
	if msg := err.Error(); !strings.Contains(msg, CommandContext) || !strings.Contains(msg, "index out of range") {
		t.Errorf("error %q names neither the command nor the panic", msg)
	}
	if !strings.Contains(logged.String(), "command panicked") || !strings.Contains(logged.String(), "TestGuardedCommandPanic") {
		t.Errorf("log lacks the panic's stack:\n%s", logged.String())
	}
	res, err = guarded(log, CommandContext, func() (any, error) { return 7, nil })
	if err != nil || res != 7 {
		t.Errorf("a command that does not panic answered %v, %v", res, err)
	}
}
