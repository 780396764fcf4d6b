package workspace

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/internal/textpos"
)

// askPrefix opens a plain request on the session socket: one command per
// connection, for clients that ask once and leave (the command line). The
// request is the prefix and a JSON object on one line; the answer is a JSON
// header line ({"pid", "size"} or {"error"}) and then size bytes of the
// answer's JSON, after which the session closes the connection. Other
// connections speak JSON-RPC (Dial).
const askPrefix = "lspgraph-ask/1 "

// askRequest is a plain request.
type askRequest struct {
	// Kind is what the client is (cli, mcp): status lists it while its
	// request runs.
	Kind      string            `json:"kind,omitempty"`
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments,omitempty"`
	Encoding  textpos.Encoding  `json:"encoding,omitempty"`
}

// askHeader heads a plain answer.
type askHeader struct {
	PID   int    `json:"pid,omitempty"`
	Size  int    `json:"size,omitempty"`
	Error string `json:"error,omitempty"`
}

// Ask runs one command in the session serving the store in storeDir and
// returns its answer as the session encoded it, and the session's pid. It
// returns an error wrapping ErrNoSession when nothing listens there, one
// wrapping ErrSessionGone when the session went away before answering, and
// the command's own error otherwise.
func Ask(ctx context.Context, storeDir, kind, name string, args []json.RawMessage, enc textpos.Encoding) (json.RawMessage, int, error) {
	path := SocketPath(storeDir)
	d := net.Dialer{Timeout: 2 * time.Second}
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
			return nil, 0, fmt.Errorf("%w (%s)", ErrNoSession, path)
		}
		return nil, 0, fmt.Errorf("connecting to the session at %s: %w", path, err)
	}
	defer nc.Close()
	if uid, pid, err := peerCred(nc.(*net.UnixConn)); err != nil || uid != os.Geteuid() {
		return nil, 0, fmt.Errorf("the session socket %s belongs to another user (uid %d, pid %d): refusing it", path, uid, pid)
	}
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Now()) })
	defer stop()
	req, err := json.Marshal(askRequest{Kind: kind, Command: name, Arguments: args, Encoding: enc})
	if err != nil {
		return nil, 0, fmt.Errorf("encoding the %s request: %w", name, err)
	}
	if _, err := nc.Write(append(append([]byte(askPrefix), req...), '\n')); err != nil {
		return nil, 0, gone(ctx, err)
	}
	br := bufio.NewReaderSize(nc, 64<<10)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, 0, gone(ctx, err)
	}
	var h askHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, 0, fmt.Errorf("the session at %s answered %.100q: %w", path, line, err)
	}
	if h.Error != "" {
		return nil, h.PID, errors.New(h.Error)
	}
	raw := make([]byte, h.Size)
	if _, err := io.ReadFull(br, raw); err != nil {
		return nil, h.PID, gone(ctx, err)
	}
	return raw, h.PID, nil
}

// gone is the error of a plain request whose connection failed: the
// caller's if it gave up, else the session went away.
func gone(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: %v", ErrSessionGone, err)
}

// servePlain answers one plain request of the client pid on a connection
// whose reader has the prefix still unread; the client is listed while its
// request runs.
func (l *Listener) servePlain(nc net.Conn, br *bufio.Reader, pid int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	write := func(h askHeader, body []byte) {
		h.PID = os.Getpid()
		head, _ := json.Marshal(h)
		var b bytes.Buffer
		b.Grow(len(head) + 1 + len(body))
		b.Write(head)
		b.WriteByte('\n')
		b.Write(body)
		nc.Write(b.Bytes())
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return
	}
	var req askRequest
	if err := json.Unmarshal(bytes.TrimPrefix(line, []byte(askPrefix)), &req); err != nil {
		write(askHeader{Error: fmt.Sprintf("decoding the request: %v", err)}, nil)
		return
	}
	id := "q" + strconv.FormatInt(l.ids.Add(1), 10)
	l.s.mu.Lock()
	l.s.clients[id] = ClientInfo{ID: id, Kind: cmp.Or(req.Kind, "cli"), PID: pid, Since: time.Now()}
	l.s.mu.Unlock()
	defer func() {
		l.s.mu.Lock()
		delete(l.s.clients, id)
		l.s.mu.Unlock()
	}()
	res, err := l.s.Command(ctx, req.Command, Call{Args: req.Arguments, Encoding: req.Encoding})
	if errors.Is(err, errClosing) {
		return // closed unanswered: the client asks again (ErrSessionGone)
	}
	if err != nil {
		write(askHeader{Error: err.Error()}, nil)
		return
	}
	raw, ok := res.(json.RawMessage)
	if !ok {
		if raw, err = json.Marshal(res); err != nil {
			write(askHeader{Error: fmt.Sprintf("encoding the answer to %s: %v", req.Command, err)}, nil)
			return
		}
	}
	write(askHeader{Size: len(raw)}, raw)
}

// bufferedConn is a connection whose reads go through a bufio.Reader that
// has looked ahead.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// holderWait bounds how long a command line waits for a store that another
// process holds without serving a session (an import, another command
// line), or whose session is still starting.
const holderWait = 3 * time.Second

// AskOrOpen runs a command, as a client of the given kind, in the session
// serving the store in dir, or in a one-shot session of this process when
// none serves it, and returns the answer's JSON. A session that goes away
// during the call is asked again of whoever holds the store then; an
// impact answer kept on disk is used without opening the store for
// writing; a store another process holds without serving a session is
// waited for a little (see whileHeld).
func AskOrOpen(ctx context.Context, kind, root, dir, name string, args []json.RawMessage) (json.RawMessage, error) {
	var answer json.RawMessage
	err := whileHeld(ctx, func() error {
		var err error
		answer, err = askOrOpenOnce(ctx, kind, root, dir, name, args)
		return err
	})
	return answer, err
}

// askOrOpenOnce is one try of AskOrOpen: an error wrapping graph.ErrLocked
// when another process holds the store without serving a session.
func askOrOpenOnce(ctx context.Context, kind, root, dir, name string, args []json.RawMessage) (json.RawMessage, error) {
	answer, _, err := Ask(ctx, dir, kind, name, args, 0)
	if errors.Is(err, ErrSessionGone) {
		answer, _, err = Ask(ctx, dir, kind, name, args, 0)
	}
	if !errors.Is(err, ErrNoSession) {
		return answer, err
	}
	if name == CommandImpact {
		// Asked again with nothing changed: the answer kept on disk,
		// without opening the store for writing.
		if raw, ok := Cached(ctx, root, dir, args); ok {
			return raw, nil
		}
	}
	s, err := Open(Options{Root: root, StoreDir: dir})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	res, err := s.Command(ctx, name, Call{Args: args})
	if err != nil {
		return nil, err
	}
	if raw, ok := res.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encoding the answer: %w", err)
	}
	return b, nil
}

// whileHeld calls try again while it fails with graph.ErrLocked, every
// heldPoll for holderWait at most: a store that another process holds
// without serving a session (an import, another command line) is waited
// for a little, and so is one whose session is still starting (a command
// line that answered alone with LSPGRAPH_SERVE=auto has just started
// one), which try then finds serving. The last error, if any, says what to
// do.
func whileHeld(ctx context.Context, try func() error) error {
	deadline := time.Now().Add(holderWait)
	for {
		err := try()
		if !errors.Is(err, graph.ErrLocked) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w; it serves no session to ask through: wait for it to finish, or pass another --store", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(heldPoll):
		}
	}
}

// heldPoll is how often whileHeld tries again: a session starting serves
// about 100 ms after it took the store.
const heldPoll = 25 * time.Millisecond
