package lsptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Decode decodes a message into generic JSON values, keeping numbers as
// their literal text (json.Number) so 1 and "1" and 1.0 stay distinct.
func Decode(msg json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Diff compares two transcripts message by message and describes the
// first difference, or returns "" when they hold the same JSON values in
// the same order. normalize, when non-nil, is applied to each message of
// got (with the corresponding message of want) before comparing.
func Diff(want, got []json.RawMessage, normalize func(got, want any) any) string {
	var b strings.Builder
	for i := 0; i < max(len(want), len(got)); i++ {
		if i >= len(want) {
			fmt.Fprintf(&b, "message %d: unexpected %s\n", i, got[i])
			continue
		}
		if i >= len(got) {
			fmt.Fprintf(&b, "message %d: missing %s\n", i, want[i])
			continue
		}
		w, err := Decode(want[i])
		if err != nil {
			fmt.Fprintf(&b, "message %d: want is not JSON: %v\n", i, err)
			continue
		}
		g, err := Decode(got[i])
		if err != nil {
			fmt.Fprintf(&b, "message %d: got is not JSON: %v (%s)\n", i, err, got[i])
			continue
		}
		if normalize != nil {
			g = normalize(g, w)
		}
		if !reflect.DeepEqual(w, g) {
			fmt.Fprintf(&b, "message %d differs:\nwant %s\ngot  %s\n", i, want[i], got[i])
		}
	}
	return b.String()
}

// UndoInitializeRewrite removes what the proxy adds to an initialize result
// (lspgraph.* names in capabilities.executeCommandProvider.commands that the
// server did not list, and the provider itself when the server had none),
// so a proxied transcript can be compared with a direct one. Messages other
// than initialize results pass unchanged.
func UndoInitializeRewrite(got, want any) any {
	pm, ok := lookup(got, "result", "capabilities", "executeCommandProvider").(map[string]any)
	if !ok {
		return got
	}
	wantProvider := lookup(want, "result", "capabilities", "executeCommandProvider")
	listed := map[string]bool{}
	if wl, ok := lookup(wantProvider, "commands").([]any); ok {
		for _, c := range wl {
			if s, ok := c.(string); ok {
				listed[s] = true
			}
		}
	}
	cmds, _ := pm["commands"].([]any)
	kept := []any{}
	for _, c := range cmds {
		if s, ok := c.(string); ok && strings.HasPrefix(s, "lspgraph.") && !listed[s] {
			continue
		}
		kept = append(kept, c)
	}
	pm["commands"] = kept
	if wantProvider == nil && len(kept) == 0 && len(pm) == 1 {
		caps := lookup(got, "result", "capabilities").(map[string]any)
		wantCaps, _ := lookup(want, "result", "capabilities").(map[string]any)
		if _, present := wantCaps["executeCommandProvider"]; present {
			caps["executeCommandProvider"] = nil
		} else {
			delete(caps, "executeCommandProvider")
		}
	}
	return got
}

func lookup(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}
