package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// answers are the results of one scenario run, by step name, in order.
type answers struct {
	order  []string
	values map[string]json.RawMessage
}

func (a *answers) add(name string, raw json.RawMessage) {
	if a.values == nil {
		a.values = map[string]json.RawMessage{}
	}
	if _, dup := a.values[name]; !dup {
		a.order = append(a.order, name)
	}
	a.values[name] = raw
}

// scenario is a fixed conversation with one language server on one fixture.
type scenario struct {
	name        string // names the server in messages
	fixture     string // directory under testdata
	argv        func(t testing.TB) []string
	initOptions any
	// run drives the session after initialize (opening documents, waiting
	// for readiness, asking) and records the answers to compare.
	run func(t testing.TB, c *lspClient, a *answers)
	// base, when set, names the dump in testdata/scip imported into the
	// proxy's store before its session; proxied then asks the proxy's own
	// commands, after run.
	base    string
	proxied func(t testing.TB, c *lspClient)
}

// session is one run of a scenario.
type session struct {
	init    json.RawMessage
	answers *answers
	client  *lspClient
}

// play runs sc against argv in root, from initialize to exit.
func play(t testing.TB, sc scenario, name, root string, argv []string) session {
	t.Helper()
	c := startClient(t, name, root, argv...)
	s := session{client: c, answers: &answers{}}
	s.init = c.initialize(sc.initOptions)
	sc.run(t, c, s.answers)
	return s
}

// compareAnswers fails for each step whose proxied answer differs from the
// direct one as a JSON value.
func compareAnswers(t testing.TB, server string, direct, proxied *answers) {
	t.Helper()
	if !reflect.DeepEqual(direct.order, proxied.order) {
		t.Errorf("%s: steps differ: direct %v, proxied %v", server, direct.order, proxied.order)
	}
	for _, name := range direct.order {
		d, p := decode(t, direct.values[name]), decode(t, proxied.values[name])
		if !reflect.DeepEqual(d, p) {
			t.Errorf("%s: %s through the proxy differs from the direct answer\ndirect:  %s\nproxied: %s",
				server, name, direct.values[name], proxied.values[name])
		}
	}
}

func decode(t testing.TB, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}

// lspgraphCommands are the commands the proxy adds to the initialize
// result. lspgraph.status is built into the proxy; the others come from the
// command table of cmd/lspgraph.
var lspgraphCommands = []string{"lspgraph.status", "lspgraph.impact", "lspgraph.context"}

// compareInitialize checks that the proxied initialize result equals the
// direct one except for executeCommandProvider.commands, which must keep
// the server's own commands, in order and first, and add lspgraph.*
// names.
func compareInitialize(t testing.TB, server string, direct, proxied json.RawMessage) (added []string) {
	t.Helper()
	d, p := decode(t, direct), decode(t, proxied)
	dcmds := commandsOf(d)
	pcmds := commandsOf(p)
	if len(pcmds) < len(dcmds) || !slices.Equal(pcmds[:len(dcmds)], dcmds) {
		t.Errorf("%s: the proxy did not keep the server's commands first and in order\nserver: %v\nproxy:  %v", server, dcmds, pcmds)
	} else {
		added = pcmds[len(dcmds):]
	}
	for _, a := range added {
		if !strings.HasPrefix(a, "lspgraph.") {
			t.Errorf("%s: the proxy added %q, which is not an lspgraph.* command", server, a)
		}
	}
	for _, want := range lspgraphCommands {
		if !contains(added, want) && !contains(dcmds, want) {
			t.Errorf("%s: the proxy's initialize result lacks %s; commands: %v", server, want, pcmds)
		}
	}
	// Everything else is the same value.
	strip := func(v any) any {
		caps, _ := lookup(v, "result", "capabilities").(map[string]any)
		if caps == nil {
			caps, _ = lookup(v, "capabilities").(map[string]any)
		}
		if caps == nil {
			return v
		}
		if ecp, ok := caps["executeCommandProvider"].(map[string]any); ok {
			delete(ecp, "commands")
			if len(ecp) == 0 {
				delete(caps, "executeCommandProvider")
			}
		}
		return v
	}
	ds, ps := strip(d), strip(p)
	// The proxy advertises codeLensProvider for its lenses where the
	// server has none.
	if dc := capsOf(ds); dc != nil && dc["codeLensProvider"] == nil {
		if pc := capsOf(ps); pc != nil {
			if _, had := dc["codeLensProvider"]; had {
				pc["codeLensProvider"] = nil
			} else {
				delete(pc, "codeLensProvider")
			}
		}
	}
	if !reflect.DeepEqual(ds, ps) {
		t.Errorf("%s: the proxied initialize result differs beyond executeCommandProvider.commands and an added codeLensProvider\ndirect:  %s\nproxied: %s", server, direct, proxied)
	}
	return added
}

func capsOf(v any) map[string]any {
	caps, _ := lookup(v, "result", "capabilities").(map[string]any)
	if caps == nil {
		caps, _ = lookup(v, "capabilities").(map[string]any)
	}
	return caps
}

func commandsOf(v any) []string {
	raw, _ := lookup(v, "capabilities", "executeCommandProvider", "commands").([]any)
	var out []string
	for _, c := range raw {
		s, _ := c.(string)
		out = append(out, s)
	}
	return out
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortStrings(s []string) { sort.Strings(s) }

// wantSites fails unless got (sorted "path:line") equals want.
func wantSites(t testing.TB, what string, got []string, want ...string) {
	t.Helper()
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v; want %v", what, got, want)
	}
}

// callItems decodes a prepareCallHierarchy result.
func callItems(t testing.TB, raw json.RawMessage) []json.RawMessage {
	t.Helper()
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatalf("decoding call hierarchy items %s: %v", raw, err)
	}
	return items
}

// calls decodes incomingCalls or outgoingCalls (dir "incoming" or
// "outgoing") into "name path:line [call lines]" of each caller or callee,
// sorted: "Import service/catalog.go:37 [44]".
func calls(t testing.TB, root string, raw json.RawMessage, dir string) []string {
	t.Helper()
	var cs []struct {
		From, To *struct {
			Name  string `json:"name"`
			URI   string `json:"uri"`
			Range struct {
				Start pos `json:"start"`
			} `json:"selectionRange"`
		}
		FromRanges []struct {
			Start pos `json:"start"`
		} `json:"fromRanges"`
	}
	if err := json.Unmarshal(raw, &cs); err != nil {
		t.Fatalf("decoding %s calls %s: %v", dir, raw, err)
	}
	var out []string
	for _, c := range cs {
		item := c.From
		if dir == "outgoing" {
			item = c.To
		}
		if item == nil {
			t.Fatalf("%s call without its item: %s", dir, raw)
		}
		var lines []string
		for _, r := range c.FromRanges {
			lines = append(lines, fmt.Sprint(r.Start.Line+1))
		}
		out = append(out, fmt.Sprintf("%s %s:%d [%s]", item.Name, relPath(root, item.URI), item.Range.Start.Line+1, strings.Join(lines, " ")))
	}
	sort.Strings(out)
	return out
}

// retryDefinition asks for a definition until its answer leaves the file it
// was asked in (typescript-language-server first answers with the import
// binding while the projects load), for at most d.
func retryDefinition(t testing.TB, c *lspClient, rel string, p pos, d time.Duration) json.RawMessage {
	t.Helper()
	return retry(t, c, "textDocument/definition", c.docPos(rel, p), d, func(raw json.RawMessage) bool {
		locs := locations(t, raw)
		return len(locs) > 0 && relPath(c.root, locs[0].URI) != filepath.ToSlash(rel)
	})
}

// retry sends a request until ok accepts its answer, for at most d, and
// returns the accepted answer. It serves servers that answer from partial
// knowledge while they load.
func retry(t testing.TB, c *lspClient, method string, params any, d time.Duration, ok func(json.RawMessage) bool) json.RawMessage {
	t.Helper()
	deadline := time.Now().Add(d)
	for tries := 1; ; tries++ {
		raw := c.mustCall(method, params)
		if ok(raw) {
			if tries > 1 {
				t.Logf("%s: %s answered in full at try %d", c.name, method, tries)
			}
			return raw
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s still answers %s after %d tries in %s", c.name, method, raw, tries, d)
		}
		time.Sleep(300 * time.Millisecond)
	}
}
