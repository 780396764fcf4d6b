package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/internal/goplsshim"
)

// The command lines below are the ones VS Code's Go extension
// (golang/vscode-go, read at 28e27ffd) runs with the gopls it finds,
// which is lspgraph once "go.alternateTools" names a link called gopls:
//
//   - extension/src/language/goLanguageServer.ts, getLocalGoplsVersion:
//     `version -json`, then `version` when that fails (execFile, cwd the
//     workspace folder).
//   - goLanguageServer.ts, buildLanguageClient: the server itself,
//     `command: cfg.path, args: cfg.flags` with cfg.flags the setting
//     go.languageServerFlags (default []); vscode-languageclient adds no
//     --stdio since no transport is set. Before e9409b12 (2025-03) args
//     were ['-mode=stdio', ...cfg.flags].
//   - The flags documented for go.languageServerFlags: "-rpc.trace" (docs/
//     troubleshooting.md, extension/package.json), ["-rpc.trace", "serve"]
//     (extension/test/gopls/testdata/src/workspace/.vscode/settings.json),
//     ["-logfile", "path to a text file that exists"] (the README of
//     d0eed088), ["-remote=:37374", "-rpc.trace"] against a daemon started
//     as `gopls -listen=:37374 -logfile=auto -debug=:0 serve`
//     (docs/contributing.md).
//   - suggestActionAfterGoplsStartError / isIncorrectCommandUsage: a wrong
//     flag in go.languageServerFlags; the extension looks for "Usage:" in
//     the server's output.
//   - extension/src/goVulncheck.ts, writeVulns: `vulncheck -- -mode=convert
//     -show=color` with a stream of OSV entries and findings on stdin (exit
//     status non-zero when vulnerabilities are found).
//   - getGoplsStats (removed in 6f77bbd0, 2025-09, so still in released
//     extensions): `stats -anon`. Older still (898bc2fb, 2020): `bug`,
//     which gopls v0.23 no longer has (exit 2 with its usage).
//   - extension/tools/goplssetting/goplssetting.go, readGoplsAPI:
//     `api-json` (the extension's settings generator).
//   - docs/troubleshooting.md asks users to run `gopls -v version`.
//
// Addresses and log files are the test's own (a unix socket instead of
// :37374, a log in the test directory instead of "auto"), so runs in
// parallel do not collide.

// shimSetup is a directory with a link named gopls pointing at lspgraph,
// first on PATH, the real gopls's directory after it, and the default
// store under the test's own cache directory.
type shimSetup struct {
	root string // a copy of testdata/goapp with its SCIP import
	link string
	real string
	env  []string
	dir  string
}

func newShimSetup(t *testing.T) *shimSetup {
	t.Helper()
	real := goplsPath(t)
	dir := t.TempDir()
	linkDir := filepath.Join(dir, "shim")
	if err := os.MkdirAll(linkDir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(linkDir, "gopls")
	if err := os.Symlink(lspgraphBin(t), link); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "XDG_CACHE_HOME", goplsshim.EnvGopls, goplsshim.EnvShimmed, "LSPGRAPH_LOG":
			continue
		}
		env = append(env, kv)
	}
	// gopls's file cache lives outside the test's TempDir: processes gopls
	// starts in the background may still write there after the test, and
	// TempDir's cleanup would fail on them.
	cache, err := os.MkdirTemp("", "lspgraph-shim-cache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeEventually(t, cache) })
	env = append(env,
		"PATH="+linkDir+string(os.PathListSeparator)+filepath.Dir(real)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_CACHE_HOME="+cache)
	s := &shimSetup{root: fixture(t, "goapp"), link: link, real: real, env: env, dir: dir}
	// The proxy behind the shim uses the workspace's default store.
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lspgraphBin(t), "scip", "import", "--root", s.root, "--commit", "fixture", filepath.Join(mod, "testdata", "scip", "goapp.scip"))
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lspgraph scip import: %v\n%s", err, out)
	}
	return s
}

// ran is what a one-shot command printed and its exit status.
type ran struct {
	stdout, stderr string
	code           int
}

// run runs argv in the fixture with stdin and returns what it printed.
func (s *shimSetup) run(t *testing.T, stdin []byte, argv ...string) ran {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = s.root, s.env, bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", argv, err)
	}
	return ran{out.String(), errb.String(), code}
}

// durations matches the timings gopls stats prints.
var durations = regexp.MustCompile(`\d+(\.\d+)?(ns|µs|ms|s)\b`)

// statsStable drops what changes from run to run in `gopls stats -anon`:
// load time and memory, and the timings of its progress lines.
func statsStable(r ran) ran {
	var v map[string]any
	if json.Unmarshal([]byte(r.stdout), &v) == nil {
		delete(v, "InitialWorkspaceLoadDuration")
		delete(v, "MemStats")
		// The files gopls happened to read: 637, 641, then 645 in three
		// runs on a fresh copy of goapp.
		if ws, ok := v["WorkspaceStats"].(map[string]any); ok {
			delete(ws, "Files")
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		r.stdout = string(b)
	}
	r.stderr = durations.ReplaceAllString(r.stderr, "D")
	return r
}

// TestShimGoplsPassthrough runs each one-shot command line of vscode-go
// with the real gopls and through the link named gopls, and compares what
// they print and their exit status.
func TestShimGoplsPassthrough(t *testing.T) {
	t.Parallel()
	s := newShimSetup(t)
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	vulns, err := os.ReadFile(filepath.Join(mod, "internal", "e2e", "testdata", "vulncheck-stream.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		args   []string
		stdin  []byte
		stable func(ran) ran
		want   func(t *testing.T, r ran) // what the real gopls printed, checked first
	}{
		{name: "version -json", args: []string{"version", "-json"}, want: func(t *testing.T, r ran) {
			var v struct {
				Main struct{ Path, Version string }
			}
			if json.Unmarshal([]byte(r.stdout), &v) != nil || v.Main.Path != "golang.org/x/tools/gopls" || r.code != 0 {
				t.Errorf("gopls version -json: %+v", r)
			}
		}},
		{name: "version", args: []string{"version"}, want: func(t *testing.T, r ran) {
			if !strings.HasPrefix(r.stdout, "golang.org/x/tools/gopls ") || r.code != 0 {
				t.Errorf("gopls version: %+v", r)
			}
		}},
		{name: "-v version", args: []string{"-v", "version"}, want: func(t *testing.T, r ran) {
			if !strings.Contains(r.stdout, "Build info") || r.code != 0 {
				t.Errorf("gopls -v version: %+v", r)
			}
		}},
		{name: "vulncheck convert", args: []string{"vulncheck", "--", "-mode=convert", "-show=color"}, stdin: vulns, want: func(t *testing.T, r ran) {
			if !strings.Contains(r.stdout, "GO-2099-0001") || r.code == 0 {
				t.Errorf("gopls vulncheck of a stream with one finding: %+v; want it named and a non-zero exit", r)
			}
		}},
		{name: "stats -anon", args: []string{"stats", "-anon"}, stable: statsStable, want: func(t *testing.T, r ran) {
			if !strings.Contains(r.stdout, `"GoplsVersion"`) || r.code != 0 {
				t.Errorf("gopls stats -anon: %+v", r)
			}
		}},
		{name: "bug", args: []string{"bug"}, want: func(t *testing.T, r ran) {
			if r.code != 2 || !strings.Contains(r.stderr, "Usage:") {
				t.Errorf("gopls bug (gone from gopls): %+v; want exit 2 with the usage", r)
			}
		}},
		{name: "api-json", args: []string{"api-json"}, want: func(t *testing.T, r ran) {
			if !strings.Contains(r.stdout, `"Options"`) || r.code != 0 {
				t.Errorf("gopls api-json: exit %d, stdout %.200s", r.code, r.stdout)
			}
		}},
		{name: "wrong languageServerFlags", args: []string{"-no-such-flag"}, want: func(t *testing.T, r ran) {
			if r.code != 2 || !strings.Contains(r.stderr, "Usage:") {
				t.Errorf("gopls -no-such-flag: %+v; want exit 2 with the usage (vscode-go looks for it)", r)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			direct := s.run(t, c.stdin, append([]string{s.real}, c.args...)...)
			c.want(t, direct)
			shimmed := s.run(t, c.stdin, append([]string{s.link}, c.args...)...)
			if c.stable != nil {
				direct, shimmed = c.stable(direct), c.stable(shimmed)
			}
			if shimmed != direct {
				t.Errorf("gopls %v through the shim differs from gopls: exit %d, want %d\nstdout: %s\nstderr: %s",
					c.args, shimmed.code, direct.code, firstDiff(shimmed.stdout, direct.stdout), firstDiff(shimmed.stderr, direct.stderr))
			}
		})
	}
	t.Run("lspgraph shim gopls version -json", func(t *testing.T) {
		direct := s.run(t, nil, s.real, "version", "-json")
		shimmed := s.run(t, nil, lspgraphBin(t), "shim", "gopls", "version", "-json")
		if shimmed != direct {
			t.Errorf("lspgraph shim gopls version -json: %+v; gopls: %+v", shimmed, direct)
		}
	})
	// The flags the shim knows are the real gopls's: a flag taking a
	// value decides what the subcommand is.
	t.Run("flag table", func(t *testing.T) {
		help := s.run(t, nil, s.real, "help")
		got := goplsshim.ParseHelpFlags([]byte(help.stdout + help.stderr))
		want := goplsshim.Flags{}
		for k, v := range goplsshim.KnownFlags {
			if k != "h" && k != "help" {
				want[k] = v
			}
		}
		if len(got) != len(want) {
			t.Errorf("gopls help lists flags %v; the shim knows %v", got, want)
		}
		for k, v := range want {
			if b, ok := got[k]; !ok || b != v {
				t.Errorf("flag -%s: gopls help says boolean=%v (listed %v); the shim's table says %v", k, b, ok, v)
			}
		}
	})
}

// TestShimGoplsServe starts the link named gopls with each serving command
// line of vscode-go and does an LSP round trip through it: the proxy
// answers lspgraph.status, gopls (the real one, with the same arguments)
// answers definition.
func TestShimGoplsServe(t *testing.T) {
	t.Parallel()
	s := newShimSetup(t)

	// docs/contributing.md's daemon, started through the shim: -listen
	// serves a socket, so the real gopls runs unchanged.
	sock := filepath.Join(s.dir, "gopls.sock")
	daemon := exec.Command(s.link, "-listen=unix;"+sock, "-logfile="+filepath.Join(s.dir, "daemon.log"), "-debug=:0", "serve")
	daemon.Dir, daemon.Env = s.root, s.env
	var daemonErr lockedBuffer
	daemon.Stdout, daemon.Stderr = &daemonErr, &daemonErr
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	daemonDone := make(chan error, 1)
	go func() { daemonDone <- daemon.Wait() }()
	t.Cleanup(func() {
		// SIGTERM reaches the shim, which passes it on to gopls.
		daemon.Process.Signal(syscall.SIGTERM)
		select {
		case <-daemonDone:
		case <-time.After(30 * time.Second):
			t.Errorf("the gopls daemon through the shim did not exit within 30s of SIGTERM")
			daemon.Process.Kill()
			<-daemonDone
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gopls daemon started through the shim made no socket in 60s: %s", daemonErr.String())
		}
		select {
		case err := <-daemonDone:
			t.Fatalf("the gopls daemon started through the shim exited: %v\n%s", err, daemonErr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}

	logFile := filepath.Join(s.dir, "gopls-flag.log")
	for _, c := range []struct {
		name  string
		argv  []string
		check func(t *testing.T, c *lspClient) // after the exit
		// exit is the exit status after shutdown and exit: gopls's own
		// (-remote makes gopls exit 2, also run directly).
		exit int
	}{
		{name: "no flags", argv: []string{s.link}},
		{name: "lspgraph shim gopls", argv: []string{lspgraphBin(t), "shim", "gopls"}},
		{name: "-mode=stdio", argv: []string{s.link, "-mode=stdio"}},
		{name: "-rpc.trace", argv: []string{s.link, "-rpc.trace"}, check: func(t *testing.T, c *lspClient) {
			// gopls traces to stderr, which the proxy passes on.
			if !strings.Contains(c.logs.String(), "textDocument/definition") {
				t.Errorf("-rpc.trace: no trace of textDocument/definition on stderr")
			}
		}},
		{name: "-rpc.trace serve", argv: []string{s.link, "-rpc.trace", "serve"}},
		{name: "-logfile PATH", argv: []string{s.link, "-logfile", logFile}, check: func(t *testing.T, c *lspClient) {
			if _, err := os.Stat(logFile); err != nil {
				t.Errorf("-logfile %s: gopls made no log: %v", logFile, err)
			}
		}},
		{name: "-remote -rpc.trace", argv: []string{s.link, "-remote=unix;" + sock, "-rpc.trace"}, exit: 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := startClientEnv(t, c.name, s.root, s.env, c.argv...)
			init := cl.initialize(nil)
			if cmds := commandsOf(decode(t, init)); !contains(cmds, "lspgraph.status") {
				t.Fatalf("initialize through the shim lists commands %v, without lspgraph.status: not proxied", cmds)
			}
			const cat = "service/catalog.go"
			cl.open(cat, "go")
			def := cl.mustCall("textDocument/definition", cl.docPos(cat, posOf(t, s.root, cat, 30, "Put")))
			wantSites(t, "definition of c.st.Put through the shim", sites(s.root, locations(t, def)), "store/store.go:17")
			st := checkStatus(t, cl.mustCall("workspace/executeCommand", map[string]any{"command": "lspgraph.status"}), "gopls")
			args := c.argv[1:]
			if c.argv[0] != s.link {
				args = c.argv[3:] // lspgraph shim gopls ...
			}
			if st.Proxy.Server != "gopls" || !slices.Equal(st.Proxy.ServerArgs, append([]string{s.real}, args...)) {
				t.Errorf("lspgraph.status: server %q with %q; want gopls run as %q", st.Proxy.Server, st.Proxy.ServerArgs, append([]string{s.real}, args...))
			}
			if exe, err := os.Readlink("/proc/" + strconv.Itoa(st.Proxy.PID) + "/exe"); err == nil && exe != s.real {
				if real, _ := filepath.EvalSymlinks(s.real); exe != real {
					t.Errorf("the server behind the shim runs %s; want the real gopls %s", exe, s.real)
				}
			}
			code := shutdownStatus(t, cl)
			want := c.exit
			if strings.Contains(cl.logs.String(), "did not answer shutdown in time") {
				// A loaded machine held the server's answer past the
				// proxy's bound: the proxy answered and stopped the
				// server, and exits as a proxy whose editor asked it
				// to, not with the server's status.
				t.Logf("%s: the server did not answer shutdown in time; the proxy stopped it", c.name)
				want = 0
			}
			if code != want {
				t.Errorf("exit status %d after shutdown and exit; want %d", code, want)
			}
			if c.check != nil {
				c.check(t, cl)
			}
		})
	}
}

// firstDiff describes the first line where got and want differ, or says
// they are the same.
func firstDiff(got, want string) string {
	if got == want {
		return "same"
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: shim %q, gopls %q", i+1, a, b)
		}
	}
	return "same lines"
}

// shutdownStatus sends shutdown and exit and returns the exit status.
func shutdownStatus(t *testing.T, c *lspClient) int {
	t.Helper()
	if _, err := c.callTimeout("shutdown", nil, 30*time.Second); err != nil {
		t.Errorf("%v", err)
	}
	c.notify("exit", nil)
	select {
	case <-c.waited:
	case <-time.After(30 * time.Second):
		t.Errorf("%s did not exit within 30s of exit", c.name)
		c.cmd.Process.Kill()
		<-c.waited
	}
	c.conn.Close()
	return c.cmd.ProcessState.ExitCode()
}

// removeEventually removes dir, retrying for a while as long as something
// still writes into it; what is left after that is logged, not failed on.
func removeEventually(t *testing.T, dir string) {
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err = os.RemoveAll(dir); err == nil {
			return
		}
	}
	t.Logf("leaving %s: %v", dir, err)
}
