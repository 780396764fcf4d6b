package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSocketModes: the session socket is 0600 in a 0700 directory, and a
// stale socket left by a killed process is replaced.
func TestSocketModes(t *testing.T) {
	dir, root := importFixture(t, "goapp", "goapp.scip")
	path := SocketPath(dir)
	// A stale socket file, as a killed session leaves it.
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openSession(t, root, dir)
	ln, err := s.Listen()
	if err != nil {
		t.Fatalf("listening over a stale socket file: %v", err)
	}
	defer ln.Close()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %s mode = %v; want a socket, 0600", path, fi.Mode())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode = %v; want 0700", di.Mode().Perm())
	}
	c, err := Dial(context.Background(), dir, "cli", "")
	if err != nil {
		t.Fatalf("dialing the session: %v", err)
	}
	var st Status
	if err := c.Command(context.Background(), CommandStatus, nil, 0, &st); err != nil || st.Session.PID != os.Getpid() {
		t.Errorf("status through the socket = %+v, %v", st.Session, err)
	}
	c.Close()
	ln.Close()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind after Close: %v", err)
	}
	if _, err := Dial(context.Background(), dir, "cli", ""); !errors.Is(err, ErrNoSession) {
		t.Errorf("Dial with no session = %v; want ErrNoSession", err)
	}
}

// TestSocketRefusesOtherUser: a client running as another user is refused
// even when the file modes would let it connect (SO_PEERCRED is checked on
// every connection). Needs root, to run the client as nobody.
func TestSocketRefusesOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		if os.Getenv("LSPGRAPH_E2E") == "1" {
			t.Fatal("setpriv not found")
		}
		t.Skip("setpriv not found")
	}
	// The system's python, which every user may run.
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	base := filepath.Join("/tmp", "lspgraph-peercred-"+filepath.Base(t.TempDir()))
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := filepath.Join(base, "store")
	root := filepath.Join(repoRoot(t), "testdata", "goapp")
	s := openSession(t, root, dir)
	ln, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Open the file system's door on purpose: only the credential check
	// stands between nobody and the session now.
	for _, p := range []string{base, dir} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(ln.Path(), 0o777); err != nil {
		t.Fatal(err)
	}
	// nobody connects and sends a well-formed hello; a session that
	// accepted it would answer.
	script := `
import socket, sys, json
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sys.argv[1])
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session/hello", "params": {"client": {"kind": "cli"}}}).encode()
data = b""
try:
    # A refused connection may be closed before the hello is written.
    s.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
        if b'"result"' in data:
            break
except Exception as e:
    print("error", e)
print("answer", repr(data))
`
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", python, "-c", script, ln.Path()).CombinedOutput()
	if err != nil {
		t.Fatalf("client as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "answer b''") {
		t.Errorf("a client running as nobody got an answer: %s", out)
	}
	// The same client as this user is answered: the refusal is the
	// credential check, not a broken client.
	out, err = exec.CommandContext(ctx, python, "-c", script, ln.Path()).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"pid"`) {
		t.Errorf("the same client as this user: %v\n%s", err, out)
	}
}
