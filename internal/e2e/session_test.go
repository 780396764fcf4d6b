package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNeovimSessionCLI: Neovim holds `lspgraph proxy -- gopls` with an
// unsaved edit (a new caller of Catalog.Save). The command line, run while
// the editor stays attached, answers through the editor's session: impact,
// context and changes see the unsaved caller, status lists the dirty
// buffer and the session. `lspgraph index` and `lspgraph scip import` run
// inside the session, and the editor's next lspgraph.impact answers from
// the new generation.
func TestNeovimSessionCLI(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	needTool(t, "nvim")
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	// A repository, so that changes have a base commit to diff against.
	commit := gitRepo(t, root)
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := lspgraphBin(t)
	dump := filepath.Join(mod, "testdata", "scip", "goapp.scip")
	if out, err := exec.Command(bin, "scip", "import", "--store", store, "--root", root, "--commit", commit, dump).CombinedOutput(); err != nil {
		t.Fatalf("lspgraph scip import: %v\n%s", err, out)
	}
	cli := func(args ...string) []string {
		n := 1
		if args[0] == "scip" {
			n = 2 // scip import
		}
		return append(append(append([]string{bin}, args[:n]...), "--store", store, "--root", root), args[n:]...)
	}
	const cat = "service/catalog.go"
	impactCmd := map[string]any{"command": "lspgraph.impact", "arguments": []any{map[string]any{"target": "Catalog.Save", "verify": false}}}
	res := runNvim(t, proxyArgv(t, store, logFile, []string{gopls}), root, cat, []nvimRequest{
		// Before line 36 ("// Import saves…"): a new method calling Save.
		{Name: "edit", Edit: &nvimEdit{Line: 36, Text: "// SaveDefault saves a product under its SKU.\nfunc (c *Catalog) SaveDefault(sku string) error {\n\treturn c.Save(sku, sku)\n}\n"}},
		{Name: "cli impact", Shell: cli("impact", "--json", "Catalog.Save")},
		{Name: "cli context", Shell: cli("context", "--json", "--scope", "repo", "Catalog.Save")},
		{Name: "cli changes", Shell: cli("changes", "--json")},
		{Name: "cli status", Shell: cli("status", "--json")},
		{Name: "cli index", Shell: cli("index", "--json")},
		{Name: "impact after index", Method: "workspace/executeCommand", Params: impactCmd},
		{Name: "cli scip import", Shell: cli("scip", "import", "--commit", commit, "--json", dump)},
		{Name: "impact after import", Method: "workspace/executeCommand", Params: impactCmd},
	})
	shell := func(name string) string {
		t.Helper()
		var r shellResult
		if err := json.Unmarshal(res.step(t, name), &r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Code != 0 {
			t.Errorf("%s exited %d:\n%s", name, r.Code, r.Out)
		}
		return r.Out
	}
	var edit struct{ Modified bool }
	if json.Unmarshal(res.step(t, "edit"), &edit); !edit.Modified {
		t.Fatalf("the buffer is not modified after the edit")
	}
	var imp impactAnswer
	if err := json.Unmarshal([]byte(shell("cli impact")), &imp); err != nil {
		t.Fatalf("cli impact: %v", err)
	}
	if !dependsOn(imp, "Catalog.SaveDefault") || !contains(imp.Freshness.Dirty, cat) {
		t.Errorf("cli impact through the session: d=1 %v, dirty %v; want the unsaved caller Catalog.SaveDefault and %s dirty", names(imp), imp.Freshness.Dirty, cat)
	}
	if out := shell("cli context"); !strings.Contains(out, "SaveDefault") {
		t.Errorf("cli context through the session lacks the unsaved caller:\n%.2000s", out)
	}
	var ch struct {
		Changes []struct{ Change, Name string } `json:"changes"`
	}
	if err := json.Unmarshal([]byte(shell("cli changes")), &ch); err != nil {
		t.Fatal(err)
	}
	added := false
	for _, c := range ch.Changes {
		added = added || c.Change == "added" && strings.HasSuffix(c.Name, "SaveDefault")
	}
	if !added {
		t.Errorf("cli changes through the session: %+v; want SaveDefault added (unsaved)", ch.Changes)
	}
	var st struct {
		Session *struct {
			PID     int `json:"pid"`
			Clients []struct{ Kind string }
		} `json:"session"`
		Freshness struct{ Dirty []string } `json:"freshness"`
	}
	if err := json.Unmarshal([]byte(shell("cli status")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Session == nil || st.Session.PID == 0 || !contains(st.Freshness.Dirty, cat) {
		t.Errorf("cli status: session %+v, dirty %v; want the proxy's session and %s dirty", st.Session, st.Freshness.Dirty, cat)
	}
	if out := shell("cli index"); !strings.Contains(out, `"indexed"`) {
		t.Errorf("cli index through the session:\n%s", out)
	}
	var after impactAnswer
	if err := json.Unmarshal(res.step(t, "impact after index"), &after); err != nil {
		t.Fatal(err)
	}
	if after.Freshness.BaseTool != "lspgraph-syntax" && !strings.Contains(after.Freshness.BaseTool, "syntax") {
		t.Errorf("lspgraph.impact after `lspgraph index`: base tool %q; want the new syntax generation", after.Freshness.BaseTool)
	}
	if out := shell("cli scip import"); !strings.Contains(out, `"documents"`) {
		t.Errorf("cli scip import through the session:\n%s", out)
	}
	if err := json.Unmarshal(res.step(t, "impact after import"), &after); err != nil {
		t.Fatal(err)
	}
	if after.Freshness.BaseTool != "scip-go" || !dependsOn(after, "Catalog.Import") {
		t.Errorf("lspgraph.impact after `lspgraph scip import`: base tool %q, d=1 %v; want scip-go with Catalog.Import", after.Freshness.BaseTool, names(after))
	}
}

// dependsOn reports whether a d=1 dependent of an answer has the name.
func dependsOn(a impactAnswer, name string) bool {
	for _, n := range names(a) {
		if n == name {
			return true
		}
	}
	return false
}

// names lists an answer's d=1 dependents.
func names(a impactAnswer) []string {
	var out []string
	if len(a.Depths) > 0 {
		for _, d := range a.Depths[0].Dependents {
			out = append(out, d.Name)
		}
	}
	return out
}

// TestNeovimTwoInstances: two Neovim instances hold `lspgraph proxy --
// gopls` on one workspace; both answer lspgraph.impact from the one
// session (the second attaches to the first's). The owner proxy is killed
// with SIGKILL; the second instance's next lspgraph.impact answers within
// 2 s, and the command line still works afterwards.
func TestNeovimTwoInstances(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	needTool(t, "nvim")
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	logA, logB := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	logOnFailure(t, "first proxy log", logA)
	logOnFailure(t, "second proxy log", logB)
	importSCIP(t, store, root, "goapp.scip")
	const cat = "service/catalog.go"
	flag := func(name string) string { return filepath.Join(dir, name) }
	touch := func(name string) []string { return []string{"touch", flag(name)} }
	impactCmd := map[string]any{"command": "lspgraph.impact", "arguments": []any{map[string]any{"target": "Catalog.Save", "verify": false}}}
	statusCmd := map[string]any{"command": "lspgraph.status"}

	waitA := startNvim(t, proxyArgv(t, store, logA, []string{gopls}), root, cat, []nvimRequest{
		{Name: "impact", Method: "workspace/executeCommand", Params: impactCmd},
		{Name: "status", Method: "workspace/executeCommand", Params: statusCmd},
		{Name: "ready", Shell: touch("a-ready")},
		{Name: "hold", WaitFile: flag("done")},
	})
	waitFor(t, flag("a-ready"))
	waitB := startNvim(t, proxyArgv(t, store, logB, []string{gopls}), root, cat, []nvimRequest{
		{Name: "impact", Method: "workspace/executeCommand", Params: impactCmd},
		{Name: "status", Method: "workspace/executeCommand", Params: statusCmd},
		{Name: "ready", Shell: touch("b-ready")},
		{Name: "wait kill", WaitFile: flag("killed")},
		{Name: "impact after kill", Method: "workspace/executeCommand", Params: impactCmd},
		{Name: "status after kill", Method: "workspace/executeCommand", Params: statusCmd},
	})
	waitFor(t, flag("b-ready"))

	// The owner is the first instance's proxy.
	owner := proxyPIDs(t, logA)
	if err := syscall.Kill(owner, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the owner proxy %d: %v", owner, err)
	}
	if err := os.WriteFile(flag("killed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	resB := waitB()
	if err := os.WriteFile(flag("done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	resA := waitA()

	type memberStatus struct {
		Store struct {
			Role    string `json:"role"`
			Session struct {
				PID int `json:"pid"`
			} `json:"session"`
		} `json:"store"`
	}
	roleOf := func(res nvimResult, step string) memberStatus {
		var ms memberStatus
		if err := json.Unmarshal(res.step(t, step), &ms); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return ms
	}
	if a, b := roleOf(resA, "status"), roleOf(resB, "status"); a.Store.Role != "owner" || b.Store.Role != "attached" || b.Store.Session.PID != owner {
		t.Errorf("roles before the kill: first %+v, second %+v; want owner %d and attached to it", a.Store, b.Store, owner)
	}
	for name, res := range map[string]nvimResult{"first": resA, "second": resB} {
		var a impactAnswer
		if err := json.Unmarshal(res.step(t, "impact"), &a); err != nil || !dependsOn(a, "Catalog.Import") {
			t.Errorf("lspgraph.impact in the %s instance: %v, d=1 %v; want Catalog.Import", name, err, names(a))
		}
	}
	var after impactAnswer
	if err := json.Unmarshal(resB.step(t, "impact after kill"), &after); err != nil || !dependsOn(after, "Catalog.Import") {
		t.Errorf("lspgraph.impact after the owner's SIGKILL: %v, d=1 %v (error %s)", err, names(after), resB.Steps["impact after kill"].Error)
	}
	if ms := resB.Steps["impact after kill"].MS; ms > 2000 {
		t.Errorf("lspgraph.impact after the owner's SIGKILL took %.0f ms; want at most 2 s", ms)
	}
	if b := roleOf(resB, "status after kill"); b.Store.Role != "owner" {
		t.Errorf("the second instance after the kill: %+v; want it to own the session", b.Store)
	}
	out, err := exec.Command(lspgraphBin(t), "impact", "--store", store, "--root", root, "--json", "Catalog.Save").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Catalog.Import") {
		t.Errorf("lspgraph impact from the command line after the takeover: %v\n%s", err, out)
	}
}

// waitFor waits until a file exists.
func waitFor(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within 90s", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// proxyPIDs returns the pid of the proxy started with --log logFile,
// found in /proc by its command line.
func proxyPIDs(t *testing.T, logFile string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if len(args) > 1 && args[1] == "proxy" && slices.Contains(args, logFile) {
			return pid
		}
	}
	t.Fatalf("no proxy process with --log %s", logFile)
	return 0
}

// TestNeovimREADMEHelper runs the README's Neovim helper, extracted from
// README.md as written, in Neovim 0.7 holding `lspgraph proxy -- gopls`: it
// prints lspgraph.status's answer, and for an unknown symbol it shows the
// proxy's reason instead of nothing.
func TestNeovimREADMEHelper(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	needTool(t, "nvim")
	readme := readmeText(t)
	start := strings.Index(readme, "local function lspgraph(command, arguments)")
	end := strings.Index(readme, "vim.keymap.set(\"n\", \"<leader>ls\"")
	if start < 0 || end < start {
		t.Fatal("README.md has no Neovim helper `local function lspgraph(command, arguments)` before its keymaps")
	}
	helper := readme[start:end]
	root := fixture(t, "goapp")
	dir := t.TempDir()
	store, logFile := filepath.Join(dir, "store"), filepath.Join(dir, "proxy.log")
	logOnFailure(t, "lspgraph proxy log", logFile)
	importSCIP(t, store, root, "goapp.scip")
	res := runNvim(t, proxyArgv(t, store, logFile, []string{gopls}), root, "service/catalog.go", []nvimRequest{
		{Name: "status", Lua: helper + "\nlspgraph(\"lspgraph.status\")\n"},
		{Name: "unknown", Lua: helper + "\nlspgraph(\"lspgraph.impact\", { \"NoSuchSymbolAnywhere\" })\n"},
	})
	var st, unknown struct {
		OK       bool
		Err      string
		Messages string
	}
	if err := json.Unmarshal(res.step(t, "status"), &st); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(res.step(t, "unknown"), &unknown); err != nil {
		t.Fatal(err)
	}
	if !st.OK || !strings.Contains(st.Messages, "proxy") || !strings.Contains(st.Messages, "gopls") {
		t.Errorf("the README helper on lspgraph.status: ok %v err %q, messages:\n%s\nwant the proxy's status printed", st.OK, st.Err, st.Messages)
	}
	if !unknown.OK || !strings.Contains(unknown.Messages, "NoSuchSymbolAnywhere") {
		t.Errorf("the README helper on an unknown symbol: ok %v err %q, messages:\n%s\nwant the proxy's reason naming it", unknown.OK, unknown.Err, unknown.Messages)
	}
}
