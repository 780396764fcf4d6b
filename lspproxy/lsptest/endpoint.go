package lsptest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Timeout bounds every wait in a scenario, so a broken proxy fails a test
// instead of hanging it.
const Timeout = 10 * time.Second

// Endpoint is one side of a framed LSP connection. A goroutine reads frames
// into a queue as they arrive, so the peer never blocks on this side.
type Endpoint struct {
	name string
	conn io.ReadWriteCloser

	wmu sync.Mutex

	mu       sync.Mutex
	cond     *sync.Cond
	queue    []json.RawMessage // received, not yet taken by Recv
	received []json.RawMessage // everything received, in order
	readErr  error
}

// NewEndpoint starts reading frames from conn. name labels failures
// ("editor", "server").
func NewEndpoint(name string, conn io.ReadWriteCloser) *Endpoint {
	e := &Endpoint{name: name, conn: conn}
	e.cond = sync.NewCond(&e.mu)
	go e.readLoop()
	return e
}

func (e *Endpoint) readLoop() {
	r := bufio.NewReader(e.conn)
	for {
		body, err := ReadFrame(r)
		e.mu.Lock()
		if err != nil {
			e.readErr = err
			e.cond.Broadcast()
			e.mu.Unlock()
			return
		}
		e.queue = append(e.queue, body)
		e.received = append(e.received, body)
		e.cond.Broadcast()
		e.mu.Unlock()
	}
}

// ReadFrame reads one LSP base-protocol frame.
func ReadFrame(r *bufio.Reader) (json.RawMessage, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("bad header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("missing Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, body []byte) error {
	_, err := w.Write(append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...))
	return err
}

// Send writes one message: a string or []byte is sent as is, anything else
// is encoded as JSON.
func (e *Endpoint) Send(t testing.TB, msg any) {
	t.Helper()
	if err := e.SendErr(msg); err != nil {
		t.Fatalf("%s: send: %v", e.name, err)
	}
}

// SendErr is Send returning the error.
func (e *Endpoint) SendErr(msg any) error {
	var body []byte
	switch m := msg.(type) {
	case string:
		body = []byte(m)
	case []byte:
		body = m
	default:
		var err error
		if body, err = json.Marshal(m); err != nil {
			return err
		}
	}
	e.wmu.Lock()
	defer e.wmu.Unlock()
	return WriteFrame(e.conn, body)
}

// SendRaw writes bytes as they are, framing included (for malformed-frame
// tests).
func (e *Endpoint) SendRaw(t testing.TB, raw string) {
	t.Helper()
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if _, err := io.WriteString(e.conn, raw); err != nil {
		t.Fatalf("%s: send raw: %v", e.name, err)
	}
}

// Recv returns the next message received, failing the test after Timeout.
func (e *Endpoint) Recv(t testing.TB) json.RawMessage {
	t.Helper()
	m, err := e.RecvTimeout(Timeout)
	if err != nil {
		t.Fatalf("%s: %v", e.name, err)
	}
	return m
}

// RecvTimeout returns the next message or an error when none arrives in d
// or the connection ended.
func (e *Endpoint) RecvTimeout(d time.Duration) (json.RawMessage, error) {
	deadline := time.Now().Add(d)
	timer := time.AfterFunc(d, func() {
		e.mu.Lock()
		e.cond.Broadcast()
		e.mu.Unlock()
	})
	defer timer.Stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(e.queue) == 0 {
		if e.readErr != nil {
			return nil, fmt.Errorf("connection ended: %w", e.readErr)
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("no message within %v", d)
		}
		e.cond.Wait()
	}
	m := e.queue[0]
	e.queue = e.queue[1:]
	return m, nil
}

// Ended waits up to d for the connection to end and returns the read
// error (io.EOF for an orderly close); nil if it is still open.
func (e *Endpoint) Ended(d time.Duration) error {
	deadline := time.Now().Add(d)
	timer := time.AfterFunc(d, func() {
		e.mu.Lock()
		e.cond.Broadcast()
		e.mu.Unlock()
	})
	defer timer.Stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	for e.readErr == nil && time.Now().Before(deadline) {
		e.cond.Wait()
	}
	return e.readErr
}

// Received returns every message received so far, in order.
func (e *Endpoint) Received() []json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]json.RawMessage(nil), e.received...)
}

// Close closes the connection.
func (e *Endpoint) Close() error { return e.conn.Close() }
