package workspace

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/scip"
	bindings "github.com/scip-code/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"
)

func fileURI(p string) string { return lspwire.FileURI(p) }

// repoRoot is the repository's top directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// importFixture imports testdata/scip/DUMP for the fixture project at
// testdata/PROJECT into a store in a temporary directory, closed again;
// it returns the store's directory and the project's root.
func importFixture(t testing.TB, project, dump string) (string, string) {
	t.Helper()
	root := filepath.Join(repoRoot(t), "testdata", project)
	dir := t.TempDir()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := os.Open(filepath.Join(repoRoot(t), "testdata", "scip", dump))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := scip.Import(context.Background(), st, f, scip.Options{Root: root, Commit: "fixture"}); err != nil {
		t.Fatalf("importing %s: %v", dump, err)
	}
	return dir, root
}

// otherToolDump writes testdata/scip/DUMP with its indexer renamed to a
// temporary file and returns the file's path. Importing it replaces the
// base generation with a new one, where the same dump again patches the
// generation in place.
func otherToolDump(t testing.TB, dump string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "scip", dump))
	if err != nil {
		t.Fatal(err)
	}
	var idx bindings.Index
	if err := proto.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	idx.Metadata.ToolInfo.Name += "-other"
	if b, err = proto.Marshal(&idx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), dump)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// willBreak asks the session for target's impact and returns the names of
// its dependents at depth 1 (none when it has none).
func willBreak(t testing.TB, s *Session, target string) []string {
	t.Helper()
	arg, _ := json.Marshal(target)
	res, err := s.Command(context.Background(), CommandImpact, Call{Args: []json.RawMessage{arg}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	var a struct {
		Depths []struct {
			Dependents []struct{ Name string } `json:"dependents"`
		} `json:"depths"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	var names []string
	if len(a.Depths) > 0 {
		for _, d := range a.Depths[0].Dependents {
			names = append(names, d.Name)
		}
	}
	return names
}

// openSession opens a session of the store in dir for root, closed when
// the test ends.
func openSession(t testing.TB, root, dir string) *Session {
	t.Helper()
	s, err := Open(Options{Root: root, StoreDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// proxied connects a session to an lspproxy.Proxy as a proxy does: its
// commands answer lspgraph.*, its observer feeds the session, and the
// proxy is the session's live server.
type proxied struct {
	s  *Session
	mu sync.Mutex
	p  *lspproxy.Proxy
}

func (x *proxied) setProxy(p *lspproxy.Proxy) {
	x.mu.Lock()
	x.p = p
	x.mu.Unlock()
	x.s.SetServer(x)
}

func (x *proxied) proxy() *lspproxy.Proxy {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.p
}

func (x *proxied) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return x.proxy().Request(ctx, method, params)
}
func (x *proxied) Ready() bool                { return x.proxy().Status().ServerReady }
func (x *proxied) Encoding() textpos.Encoding { return x.proxy().Session().Encoding }

func (x *proxied) commands() map[string]lspproxy.CommandFunc {
	out := map[string]lspproxy.CommandFunc{}
	for _, name := range CommandNames() {
		out[name] = func(ctx context.Context, args []json.RawMessage, srv lspproxy.Requester) (any, error) {
			return x.s.Command(ctx, name, Call{Args: args, Server: srv, Encoding: x.Encoding()})
		}
	}
	return out
}

func (x *proxied) observer() lspproxy.Observer {
	return lspproxy.Observer{
		OnExchange: func(e lspproxy.Exchange) { x.s.Exchange(context.Background(), e) },
		OnDocument: x.s.Document,
	}
}

// gitIn returns a runner of git commands in root, with an author and a
// committer set, that fails the test on an error and returns the trimmed
// output.
func gitIn(t testing.TB, root string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}
