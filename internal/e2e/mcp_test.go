package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpSDKPath returns the global node_modules holding the official MCP
// TypeScript SDK. When it is missing the test skips, or fails when
// LSPGRAPH_E2E=1.
func mcpSDKPath(t *testing.T) string {
	t.Helper()
	needTool(t, "npm")
	out, err := exec.Command("npm", "root", "-g").Output()
	dir := strings.TrimSpace(string(out))
	if err == nil {
		if _, err = os.Stat(filepath.Join(dir, "@modelcontextprotocol", "sdk", "package.json")); err == nil {
			return dir
		}
	}
	msg := "@modelcontextprotocol/sdk is not installed globally (install it with .ci/install-tools)"
	if os.Getenv("LSPGRAPH_E2E") == "1" {
		t.Fatal(msg + "; LSPGRAPH_E2E=1 requires it")
	}
	t.Skip(msg)
	return ""
}

// TestMCPTypeScriptClient drives `lspgraph mcp` over stdio with the
// official TypeScript SDK client (testdata/mcp_client.cjs): initialize,
// tools/list with the schemas, every tool on the goapp fixture, an
// unknown target, bad arguments, a cancelled call and the size cap.
func TestMCPTypeScriptClient(t *testing.T) {
	node := needTool(t, "node")
	modules := mcpSDKPath(t)
	root := fixture(t, "goapp")
	// A repository, so that changes has a base commit to diff against.
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base"}} {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := lspgraphBin(t)
	store := filepath.Join(t.TempDir(), "store")
	dump := filepath.Join(mod, "testdata", "scip", "goapp.scip")
	if out, err := exec.Command(bin, "scip", "import", "--store", store, "--root", root, "--commit", strings.TrimSpace(string(head)), dump).CombinedOutput(); err != nil {
		t.Fatalf("lspgraph scip import: %v\n%s", err, out)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "mcp_client.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, bin, root, store)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.CombinedOutput()
	t.Logf("mcp_client.cjs:\n%s", out)
	if err != nil {
		t.Fatalf("the TypeScript client's checks failed: %v", err)
	}
	if !strings.Contains(string(out), "all checks passed") {
		t.Fatal("the TypeScript client did not finish its checks")
	}
}
