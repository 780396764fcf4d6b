package lspbench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"
)

// Editor is a minimal synchronous editor on a process's stdio.
type Editor struct {
	Name string
	cmd  *exec.Cmd
	PID  int
	w    io.WriteCloser
	r    *textproto.Reader
	next int
	wbuf []byte
}

// Start runs prog with args in dir and returns the editor on its stdio;
// name labels the path in errors and reports.
func Start(ctx context.Context, name, dir, prog string, args ...string) (*Editor, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the %s path (%s): %w", name, prog, err)
	}
	return &Editor{Name: name, cmd: cmd, PID: cmd.Process.Pid, w: w, r: textproto.NewReader(bufio.NewReaderSize(r, 64<<10))}, nil
}

func (b *Editor) send(body string) error {
	b.wbuf = append(b.wbuf[:0], "Content-Length: "...)
	b.wbuf = strconv.AppendInt(b.wbuf, int64(len(body)), 10)
	b.wbuf = append(b.wbuf, "\r\n\r\n"...)
	b.wbuf = append(b.wbuf, body...)
	_, err := b.w.Write(b.wbuf)
	return err
}

// call sends a request and reads until its answer, answering the server's
// own requests with null on the way.
func (b *Editor) Call(method, params string) (json.RawMessage, error) {
	b.next++
	id := strconv.Itoa(b.next)
	if err := b.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`); err != nil {
		return nil, fmt.Errorf("sending %s: %w", method, err)
	}
	for {
		h, err := b.r.ReadMIMEHeader()
		if err != nil {
			return nil, fmt.Errorf("waiting for the answer to %s: %w", method, err)
		}
		n, err := strconv.Atoi(h.Get("Content-Length"))
		if err != nil {
			return nil, fmt.Errorf("answer to %s: bad Content-Length: %w", method, err)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(b.r.R, body); err != nil {
			return nil, fmt.Errorf("answer to %s: %w", method, err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("answer to %s: %w", method, err)
		}
		switch {
		case m.Method != "" && m.ID != nil:
			if err := b.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":null}`); err != nil {
				return nil, err
			}
		case m.Method == "" && string(m.ID) == id:
			if m.Error != nil {
				return nil, fmt.Errorf("%s answered with an error: %s", method, m.Error)
			}
			return m.Result, nil
		}
	}
}

// open initializes the server and opens the document.
func (b *Editor) Open(rootURI, uri, text string) error {
	if _, err := b.Call("initialize", fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{},"workspaceFolders":[{"uri":%q,"name":"w"}]}`, rootURI, rootURI)); err != nil {
		return err
	}
	if err := b.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`); err != nil {
		return err
	}
	t, _ := json.Marshal(text)
	return b.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":%s}}}`, uri, t))
}

// shutdown ends the session as an editor does and waits for the process.
func (b *Editor) Shutdown() error {
	if _, err := b.Call("shutdown", "null"); err != nil {
		return err
	}
	if err := b.send(`{"jsonrpc":"2.0","method":"exit"}`); err != nil {
		return err
	}
	b.w.Close()
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("exited after exit: %w", err)
		}
		b.cmd = nil
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("did not exit within 10s of exit")
	}
}

// stop kills the process unless shutdown ended it.
func (b *Editor) Stop() {
	if b.cmd == nil {
		return
	}
	b.w.Close()
	b.cmd.Process.Kill()
	b.cmd.Wait()
}

// PercentileMS returns the p-th percentile of ds in milliseconds.
func PercentileMS(ds []time.Duration, p int) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[(len(s)-1)*p/100].Nanoseconds()) / 1e6
}

// PairedAddedRatio is what a middle adds over direct, relative to what a
// reference middle adds, from samples taken in rounds: the i-th sample of
// each slice is from the same round (the three requests sent back to back).
// It returns median(middle[i] − direct[i]) / median(reference[i] −
// direct[i]), pairing each request with its round's direct one so that
// load that comes and goes between rounds cancels out rather than landing
// on one path's percentile; false when the slices differ in length or are
// empty, or the reference adds nothing.
func PairedAddedRatio(direct, reference, middle []time.Duration) (float64, bool) {
	n := len(direct)
	if n == 0 || len(reference) != n || len(middle) != n {
		return 0, false
	}
	ref := make([]time.Duration, n)
	mid := make([]time.Duration, n)
	for i := range direct {
		ref[i] = reference[i] - direct[i]
		mid[i] = middle[i] - direct[i]
	}
	slices.Sort(ref)
	slices.Sort(mid)
	r, m := ref[(n-1)/2], mid[(n-1)/2]
	if r <= 0 {
		return 0, false
	}
	return float64(m) / float64(r), true
}
