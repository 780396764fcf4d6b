package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"google.golang.org/protobuf/encoding/protowire"
)

// faultEnv is what the rows of TestFaultMatrix share: the binary, the
// canary outside every fixture root, and everything the rows produced
// that must not contain the canary's marker.
type faultEnv struct {
	bin    string
	dir    string // outlives the rows, so that their stores can be read at the end
	canary string // the directory outside every root
	marker string // CANARY-<hex>, in every file of canary

	mu      sync.Mutex
	stores  []string
	logs    []string
	outputs []string
}

// newStore returns a fresh store directory that the final check walks.
func (e *faultEnv) newStore(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp(e.dir, "store-")
	if err != nil {
		t.Fatal(err)
	}
	s := filepath.Join(d, "store")
	e.mu.Lock()
	e.stores = append(e.stores, s)
	e.mu.Unlock()
	return s
}

// newLog returns a fresh proxy log path that the final check reads.
func (e *faultEnv) newLog(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp(e.dir, "log-")
	if err != nil {
		t.Fatal(err)
	}
	l := filepath.Join(d, "proxy.log")
	e.mu.Lock()
	e.logs = append(e.logs, l)
	e.mu.Unlock()
	logOnFailure(t, "lspgraph proxy log", l)
	return l
}

// output records a captured stdout or stderr for the final check.
func (e *faultEnv) output(s string) {
	e.mu.Lock()
	e.outputs = append(e.outputs, s)
	e.mu.Unlock()
}

// lspgraph runs the binary with args in dir and returns its stdout,
// stderr and exit code; both outputs are recorded.
func (e *faultEnv) lspgraph(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = dir
	var o, s bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &s
	err := cmd.Run()
	e.output(o.String())
	e.output(s.String())
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("lspgraph %v: %v", args, err)
	}
	if strings.Contains(s.String(), "panic:") {
		t.Errorf("lspgraph %v panicked:\n%s", args, s.String())
	}
	return o.String(), s.String(), code
}

// evilGo is the canary's Go file: a package and a function named Leak.
func (e *faultEnv) evilGo() string {
	return "package evil\n// " + e.marker + "\nfunc Leak() {}\n"
}

// indexWithLink makes a fixture repository holding the link that link
// returns (its target, and where it goes), indexes it, checks that Leak
// (the canary's function) is no symbol, and returns how many paths the
// index skipped as outside-root.
func (e *faultEnv) indexWithLink(t *testing.T, link func(root string) (target, path string)) int {
	t.Helper()
	root := fixture(t, "goapp")
	target, path := link(root)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, root)
	store := e.newStore(t)
	n := e.indexSkipsOutside(t, store, root)
	e.noSymbol(t, store, root, "Leak")
	return n
}

// indexSkipsOutside indexes root into store, checks the index succeeds and
// reports how many listed paths it skipped as outside-root.
func (e *faultEnv) indexSkipsOutside(t *testing.T, store, root string) int {
	t.Helper()
	out, errOut, code := e.lspgraph(t, root, "index", "--store", store, "--root", root, "--json")
	if code != 0 {
		t.Fatalf("lspgraph index exited %d:\n%s%s", code, out, errOut)
	}
	var sum struct {
		Skipped map[string]int `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("decoding the index summary: %v\n%s", err, out)
	}
	return sum.Skipped["outside-root"]
}

// wantOutsideCounted fails unless the index summary counted a skip as
// outside-root.
func wantOutsideCounted(t *testing.T, n int) {
	t.Helper()
	if n < 1 {
		t.Errorf("index summary counts %d paths skipped as outside-root; want the escaping link counted", n)
	}
}

// noSymbol checks impact NAME exits 1 saying there is no such symbol.
func (e *faultEnv) noSymbol(t *testing.T, store, root, name string) {
	t.Helper()
	out, errOut, code := e.lspgraph(t, root, "impact", "--store", store, "--root", root, name)
	if code != 1 || !strings.Contains(errOut, "no symbol") {
		t.Errorf("lspgraph impact %s exited %d:\n%s%s\nwant exit 1 and no symbol", name, code, out, errOut)
	}
}

// faultRow is one fault of the matrix and the promise it must keep.
type faultRow struct {
	name    string
	promise string
	run     func(t *testing.T, env *faultEnv)
}

// TestFaultMatrix drives the lspgraph binary through faults — symbolic
// links out of the root, targets outside it, truncated dumps, a busy
// store, killed imports, malformed frames and a silent server — and checks
// each row's promise. A canary outside every root must appear in nothing
// lspgraph wrote or said.
func TestFaultMatrix(t *testing.T) {
	t.Parallel()
	env := &faultEnv{bin: lspgraphBin(t), dir: t.TempDir()}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	env.marker = "CANARY-" + hex.EncodeToString(rnd[:])
	env.canary = filepath.Join(env.dir, "canary")
	if err := os.MkdirAll(env.canary, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"evil.go":    env.evilGo(),
		"secret.txt": "secret " + env.marker + "\n",
	} {
		if err := os.WriteFile(filepath.Join(env.canary, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var tried, survived, skipped int
	var mu sync.Mutex
	t.Run("rows", func(t *testing.T) {
		for _, row := range faultRows() {
			t.Run(row.name, func(t *testing.T) {
				mu.Lock()
				tried++
				mu.Unlock()
				t.Cleanup(func() {
					mu.Lock()
					defer mu.Unlock()
					switch {
					case t.Skipped():
						skipped++
					case !t.Failed():
						survived++
					}
				})
				t.Logf("promise: %s", row.promise)
				row.run(t, env)
			})
		}
	})

	// The canary must be in no store file, log or output.
	found := 0
	check := func(what string, data []byte) {
		if n := bytes.Count(data, []byte(env.marker)); n > 0 {
			found += n
			t.Errorf("the canary appears %d times in %s", n, what)
		}
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	storeFiles := 0
	for _, s := range env.stores {
		err := filepath.WalkDir(s, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // a row that never created its store
				}
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			storeFiles++
			check(p, data)
			return nil
		})
		if err != nil {
			t.Errorf("walking store %s: %v", s, err)
		}
	}
	logs := 0
	for _, l := range env.logs {
		data, err := os.ReadFile(l)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Errorf("reading log %s: %v", l, err)
			continue
		}
		logs++
		check(l, data)
	}
	for i, o := range env.outputs {
		check(fmt.Sprintf("captured output %d", i), []byte(o))
	}
	if storeFiles == 0 {
		t.Errorf("no store file was read for the canary check")
	}
	t.Logf("fault matrix: %d skipped as known; %d store files read", skipped, storeFiles)
	t.Logf("fault matrix: %d faults tried, %d survived; canary found %d times in %d stores, %d logs, %d outputs",
		tried, survived, found, len(env.stores), logs, len(env.outputs))
}

func faultRows() []faultRow {
	return []faultRow{
		{
			name:    "symlink file escape",
			promise: "A tracked file linking outside the root is skipped as outside-root and none of its symbols or text reach the store.",
			run: func(t *testing.T, env *faultEnv) {
				t.Parallel()
				wantOutsideCounted(t, env.indexWithLink(t, func(root string) (string, string) {
					return filepath.Join(env.canary, "evil.go"), filepath.Join(root, "service", "leak.go")
				}))
			},
		},
		{
			name:    "symlink dir escape",
			promise: "A tracked directory link leading outside the root is never walked into and none of its symbols or text reach the store.",
			run: func(t *testing.T, env *faultEnv) {
				t.Parallel()
				n := env.indexWithLink(t, func(root string) (string, string) { return env.canary, filepath.Join(root, "evil") })
				// The canary check after the rows covers the text. git
				// lists the link as "evil", which has no source extension:
				// it is dropped before it is resolved, so the summary need
				// not count it as outside-root.
				t.Logf("directory link out of the root: %d counted as outside-root", n)
			},
		},
		{
			name:    "prefix sibling",
			promise: "A link into a sibling directory whose name starts with the root's name is outside the root, skipped, and not read.",
			run: func(t *testing.T, env *faultEnv) {
				t.Parallel()
				wantOutsideCounted(t, env.indexWithLink(t, func(root string) (string, string) {
					sibling := root + "-evil"
					if err := os.MkdirAll(sibling, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(sibling, "x.go"), []byte(env.evilGo()), 0o644); err != nil {
						t.Fatal(err)
					}
					return filepath.Join("..", filepath.Base(sibling), "x.go"), filepath.Join(root, "x.go")
				}))
			},
		},
		{
			name:    "untracked symlink",
			promise: "An untracked link leading outside the root, made after indexing, is not read when the live layer syncs the work tree.",
			run: func(t *testing.T, env *faultEnv) {
				t.Parallel()
				root := fixture(t, "goapp")
				gitRepo(t, root)
				store := env.newStore(t)
				if out, errOut, code := env.lspgraph(t, root, "index", "--store", store, "--root", root); code != 0 {
					t.Fatalf("lspgraph index exited %d:\n%s%s", code, out, errOut)
				}
				if err := os.Symlink(filepath.Join(env.canary, "evil.go"), filepath.Join(root, "service", "leak.go")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(env.canary, "secret.txt"), filepath.Join(root, "secret.txt")); err != nil {
					t.Fatal(err)
				}
				out, errOut, code := env.lspgraph(t, root, "impact", "--store", store, "--root", root, "--json", "Catalog.Save")
				if code != 0 || !strings.Contains(out, "Catalog.Import") {
					t.Errorf("lspgraph impact Catalog.Save with an untracked escaping link exited %d:\n%s%s\nwant its callers", code, out, errOut)
				}
				env.noSymbol(t, store, root, "Leak")
			},
		},
		{
			name:    "inside an open editor buffer",
			promise: "An editor buffer opened at a path that links outside the root gets no answer from lspgraph.impact and nothing of the target is read.",
			run: func(t *testing.T, env *faultEnv) {
				gopls := goplsPath(t)
				root := fixture(t, "goapp")
				link := filepath.Join(root, "service", "leak.go")
				if err := os.Symlink(filepath.Join(env.canary, "evil.go"), link); err != nil {
					t.Fatal(err)
				}
				store, logFile := env.newStore(t), env.newLog(t)
				importSCIP(t, store, root, "goapp.scip")
				c := startClient(t, "lspgraph proxy -- gopls", root, proxyArgv(t, store, logFile, []string{gopls})...)
				defer func() { env.output(c.logs.String()) }()
				c.initialize(nil)
				// The buffer holds no marker: any marker found came from
				// the linked file on disk.
				c.notify("textDocument/didOpen", map[string]any{
					"textDocument": map[string]any{
						"uri": fileURI(link), "languageId": "go", "version": 1,
						"text": "package evil\n\nfunc Leak() {}\n",
					},
				})
				raw, err := c.call("workspace/executeCommand", map[string]any{
					"command":   "lspgraph.impact",
					"arguments": []any{map[string]any{"textDocument": map[string]string{"uri": fileURI(link)}, "position": pos{Line: 2, Character: 6}}},
				})
				if err == nil {
					env.output(string(raw))
					c.shutdown()
					// The canary check at the end still covers this row:
					// the answer comes from the editor's text, not the file.
					t.Errorf("lspgraph.impact in a buffer whose path is a link leading outside the root answered instead of refusing: %s", tail(string(raw), 300))
				} else {
					env.output(err.Error())
					if !strings.Contains(err.Error(), "outside the workspace root") && !strings.Contains(err.Error(), "no symbol") {
						t.Errorf("lspgraph.impact inside a buffer linking outside the root: %v; want outside the workspace root or no symbol", err)
					}
				}
				c.shutdown()
			},
		},
		{
			name:    "targets outside the root through the proxy",
			promise: "lspgraph.impact at a position in /etc/passwd fails saying it is outside the workspace root, without reading or quoting the file.",
			run: func(t *testing.T, env *faultEnv) {
				gopls := goplsPath(t)
				root := fixture(t, "goapp")
				store, logFile := env.newStore(t), env.newLog(t)
				importSCIP(t, store, root, "goapp.scip")
				c := startClient(t, "lspgraph proxy -- gopls", root, proxyArgv(t, store, logFile, []string{gopls})...)
				defer func() { env.output(c.logs.String()) }()
				c.initialize(nil)
				for _, target := range []string{"file:///etc/passwd", fileURI(filepath.Join(env.canary, "evil.go"))} {
					raw, err := c.call("workspace/executeCommand", map[string]any{
						"command":   "lspgraph.impact",
						"arguments": []any{map[string]any{"textDocument": map[string]string{"uri": target}, "position": pos{Line: 0, Character: 0}}},
					})
					if err == nil {
						env.output(string(raw))
						t.Errorf("lspgraph.impact at %s answered %s; want an error", target, raw)
						continue
					}
					msg := err.Error()
					env.output(msg)
					if !strings.Contains(msg, "outside the workspace root") {
						t.Errorf("lspgraph.impact at %s: %v; want outside the workspace root", target, err)
					}
					if regexp.MustCompile(`(passwd|evil\.go):\d`).MatchString(msg) || strings.Contains(msg, "root:x:") {
						t.Errorf("lspgraph.impact at %s quotes a line or column of the file: %v", target, err)
					}
				}
				c.shutdown()
			},
		},
		{
			name:    "targets outside the root through the CLI",
			promise: "lspgraph impact FILE:LINE:COL of a file outside the root exits non-zero saying it escapes the root, without reading it.",
			run: func(t *testing.T, env *faultEnv) {
				t.Parallel()
				root := fixture(t, "goapp")
				store := env.newStore(t)
				importSCIP(t, store, root, "goapp.scip")
				for _, target := range []string{"/etc/passwd:1:1", filepath.Join(env.canary, "evil.go") + ":2:1", filepath.Join(env.canary, "evil.go") + ":3:6"} {
					out, errOut, code := env.lspgraph(t, root, "impact", "--store", store, "--root", root, target)
					if code == 0 || !strings.Contains(errOut, "escapes the workspace root") {
						t.Errorf("lspgraph impact %s exited %d:\n%s%s\nwant non-zero, saying the path escapes the workspace root", target, code, out, errOut)
					}
					if strings.Contains(out+errOut, "root:x:") {
						t.Errorf("lspgraph impact %s quotes /etc/passwd:\n%s%s", target, out, errOut)
					}
				}
			},
		},
		{
			name:    "boundary-truncated dump over a good generation",
			promise: "A dump cut at a record boundary that keeps one document is refused without --allow-shrink and the previous generation keeps serving.",
			run: func(t *testing.T, env *faultEnv) {
				t.Parallel()
				root := fixture(t, "goapp")
				store := env.newStore(t)
				importSCIP(t, store, root, "goapp.scip")
				before := baseLayer(t, env, store, root)
				mod, err := moduleRoot()
				if err != nil {
					t.Fatal(err)
				}
				full, err := os.ReadFile(filepath.Join(mod, "testdata", "scip", "goapp.scip"))
				if err != nil {
					t.Fatal(err)
				}
				cut := filepath.Join(t.TempDir(), "cut.scip")
				if err := os.WriteFile(cut, cutDump(t, full, 1), 0o644); err != nil {
					t.Fatal(err)
				}
				out, errOut, code := env.lspgraph(t, root, "scip", "import", "--store", store, "--root", root, "--commit", "fixture", cut)
				if code == 0 || !strings.Contains(errOut, "--allow-shrink") {
					t.Errorf("lspgraph scip import of a dump cut to 1 document exited %d:\n%s%s\nwant non-zero, naming --allow-shrink", code, out, errOut)
				}
				if after := baseLayer(t, env, store, root); after != before {
					t.Errorf("base layer after the refused import: %+v; want the previous %+v", after, before)
				}
			},
		},
		{
			name:    "busy store at proxy start, then freed",
			promise: "A proxy started on a store another process holds says the store is in use, and within 10 s of its release serves lspgraph.impact from it.",
			run: func(t *testing.T, env *faultEnv) {
				gopls := goplsPath(t)
				root := fixture(t, "goapp")
				store, logFile := env.newStore(t), env.newLog(t)
				importSCIP(t, store, root, "goapp.scip")
				held, err := graph.Open(store, graph.Options{})
				if err != nil {
					t.Fatal(err)
				}
				c := startClient(t, "lspgraph proxy -- gopls", root, proxyArgv(t, store, logFile, []string{gopls})...)
				defer func() { env.output(c.logs.String()) }()
				c.initialize(nil)
				status := func() proxyStatus {
					var st proxyStatus
					raw := c.mustCall("workspace/executeCommand", map[string]any{"command": "lspgraph.status"})
					env.output(string(raw))
					if err := json.Unmarshal(raw, &st); err != nil {
						t.Fatal(err)
					}
					return st
				}
				if st := status(); !strings.Contains(st.StoreError, "in use") {
					t.Errorf("lspgraph.status with the store held: storeError %q; want it named in use", st.StoreError)
				}
				if err := held.Close(); err != nil {
					t.Fatal(err)
				}
				freed := time.Now()
				for st := status(); st.StoreError != "" || len(st.Store) == 0; st = status() {
					if time.Since(freed) > 10*time.Second {
						t.Fatalf("no store 10s after it was freed: %q", st.StoreError)
					}
					time.Sleep(100 * time.Millisecond)
				}
				t.Logf("the proxy had the store %s after it was freed", time.Since(freed).Round(time.Millisecond))
				raw, err := c.call("workspace/executeCommand", map[string]any{"command": "lspgraph.impact", "arguments": []any{map[string]any{"target": "Catalog.Save", "verify": false}}})
				if err != nil {
					t.Fatalf("lspgraph.impact after the store was freed: %v", err)
				}
				env.output(string(raw))
				var a impactAnswer
				if err := json.Unmarshal(raw, &a); err != nil {
					t.Fatal(err)
				}
				if a.Target == nil || len(a.Depths) == 0 || len(a.Depths[0].Dependents) == 0 {
					t.Errorf("lspgraph.impact Catalog.Save after the store was freed: %s; want its d=1 dependents", raw)
				}
				c.shutdown()
			},
		},
		{
			name:    "SIGKILL during import",
			promise: "An import killed at any moment leaves a store that opens and serves either the previous complete generation or a complete new one.",
			run: func(t *testing.T, env *faultEnv) {
				root := fixture(t, "goapp")
				store := env.newStore(t)
				mod, err := moduleRoot()
				if err != nil {
					t.Fatal(err)
				}
				dump := filepath.Join(mod, "testdata", "scip", "goapp.scip")
				delays := []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond}
				if c := os.Getenv("LSPGRAPH_CORPUS"); c != "" {
					if big := filepath.Join(c, "pebble-go.scip"); fileExists(big) {
						dump = big
						delays = []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, 1000 * time.Millisecond}
					}
				}
				t.Logf("killing imports of %s after %v", dump, delays)
				importArgs := []string{"scip", "import", "--store", store, "--root", root, "--commit", "fixture", dump}
				if out, errOut, code := env.lspgraph(t, root, importArgs...); code != 0 {
					t.Fatalf("first import exited %d:\n%s%s", code, out, errOut)
				}
				prev := baseLayer(t, env, store, root)
				full := prev.Documents
				for _, d := range delays {
					cmd := exec.Command(env.bin, importArgs...)
					cmd.Dir = root
					var o, s bytes.Buffer
					cmd.Stdout, cmd.Stderr = &o, &s
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					time.Sleep(d)
					cmd.Process.Signal(syscall.SIGKILL)
					werr := cmd.Wait()
					env.output(o.String())
					env.output(s.String())
					now := baseLayer(t, env, store, root)
					t.Logf("killed after %s (%v): base generation %d, %d documents, %s", d, werr, now.Generation, now.Documents, now.State)
					switch {
					case now == prev:
					case now.Generation > prev.Generation && now.State == "complete" && now.Documents == full:
						prev = now
					default:
						t.Errorf("after an import killed at %s: base %+v; want the previous %+v or a complete new generation of %d documents", d, now, prev, full)
						prev = now
					}
				}
			},
		},
		{
			name:    "malformed frames",
			promise: "Frames with a bad Content-Length or a body that is not JSON never make the proxy panic; it keeps forwarding or exits.",
			run: func(t *testing.T, env *faultEnv) {
				gopls := goplsPath(t)
				root := fixture(t, "goapp")
				store, logFile := env.newStore(t), env.newLog(t)
				cmd := exec.Command(env.bin, "proxy", "--store", store, "--log", logFile, "--", gopls)
				cmd.Dir = root
				stderr := &lockedBuffer{}
				cmd.Stderr = stderr
				in, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				got := &lockedBuffer{}
				go func() {
					io.Copy(got, out)
					env.output(got.String())
					done <- cmd.Wait()
				}()
				frame := func(body string) string {
					return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
				}
				// A body that is not JSON, then a good initialize: the
				// proxy either answers it (it kept forwarding) or has
				// exited.
				initialize := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":%d,"rootUri":%q,"capabilities":{}}}`, os.Getpid(), fileURI(root))
				if _, err := io.WriteString(in, frame("this is not json")+frame(initialize)); err != nil {
					t.Logf("writing the first frames: %v", err)
				}
				exited := false
				for deadline := time.Now().Add(callTimeout); ; time.Sleep(50 * time.Millisecond) {
					if strings.Contains(got.String(), `"id":1`) {
						t.Logf("the proxy answered initialize after a body that is not JSON")
						break
					}
					select {
					case err := <-done:
						done <- err
						exited = true
						t.Logf("the proxy exited after a body that is not JSON: %v", err)
					default:
					}
					if exited {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the proxy neither answered initialize nor exited within %s of a body that is not JSON", callTimeout)
					}
				}
				// Then a truncated object, an id of the wrong type, an
				// array, a length that is no number, a negative one and
				// one larger than what follows.
				for _, f := range []string{
					frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`),
					frame(`{"jsonrpc":"2.0","id":{"x":1},"method":"initialize","params":null}`),
					frame(`[1,2,3]`),
					"Content-Length: abc\r\n\r\n{}",
					"Content-Length: -5\r\n\r\n{}",
					"Content-Length: 999999\r\n\r\n{}",
				} {
					if _, err := io.WriteString(in, f); err != nil {
						t.Logf("writing a malformed frame: %v (the proxy may have exited)", err)
						break
					}
				}
				in.Close()
				select {
				case err := <-done:
					t.Logf("the proxy exited: %v", err)
				case <-time.After(20 * time.Second):
					cmd.Process.Kill()
					<-done
					t.Errorf("the proxy did not exit within 20s of its stdin closing after malformed frames")
				}
				env.output(stderr.String())
				if strings.Contains(stderr.String(), "panic:") || strings.Contains(stderr.String(), "goroutine ") {
					t.Errorf("the proxy panicked on malformed frames:\n%s", tail(stderr.String(), 4000))
				}
				if data, err := os.ReadFile(logFile); err == nil && bytes.Contains(data, []byte("panic:")) {
					t.Errorf("the proxy log shows a panic:\n%s", tail(string(data), 4000))
				}
				if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 2 && strings.Contains(stderr.String(), "goroutine") {
					t.Errorf("the proxy exited 2 with a goroutine dump")
				}
			},
		},
		{
			name:    "silent server",
			promise: "With a server that never answers, the proxy answers shutdown within 10 s and exits after exit.",
			run: func(t *testing.T, env *faultEnv) {
				t.Parallel()
				root := fixture(t, "goapp")
				store, logFile := env.newStore(t), env.newLog(t)
				sleep := needTool(t, "sleep")
				c := startClient(t, "lspgraph proxy -- sleep 600", root, proxyArgv(t, store, logFile, []string{sleep, "600"})...)
				defer func() { env.output(c.logs.String()) }()
				start := time.Now()
				_, err := c.callTimeout("shutdown", nil, 10*time.Second)
				took := time.Since(start)
				t.Logf("shutdown answered after %s: %v", took.Round(time.Millisecond), err)
				if took >= 10*time.Second || err != nil && strings.Contains(err.Error(), "deadline") {
					t.Fatalf("the proxy did not answer shutdown within 10s: %v", err)
				}
				c.notify("exit", nil)
				select {
				case <-c.waited:
				case <-time.After(10 * time.Second):
					t.Errorf("the proxy did not exit within 10s of exit")
				}
			},
		},
	}
}

// baseState is what lspgraph status --json says of the base layer.
type baseState struct {
	Generation int
	Documents  int
	State      string
}

// baseLayer runs lspgraph status --json; it fails the test when the store
// does not open or has no single base layer.
func baseLayer(t *testing.T, env *faultEnv, store, root string) baseState {
	t.Helper()
	out, errOut, code := env.lspgraph(t, root, "status", "--store", store, "--root", root, "--json")
	if code != 0 {
		t.Fatalf("lspgraph status exited %d:\n%s%s", code, out, errOut)
	}
	var st struct {
		Layers []struct {
			Layer      string `json:"layer"`
			Generation int    `json:"generation"`
			Documents  int    `json:"documents"`
			State      string `json:"state"`
		} `json:"layers"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("decoding lspgraph status: %v\n%s", err, out)
	}
	var bases []baseState
	for _, l := range st.Layers {
		if l.Layer == "base" {
			bases = append(bases, baseState{l.Generation, l.Documents, l.State})
		}
	}
	if len(bases) != 1 {
		t.Fatalf("lspgraph status lists %d base layers; want 1:\n%s", len(bases), out)
	}
	return bases[0]
}

// cutDump keeps a SCIP dump's metadata and its first keep document
// records and drops everything after: a dump cut at a record boundary,
// as a crashed indexer leaves it.
func cutDump(t *testing.T, b []byte, keep int) []byte {
	t.Helper()
	const fieldMetadata, fieldDocuments = 1, 2
	var out []byte
	docs := 0
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			t.Fatalf("tag at byte %d: %v", off, protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			t.Fatalf("field %d at byte %d: %v", num, off, protowire.ParseError(m))
		}
		rec := b[off : off+n+m]
		off += n + m
		switch {
		case num == fieldMetadata:
			out = append(out, rec...)
		case num == fieldDocuments && docs < keep:
			out = append(out, rec...)
			docs++
		}
	}
	if docs != keep {
		t.Fatalf("the dump has %d documents; want at least %d", docs, keep)
	}
	return out
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
