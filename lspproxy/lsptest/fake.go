package lsptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"testing"
)

// FakeServer is a language server driven by a rule table. It answers
// initialize with Capabilities, shutdown with null, every other request with
// Results[method] (or, when absent, its own params, so answers are
// checkable), and exits on exit. It is real enough to run as a process.
type FakeServer struct {
	// Capabilities is the initialize result's capabilities; {} when nil.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// Results maps request methods to raw results.
	Results map[string]json.RawMessage `json:"results,omitempty"`
	// CrashOn makes the server stop without answering when it receives
	// this method: Serve returns CrashCode.
	CrashOn   string `json:"crashOn,omitempty"`
	CrashCode int    `json:"crashCode,omitempty"`
	// OrphanOutput, with CrashOn, leaves a child process holding the
	// server's stdout open for 20 s after the crash (as a server
	// whose helper processes inherited it would).
	OrphanOutput bool `json:"orphanOutput,omitempty"`
	// Hang lists methods the server never answers, cancelled or not.
	Hang []string `json:"hang,omitempty"`
	// Notify is sent to the client after each answered request whose
	// method it names.
	Notify map[string][]json.RawMessage `json:"notify,omitempty"`
}

// Serve speaks LSP on r and w until exit, the end of r, or a crash, and
// returns the process exit code the server would use: 0 after shutdown and
// exit, 1 after exit without shutdown or at the end of input, CrashCode on
// a crash.
func (f *FakeServer) Serve(r io.Reader, w io.Writer) int {
	br := bufio.NewReader(r)
	hang := map[string]bool{}
	for _, m := range f.Hang {
		hang[m] = true
	}
	shutdown := false
	for {
		body, err := ReadFrame(br)
		if err != nil {
			return 1
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &msg); err != nil || msg.Method == "" {
			continue // responses from the client, and anything odd
		}
		if msg.Method == f.CrashOn && f.CrashOn != "" {
			return f.CrashCode
		}
		if msg.Method == "exit" {
			if shutdown {
				return 0
			}
			return 1
		}
		if msg.ID == nil || hang[msg.Method] {
			continue
		}
		var result json.RawMessage
		switch msg.Method {
		case "initialize":
			caps := f.Capabilities
			if caps == nil {
				caps = json.RawMessage(`{}`)
			}
			result = append(append([]byte(`{"capabilities":`), caps...), []byte(`,"serverInfo":{"name":"fake","version":"1"}}`)...)
		case "shutdown":
			shutdown = true
			result = json.RawMessage("null")
		default:
			var ok bool
			if result, ok = f.Results[msg.Method]; !ok {
				result = msg.Params
				if result == nil {
					result = json.RawMessage("null")
				}
			}
		}
		var resp bytes.Buffer
		resp.WriteString(`{"jsonrpc":"2.0","id":`)
		resp.Write(msg.ID)
		resp.WriteString(`,"result":`)
		resp.Write(result)
		resp.WriteString(`}`)
		if WriteFrame(w, resp.Bytes()) != nil {
			return 1
		}
		for _, n := range f.Notify[msg.Method] {
			if WriteFrame(w, n) != nil {
				return 1
			}
		}
	}
}

// fakeServerEnv carries a FakeServer's rules to a re-executed test binary.
const fakeServerEnv = "LSPTEST_FAKE_SERVER"

// MaybeRunFakeServer runs the fake server and exits the process when the
// test binary was started by [FakeServerCommand]; otherwise it returns.
// Call it first in TestMain.
func MaybeRunFakeServer() {
	rules := os.Getenv(fakeServerEnv)
	if rules == "" {
		return
	}
	var f FakeServer
	if err := json.Unmarshal([]byte(rules), &f); err != nil {
		os.Stderr.WriteString("lsptest: bad fake server rules: " + err.Error() + "\n")
		os.Exit(2)
	}
	code := f.Serve(os.Stdin, os.Stdout)
	if f.OrphanOutput {
		holder := exec.Command("sleep", "20") // longer than lsptest.Timeout
		holder.Stdout = os.Stdout
		if err := holder.Start(); err != nil {
			os.Stderr.WriteString("lsptest: starting the output holder: " + err.Error() + "\n")
		}
	}
	os.Exit(code)
}

// FakeServerCommand returns a command that runs f as a real process: the
// test binary re-executing itself (its TestMain must call
// [MaybeRunFakeServer]).
func FakeServerCommand(t testing.TB, f FakeServer) *exec.Cmd {
	t.Helper()
	rules, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), fakeServerEnv+"="+string(rules))
	cmd.Stderr = os.Stderr
	return cmd
}
