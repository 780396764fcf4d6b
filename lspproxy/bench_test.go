package lspproxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspgraph/lspgraph/internal/proccpu"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/lspproxy/lsptest"
)

// BenchmarkProxy measures the round trip of textDocument/definition as an
// editor sees it, in one run: directly to the server, through a bare frame
// copier (the floor: two goroutines that only move frames), and through
// the proxy. Requests to the three alternate so drift affects all alike.
// Metrics: p50/p99 per path in ms, proxied/direct and proxied/copier
// ratios, and added-p50-proxied/copier, the proxy's added latency over the
// copier's.
func BenchmarkProxy(b *testing.B) {
	b.Run("server=echo", func(b *testing.B) {
		def := []byte(`{"uri":"file:///w/a.go","range":{"start":{"line":3,"character":5},"end":{"line":3,"character":8}}}`)
		server := func(b *testing.B) io.ReadWriteCloser {
			editorSide, serverSide := pipePair(b)
			f := lsptest.FakeServer{Results: map[string]json.RawMessage{"textDocument/definition": def}}
			go f.Serve(serverSide, serverSide)
			b.Cleanup(func() { editorSide.Close(); serverSide.Close() })
			return editorSide
		}
		benchPaths(b, inProcessPaths(server), "file:///w", "file:///w/a.go", "package a\n", 0, 0)
	})
	gopls, err := exec.LookPath("gopls")
	if err != nil {
		gopls = "/root/go/bin/gopls"
	}
	root, err := filepath.Abs("../testdata/goapp")
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(root, "service", "catalog.go")
	goplsBench := func(b *testing.B, paths func(server func(*testing.B) io.ReadWriteCloser) []benchPath) {
		if _, err := os.Stat(gopls); err != nil {
			b.Skip("gopls not installed")
		}
		text, err := os.ReadFile(file)
		if err != nil {
			b.Skipf("fixture missing: %v", err)
		}
		server := func(b *testing.B) io.ReadWriteCloser { return startCommand(b, root, nil, gopls) }
		// "c.st.Put" on line 30: Put is at character 16.
		benchPaths(b, paths(server), "file://"+root, "file://"+file, string(text), 29, 16)
	}
	// The copier and the proxy in this process, over OS pipes.
	b.Run("server=gopls/middle=goroutines", func(b *testing.B) { goplsBench(b, inProcessPaths) })
	// The copier and the proxy as processes of their own between the
	// editor and gopls, as an editor runs them.
	b.Run("server=gopls/middle=process", func(b *testing.B) {
		goplsBench(b, func(server func(*testing.B) io.ReadWriteCloser) []benchPath {
			middle := func(kind string) func(*testing.B) io.ReadWriteCloser {
				return func(b *testing.B) io.ReadWriteCloser {
					exe, err := os.Executable()
					if err != nil {
						b.Fatal(err)
					}
					return startCommand(b, root, []string{benchMiddleEnv + "=" + kind + " " + gopls}, exe, "-test.run=^$")
				}
			}
			return []benchPath{{name: "direct", connect: server}, {name: "copier", connect: middle("copier"), cpu: true}, {name: "proxied", connect: middle("proxy"), cpu: true}, {name: "observed", connect: middle("observed"), cpu: true}}
		})
	})
}

// benchPath is one way from the editor to a server.
type benchPath struct {
	name    string
	connect func(*testing.B) io.ReadWriteCloser
	// cpu: the connection is a middle process whose CPU time per request
	// is reported (Linux: the sum of its threads' schedstat run time).
	cpu bool
}

// inProcessPaths: direct, and through a frame copier, the proxy, and the
// proxy with an observer, all running as goroutines of this process.
func inProcessPaths(server func(*testing.B) io.ReadWriteCloser) []benchPath {
	via := func(name string, run func(editor, server io.ReadWriteCloser)) benchPath {
		return benchPath{name: name, connect: func(b *testing.B) io.ReadWriteCloser {
			srv := server(b)
			editorSide, middle := pipePair(b)
			go run(middle, srv)
			return editorSide
		}}
	}
	return []benchPath{
		{name: "direct", connect: server},
		via("copier", func(editor, server io.ReadWriteCloser) {
			go copyFrames(server, editor)
			copyFrames(editor, server)
		}),
		via("proxied", func(editor, server io.ReadWriteCloser) {
			lspproxy.New(lspproxy.Config{ServerName: "bench"}).Serve(context.Background(), editor, server)
		}),
		via("observed", func(editor, server io.ReadWriteCloser) {
			// An observer that keeps nothing: the cost of the queue and of
			// waking its goroutine, not of the graph.
			cfg := lspproxy.Config{ServerName: "bench", Observer: lspproxy.Observer{OnExchange: func(lspproxy.Exchange) {}}}
			lspproxy.New(cfg).Serve(context.Background(), editor, server)
		}),
	}
}

// startCommand starts a process speaking LSP on its stdio.
func startCommand(b *testing.B, dir string, env []string, name string, args ...string) io.ReadWriteCloser {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stderr = os.Stderr
	proc, err := lspproxy.StartServer(cmd)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		proc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if proc.Wait(ctx) != nil {
			syscall.Kill(proc.Pid(), syscall.SIGKILL)
		}
	})
	return proc
}

// benchMiddleEnv makes the test binary run as a middle process ("copier",
// "proxy" or "observed", a space, and the server command) on its stdio.
const benchMiddleEnv = "LSPPROXY_BENCH_MIDDLE"

// maybeRunBenchMiddle runs the middle process and exits when asked to.
func maybeRunBenchMiddle() {
	spec := os.Getenv(benchMiddleEnv)
	if spec == "" {
		return
	}
	fields := strings.Fields(spec)
	cmd := exec.Command(fields[1], fields[2:]...)
	cmd.Stderr = os.Stderr
	proc, err := lspproxy.StartServer(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	editor := &rwc{os.Stdin, os.Stdout}
	switch fields[0] {
	case "copier":
		go copyFrames(proc, os.Stdin)
		copyFrames(os.Stdout, proc)
	default:
		cfg := lspproxy.Config{ServerName: "bench"}
		if fields[0] == "observed" {
			cfg.Observer.OnExchange = func(lspproxy.Exchange) {}
		}
		lspproxy.New(cfg).ServeProcess(context.Background(), editor, proc)
	}
	os.Exit(0)
}

// pipePair returns two ends of a pair of OS pipes, as an editor and a
// server talk over stdio.
func pipePair(b *testing.B) (a, z *rwc) {
	ar, zw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	zr, aw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return &rwc{ar, aw}, &rwc{zr, zw}
}

type rwc struct {
	r *os.File
	w *os.File
}

func (c *rwc) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *rwc) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *rwc) Close() error {
	c.w.Close()
	return c.r.Close()
}

// benchPaths connects each path, warms the servers up, and alternates
// definition requests between the paths.
func benchPaths(b *testing.B, connect []benchPath, rootURI, uri, text string, line, char int) {
	type path struct {
		name    string
		client  *benchClient
		samples []time.Duration
		pid     int
		cpu     time.Duration
	}
	var paths []*path
	for _, c := range connect {
		conn := c.connect(b)
		client := newBenchClient(conn)
		client.initialize(b, rootURI, uri, text)
		p := &path{name: c.name, client: client}
		if proc, ok := conn.(*lspproxy.ServerProcess); ok && c.cpu {
			p.pid = proc.Pid()
		}
		paths = append(paths, p)
	}
	params := fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, uri, line, char)
	// Warm up: the server's first answers (package loading) are not what
	// we measure.
	for _, p := range paths {
		for range 20 {
			p.client.call(b, "textDocument/definition", params)
		}
	}
	for _, p := range paths {
		if p.pid != 0 {
			p.cpu = -proccpu.Of(p.pid)
		}
	}
	b.ResetTimer()
	// Rounds rotate the order, so no path always follows the same one (a
	// server's work after an answer competes with the next request).
	round := 0
	for b.Loop() {
		round++
		for i := range paths {
			p := paths[(round+i)%len(paths)]
			t0 := time.Now()
			p.client.call(b, "textDocument/definition", params)
			p.samples = append(p.samples, time.Since(t0))
		}
	}
	b.StopTimer()
	pct := map[string][2]float64{}
	for _, p := range paths {
		if p.pid != 0 {
			if p.cpu += proccpu.Of(p.pid); p.cpu > 0 {
				b.ReportMetric(float64(p.cpu.Microseconds())/float64(len(p.samples)), "cpu-us/req-"+p.name)
			}
		}
		slices.Sort(p.samples)
		p50 := ms(p.samples[len(p.samples)/2])
		p99 := ms(p.samples[len(p.samples)*99/100])
		pct[p.name] = [2]float64{p50, p99}
		b.ReportMetric(p50, "p50-"+p.name+"-ms")
		b.ReportMetric(p99, "p99-"+p.name+"-ms")
	}
	d, c, x, o := pct["direct"], pct["copier"], pct["proxied"], pct["observed"]
	b.ReportMetric(o[0]/d[0], "p50-observed/direct")
	b.ReportMetric(o[1]/d[1], "p99-observed/direct")
	b.ReportMetric(x[0]/d[0], "p50-proxied/direct")
	b.ReportMetric(x[1]/d[1], "p99-proxied/direct")
	b.ReportMetric(x[0]/c[0], "p50-proxied/copier")
	b.ReportMetric(x[1]/c[1], "p99-proxied/copier")
	if c[0] > d[0] {
		b.ReportMetric((x[0]-d[0])/(c[0]-d[0]), "added-p50-proxied/copier")
	}
	b.ReportMetric(0, "ns/op")
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// copyFrames is the floor the proxy is measured against.
func copyFrames(dst io.Writer, src io.Reader) { lspproxy.CopyFrames(dst, src) }

// benchClient is a minimal synchronous editor.
type benchClient struct {
	w    io.Writer
	r    *bufio.Reader
	next int
}

func newBenchClient(rw io.ReadWriter) *benchClient {
	return &benchClient{w: rw, r: bufio.NewReaderSize(rw, 64<<10)}
}

func (c *benchClient) send(b *testing.B, body string) {
	if err := lsptest.WriteFrame(c.w, []byte(body)); err != nil {
		b.Fatal(err)
	}
}

// call sends a request and reads until its answer, answering server
// requests with null on the way.
func (c *benchClient) call(b *testing.B, method, params string) json.RawMessage {
	c.next++
	id := strconv.Itoa(c.next)
	c.send(b, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":`+params+`}`)
	for {
		body, err := lsptest.ReadFrame(c.r)
		if err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			b.Fatal(err)
		}
		switch {
		case m.Method != "" && m.ID != nil:
			c.send(b, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":null}`)
		case m.Method == "" && string(m.ID) == id:
			if m.Error != nil {
				b.Fatalf("%s: %s", method, m.Error)
			}
			return m.Result
		}
	}
}

func (c *benchClient) initialize(b *testing.B, rootURI, uri, text string) {
	c.call(b, "initialize", fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{},"workspaceFolders":[{"uri":%q,"name":"w"}]}`, rootURI, rootURI))
	c.send(b, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	t, _ := json.Marshal(text)
	c.send(b, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":%s}}}`, uri, t))
}
