package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/lspgraph/lspgraph/contextpack"
	"github.com/lspgraph/lspgraph/graph"
	"github.com/lspgraph/lspgraph/impact"
	"github.com/lspgraph/lspgraph/internal/gitcmd"
	"github.com/lspgraph/lspgraph/internal/lspwire"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"github.com/lspgraph/lspgraph/lspproxy"
	"github.com/lspgraph/lspgraph/ranking"
	"github.com/lspgraph/lspgraph/scope"
)

// The commands a session answers. Editors send them as
// workspace/executeCommand; the command line and attached proxies send them
// over the session's socket. lspgraph.status is answered by the proxy
// itself for editors (with the proxy's own state) and by the session for
// everyone else.
const (
	CommandStatus  = "lspgraph.status"
	CommandImpact  = "lspgraph.impact"
	CommandContext = "lspgraph.context"
	CommandChanges = "lspgraph.changes"
	CommandScope   = "lspgraph.scope"
	CommandIndex   = "lspgraph.index"
	// CommandIndexLSP crawls a language server the session starts into a
	// new base generation, as `lspgraph index --lsp` does.
	CommandIndexLSP = "lspgraph.indexLSP"
	CommandImport   = "lspgraph.scipImport"
)

// Call is one command invocation: its arguments, and who asks.
type Call struct {
	Args []json.RawMessage
	// Encoding counts the columns of editor positions in Args (the
	// requesting editor's negotiated encoding; zero means UTF-16).
	Encoding textpos.Encoding
	// Server is the requesting editor's live server; nil means the
	// session's own (the owning proxy's), if any.
	Server lspproxy.Requester
}

// command answers one command.
type command func(s *Session, ctx context.Context, c Call) (any, error)

// commandTable is every command a session answers, by name.
var commandTable = map[string]command{
	CommandStatus:   (*Session).statusCommand,
	CommandImpact:   (*Session).impactCommand,
	CommandContext:  (*Session).contextCommand,
	CommandChanges:  (*Session).changesCommand,
	CommandScope:    (*Session).scopeCommand,
	CommandIndex:    (*Session).indexCommand,
	CommandIndexLSP: (*Session).indexLSPCommand,
	CommandImport:   (*Session).importCommand,
	CommandSymbols:  (*Session).symbolsCommand,
	CommandSearch:   (*Session).searchCommand,
	CommandLenses:   (*Session).lensesCommand,
	CommandVerify:   (*Session).verifyCommand,
}

// CommandNames lists the commands a session answers, sorted.
func CommandNames() []string {
	names := make([]string, 0, len(commandTable))
	for n := range commandTable {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Command runs one command. Its result is JSON-encodable; errors say what
// to do. A command that panics answers with an error and leaves the
// session serving: the session may live in an editor's language server
// process, which one faulty answer to another client must not end.
func (s *Session) Command(ctx context.Context, name string, c Call) (any, error) {
	fn, ok := commandTable[name]
	if !ok {
		return nil, fmt.Errorf("unknown command %q (a session answers %s)", name, strings.Join(CommandNames(), ", "))
	}
	if c.Encoding == 0 {
		c.Encoding = textpos.UTF16
	}
	if !s.begin() {
		return nil, fmt.Errorf("%w before %s began (%w)", ErrSessionGone, name, errClosing)
	}
	defer s.fg.leave()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.life, cancel)()
	s.lastCommand.Store(time.Now().UnixNano())
	res, err := guarded(s.log, name, func() (any, error) { return fn(s, ctx, c) })
	if err != nil && s.life.Err() != nil {
		return nil, fmt.Errorf("%w before %s finished: %w", ErrSessionGone, name, err)
	}
	return res, err
}

// errClosing is the error of a command asked of a session that is closing
// (its owner exits, or it gives way to an editor's proxy): the caller asks
// again, of whoever serves the store then.
var errClosing = errors.New("the session is closing: ask again")

// cancelCommands cancels the commands under way and refuses new ones;
// the caller closes the session after. Close and Listener.Close do it
// first.
func (s *Session) cancelCommands() { s.endLife() }

// begin counts a command as under way, unless the session is closing.
func (s *Session) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.life.Err() != nil {
		return false
	}
	s.fg.enter()
	return true
}

// LastCommand is when the session last began a command (zero before the
// first).
func (s *Session) LastCommand() time.Time {
	if n := s.lastCommand.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// guarded runs a command, turning a panic into an error that says so and
// logging its stack.
func guarded(log *slog.Logger, name string, run func() (any, error)) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("command panicked", "command", name, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, fmt.Errorf("%s failed on an internal error (%v); the session goes on serving, and its log has the stack to report", name, r)
		}
	}()
	return run()
}

// oneArg returns the only argument of a call, or null when there is none.
func oneArg(c Call, want string) (json.RawMessage, error) {
	switch len(c.Args) {
	case 0:
		return json.RawMessage("null"), nil
	case 1:
		return c.Args[0], nil
	}
	return nil, fmt.Errorf("want one argument (%s), got %d", want, len(c.Args))
}

// ImpactRequest is the object form of lspgraph.impact's argument: a target
// (a string, or an editor position) and the options of `lspgraph impact`.
// A bare string argument is a Target with the default options.
type ImpactRequest struct {
	// Target is a name, FILE:LINE:COL (1-based, column in bytes; FILE
	// absolute or relative to the root) or a symbol string.
	Target string `json:"target,omitempty"`
	// TextDocument and Position name the target as an editor does
	// (0-based, columns in the requesting editor's encoding).
	TextDocument *struct {
		URI string `json:"uri"`
	} `json:"textDocument,omitempty"`
	Position *lspwire.Position `json:"position,omitempty"`
	// Verify checks d=1 against the live server (default true).
	Verify *bool `json:"verify,omitempty"`
	// Direction is up (who depends on the target; default) or down.
	Direction     string   `json:"direction,omitempty"`
	Depth         int      `json:"depth,omitempty"`
	MinConfidence *float64 `json:"minConfidence,omitempty"`
	Kinds         []string `json:"kinds,omitempty"`
	NoTests       bool     `json:"noTests,omitempty"`
	Limit         int      `json:"limit,omitempty"`
	// MaxDependents bounds the walk (impact.Options.MaxDependents); nil
	// means impact.DefaultMaxDependents, 0 no bound.
	MaxDependents *int `json:"maxDependents,omitempty"`
}

// knownKinds are the edge kinds an impact request may follow.
var knownKinds = []graph.EdgeKind{graph.EdgeReferences, graph.EdgeCalls, graph.EdgeImplements,
	graph.EdgeTypeOf, graph.EdgeContains, graph.EdgeImports, graph.EdgeTypeDef}

// Options turns the request into impact options; the error says which
// field is wrong.
func (q ImpactRequest) Options() (impact.Options, error) {
	o := impact.DefaultOptions()
	switch q.Direction {
	case "", "up", "upstream":
	case "down", "downstream":
		o.Direction = graph.Downstream
	default:
		return o, fmt.Errorf("direction must be up or down, not %q", q.Direction)
	}
	if q.Depth < 0 {
		return o, fmt.Errorf("depth must be at least 1")
	}
	if q.Depth > 0 {
		o.MaxDepth = q.Depth
	}
	if q.MinConfidence != nil {
		if *q.MinConfidence < 0 || *q.MinConfidence > 1 {
			return o, fmt.Errorf("min-confidence must be within [0, 1]")
		}
		o.MinConfidence = *q.MinConfidence
	}
	if q.Limit < 0 {
		return o, fmt.Errorf("limit must not be negative")
	}
	o.IncludeTests, o.LimitPerDepth = !q.NoTests, q.Limit
	if q.MaxDependents != nil {
		if *q.MaxDependents < 0 {
			return o, fmt.Errorf("maxDependents must not be negative")
		}
		o.MaxDependents = *q.MaxDependents
	}
	if q.Kinds != nil {
		o.Kinds = nil
		for _, k := range q.Kinds {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			if !slices.Contains(knownKinds, graph.EdgeKind(k)) {
				return o, fmt.Errorf("unknown edge kind %q (known: references, calls, implements, type-of, contains, imports, type-definition)", k)
			}
			o.Kinds = append(o.Kinds, graph.EdgeKind(k))
		}
		if len(o.Kinds) == 0 {
			return o, fmt.Errorf("kinds names no edge kind")
		}
	}
	return o, nil
}

// decodeImpactRequest reads lspgraph.impact's argument: a target string,
// an editor position or an ImpactRequest.
func decodeImpactRequest(arg json.RawMessage) (ImpactRequest, error) {
	var q ImpactRequest
	var str string
	if json.Unmarshal(arg, &str) == nil {
		q.Target = str
		return q, nil
	}
	if err := json.Unmarshal(arg, &q); err != nil {
		return q, fmt.Errorf("argument %.200s is neither a target string nor {textDocument, position} nor {target, ...}: %w", arg, err)
	}
	if q.Target == "" && (q.Position == nil || q.TextDocument == nil || q.TextDocument.URI == "") {
		return q, fmt.Errorf("argument %.200s is neither a target string nor {textDocument, position} nor {target, ...}", arg)
	}
	return q, nil
}

// targetSpec turns a request's target into a resolve spec: strings pass
// through; an editor position becomes ABSPATH:LINE:COL (1-based, UTF-8
// bytes) converted from enc against the text the editor shows (its unsaved
// buffer, else the file). A position outside the root is refused before
// anything is read.
func (s *Session) targetSpec(q ImpactRequest, enc textpos.Encoding) (string, error) {
	if q.Target != "" {
		return q.Target, nil
	}
	path, ok := lspwire.URIPath(q.TextDocument.URI)
	if !ok || path == "" {
		return "", fmt.Errorf("%q is not a file URI", q.TextDocument.URI)
	}
	text, err := s.readWorkspaceFile(path)
	if err != nil {
		return "", err
	}
	pos, err := textpos.NewMapper(text).FromColumn(q.Position.Line, q.Position.Character, enc)
	if err != nil {
		return "", fmt.Errorf("position in %s: %w", path, err)
	}
	return path + ":" + pos.String(), nil
}

// impactCommand answers lspgraph.impact. Before answering, the d=1 set
// (also an empty one) is checked against the live server, bounded in time
// (impact.Options.VerifyTimeout; on timeout the answer says so and its d=1
// is unverified, as it is while a server that answers from a syntax-only
// view still loads); what the server knows and the graph lacks is then
// written into the live layer. "verify": false skips the check.
func (s *Session) impactCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, "a target or an editor position")
	if err != nil {
		return nil, err
	}
	q, err := decodeImpactRequest(arg)
	if err != nil {
		return nil, err
	}
	o, err := q.Options()
	if err != nil {
		return nil, err
	}
	spec, err := s.targetSpec(q, c.Encoding)
	if err != nil {
		return nil, err
	}
	r, target, w, err := s.query(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var rec *recordingRequester
	if q.Verify == nil || *q.Verify {
		o.Verify, rec = s.verifier(c.Server, c.Encoding)
	}
	// Without a live server to ask, the same state gives the same answer.
	// With no editor buffers open, the answer holds for any process that
	// sees the same store and work tree: it may be kept on disk, and its
	// state leaves the buffers out.
	durable := s.buffers.none()
	bufferVersion := uint64(0)
	if !durable {
		bufferVersion = s.buffers.currentVersion()
	}
	key := impactCacheKey(c, target.ID)
	state, cacheable := cacheState(r.Version(), bufferVersion, w)
	cacheable = cacheable && rec == nil
	if cacheable {
		if raw, ok := s.cache.get(key, state, durable); ok {
			return raw, nil
		}
	}
	fb, err := s.freshness(ctx, r, w)
	if err != nil {
		return nil, err
	}
	o.Freshness = &fb
	a, err := impact.Compute(ctx, r, target, o)
	if err != nil {
		return nil, err
	}
	if rec != nil && len(a.LiveOnly) > 0 {
		s.learn(ctx, rec.answered())
	}
	if !cacheable {
		return a, nil
	}
	// Compact: indenting a large answer costs four times the encoding and
	// half as many bytes again for every reader to scan (the MCP server
	// decodes it whole); the command line indents what it prints.
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("encoding the answer: %w", err)
	}
	s.cache.put(key, state, raw, durable)
	return json.RawMessage(raw), nil
}

// contextCommand answers lspgraph.context with contextpack.Handle: the
// arguments as given (a target string, or contextpack.Request), positions
// in the requesting editor's encoding, and the unsaved buffers as the
// source of snippets and positions.
func (s *Session) contextCommand(ctx context.Context, c Call) (any, error) {
	arg, err := oneArg(c, "{symbol | textDocument+position, budget, scope}")
	if err != nil {
		return nil, err
	}
	var str string
	if json.Unmarshal(arg, &str) == nil {
		arg, _ = json.Marshal(contextpack.Request{Symbol: str})
	}
	var req contextpack.Request
	if err := json.Unmarshal(arg, &req); err == nil && req.TextDocument != nil {
		// Refuse a document outside the root before anything is read.
		if p, ok := lspwire.URIPath(req.TextDocument.URI); !ok {
			return nil, fmt.Errorf("%q is not a file URI", req.TextDocument.URI)
		} else if _, in := s.buffers.relPath(p); !in {
			return nil, fmt.Errorf("%s is outside the workspace root %s", p, s.root)
		}
	}
	w := s.sync(ctx)
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// The freshness block is part of what the budget counts.
	fb, err := s.freshness(ctx, r, w)
	if err != nil {
		return nil, err
	}
	var ans *contextpack.Answer
	err = s.scopes.with(ctx, s.root, r, w, func(a *scope.Analysis) error {
		ans, err = contextpack.Handle(ctx, contextpack.Env{Reader: r, Root: s.root, Overlay: s.buffers.get, Texts: &s.texts, Reads: &s.reads, Encoding: c.Encoding,
			Freshness: &fb, History: s.historyAt, Analysis: a}, arg)
		return err
	})
	return ans, err
}

// historyAt is the history reachable from rev for context packs; a root
// outside any git work tree has none.
func (s *Session) historyAt(ctx context.Context, rev string) (ranking.History, error) {
	if _, ok := gitcmd.TopLevel(s.root); !ok {
		if rev != "" {
			return nil, fmt.Errorf("--history-rev %s: %s is not in a git work tree", rev, s.root)
		}
		return nil, nil
	}
	return s.history.get(ctx, s.root, rev)
}
