package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeGivesWay: `lspgraph serve` keeps the workspace's session,
// headless, and the command line answers from it; an editor's proxy
// started afterwards (`lspgraph proxy -- gopls`) takes the session over
// with its server; once the proxy has gone the session is served headless
// again; an interrupt ends it and frees the store.
func TestServeGivesWay(t *testing.T) {
	t.Parallel()
	gopls := goplsPath(t)
	root, store, bin := goappWithCaller(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	serve := exec.CommandContext(ctx, bin, "serve", "--root", root, "--store", store, "--idle", "0")
	var logs lockedBuffer
	serve.Stderr = &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	defer func() {
		serve.Process.Kill()
		if t.Failed() {
			t.Logf("lspgraph serve:\n%s", tail(logs.String(), 4000))
		}
	}()

	// waitSession polls `lspgraph status` until the session is the one
	// want accepts.
	waitSession := func(what string, within time.Duration, want func(sessionStatus) bool) {
		t.Helper()
		for deadline := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
			st, out, err := sessionOf(bin, store, root)
			if err == nil && want(st) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: status %s (%v)", what, out, err)
			}
		}
	}
	servePID := serve.Process.Pid
	waitSession("served headless", time.Minute, func(st sessionStatus) bool {
		return st.Session.PID == servePID && !st.Session.LiveServer && st.Session.Headless
	})
	// The command line answers from the session: the work tree's new
	// caller is there at d=1.
	out, err := exec.Command(bin, "impact", "--store", store, "--root", root, "--json", "Catalog.Save").Output()
	if err != nil {
		t.Fatalf("lspgraph impact: %v\n%s", err, out)
	}
	if !jsonHasCaller(t, out, "Catalog.SaveDefault") {
		t.Errorf("impact through the served session lacks the work tree's caller SaveDefault:\n%s", tail(string(out), 2000))
	}

	proxy := startClient(t, "proxy", root, bin, "proxy", "--store", store, "--root", root, "--", gopls)
	proxy.initialize(nil)
	waitSession("taken over by the proxy", time.Minute, func(st sessionStatus) bool {
		return st.Session.PID != servePID && st.Session.PID != 0 && st.Session.LiveServer
	})
	// Served again once the proxy has exited: not after waiting out the
	// time a proxy is given to take the store over (30 s).
	proxy.shutdown()
	waitSession("served headless again", 20*time.Second, func(st sessionStatus) bool { return st.Session.PID == servePID && !st.Session.LiveServer })

	if err := serve.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("lspgraph serve after an interrupt: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("lspgraph serve did not exit on an interrupt")
	}
	waitSession("no session after serve", time.Minute, func(st sessionStatus) bool { return st.Session.PID == 0 })
}

// sessionStatus is the part of `lspgraph status --json` about the session.
type sessionStatus struct {
	Session struct {
		PID        int  `json:"pid"`
		LiveServer bool `json:"liveServer"`
		Headless   bool `json:"headless"`
	} `json:"session"`
}

// sessionOf runs `lspgraph status --json` on the store and returns its
// session part, and the output it was read from.
func sessionOf(bin, store, root string) (sessionStatus, []byte, error) {
	var st sessionStatus
	out, err := exec.Command(bin, "status", "--store", store, "--root", root, "--json").Output()
	if err == nil {
		err = json.Unmarshal(out, &st)
	}
	return st, out, err
}

// jsonHasCaller reports whether an impact answer (--json) names the
// dependent name at depth 1.
func jsonHasCaller(t *testing.T, out []byte, name string) bool {
	t.Helper()
	var a struct {
		Depths []struct {
			Depth      int `json:"depth"`
			Dependents []struct {
				Name string `json:"name"`
			} `json:"dependents"`
		} `json:"depths"`
	}
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("impact --json: %v", err)
	}
	for _, d := range a.Depths {
		for _, dep := range d.Dependents {
			if d.Depth == 1 && dep.Name == name {
				return true
			}
		}
	}
	return false
}

// TestServeAuto: with LSPGRAPH_SERVE=auto, a command line whose store no
// session serves answers, then starts `lspgraph serve` for it in the
// background; the next command line finds that session; the session
// outlives the command line that started it, and one a second command
// line started meanwhile does not serve it twice.
func TestServeAuto(t *testing.T) {
	t.Parallel()
	root, store, bin := goappWithCaller(t)
	impact := func() []byte {
		t.Helper()
		cmd := exec.Command(bin, "impact", "--store", store, "--root", root, "--json", "Catalog.Save")
		cmd.Env = append(os.Environ(), "LSPGRAPH_SERVE=auto")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("lspgraph impact with LSPGRAPH_SERVE=auto: %v\n%s", err, out)
		}
		return out
	}
	servedBy := func() int {
		st, out, err := sessionOf(bin, store, root)
		if err != nil {
			t.Errorf("lspgraph status: %v\n%s", err, out)
		}
		return st.Session.PID
	}
	out := impact()
	// The session started serves once it has opened the store.
	pid := 0
	for deadline := time.Now().Add(60 * time.Second); pid == 0; time.Sleep(50 * time.Millisecond) {
		if pid = servedBy(); pid == 0 && time.Now().After(deadline) {
			t.Fatal("no session serves the store a minute after a command line started one")
		}
	}
	if !jsonHasCaller(t, out, "Catalog.SaveDefault") {
		t.Errorf("impact lacks the work tree's caller SaveDefault:\n%s", tail(string(out), 2000))
	}
	defer func() {
		syscall.Kill(pid, syscall.SIGTERM)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if syscall.Kill(pid, 0) != nil {
				return
			}
		}
		t.Errorf("the started session (pid %d) did not end on SIGTERM", pid)
	}()
	impact()
	if now := servedBy(); now != pid {
		t.Errorf("after the next command line the store is served by pid %d; want the started session's %d", now, pid)
	}
	// A second server started as a command line starts one exits.
	second := exec.Command(bin, "serve", "--store", store, "--root", root, "--unless-served")
	if out, err := second.CombinedOutput(); err != nil || !strings.Contains(string(out), "not serving it twice") {
		t.Errorf("serve --unless-served beside the session: %v\n%s", err, out)
	}
	if log, err := os.ReadFile(filepath.Join(store, "serve.log")); err != nil || !strings.Contains(string(log), "serving the session of "+root) {
		t.Errorf("serve.log: %q (%v)", log, err)
	}
}
