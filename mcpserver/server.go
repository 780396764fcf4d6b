package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Asker runs a workspace command (workspace.Command*) for the workspace at
// root with one argument, decoding the answer into out.
type Asker interface {
	Ask(ctx context.Context, root, command string, arg any, out any) error
}

// Token caps of an answer.
const (
	DefaultMaxTokens = 8000
	HardMaxTokens    = 20000
	// MinMaxTokens is the smallest cap: the summary and the freshness
	// block of an answer must fit.
	MinMaxTokens = 1000
)

// Options configure a server.
type Options struct {
	// Root is the workspace a call without a root argument answers for.
	Root string
	// MaxTokens caps every answer (estimated as ceil(bytes/4) of its text
	// plus its structured content); 0 means DefaultMaxTokens, and it is
	// held within [MinMaxTokens, HardMaxTokens].
	MaxTokens int
	// Version is the server version announced at initialize.
	Version string
	// IndexWhenEmpty builds the syntax index (lspgraph.index) of a
	// workspace whose store has no base layer, in the background from its
	// first tool call; until it is done the tools answer partial.
	IndexWhenEmpty bool
}

// server answers the tools.
type server struct {
	ask   Asker
	o     Options
	index indexer
}

// New returns an MCP server whose tools answer through ask.
func New(ask Asker, o Options) *mcp.Server {
	if o.MaxTokens == 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	o.MaxTokens = min(max(o.MaxTokens, MinMaxTokens), HardMaxTokens)
	if o.Version == "" {
		o.Version = "devel"
	}
	s := &server{ask: ask, o: o, index: indexer{runs: map[string]*indexRun{}}}
	ms := mcp.NewServer(&mcp.Implementation{Name: "lspgraph", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions,
	})
	s.register(ms)
	return ms
}

const instructions = `lspgraph answers questions about this code base from a code graph (SCIP indexes, the editor's language server, syntax) that is kept fresh with the work tree and unsaved editor buffers.
Use search to find the files about some words when you do not know a name; symbols to find the exact target of a name; impact before changing a symbol (what breaks, by depth, tests, risk); context to read what matters for working on a symbol within a token budget; changes to see what the current diff touches and its combined impact; status to see which index answers and how fresh it is.
Every answer ends with its freshness: when it says partial, the answer may be incomplete.`

// invalidParams is a JSON-RPC invalid-params error.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// toolError is an answer that failed for the model to read (IsError).
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

// shaped is a tool's answer before the cap: its structured content, the
// markdown rendering of it, and the next trimming step.
type shaped interface {
	markdown() string
	// trim leaves out one more piece of detail, recording what; false
	// when nothing is left to leave out.
	trim() bool
}

// handlerFor is a tool's typed handler.
type handlerFor[In any] func(s *server, ctx context.Context, in In) (shaped, error)

// addTool adds a tool whose input schema is In's (adjusted by tweak) and
// whose output schema is Out's. Arguments are validated against the
// schema before the handler runs; a violation is a JSON-RPC
// invalid-params error.
func addTool[In any, Out shaped](ms *mcp.Server, s *server, t *mcp.Tool, tweak func(*jsonschema.Schema), h handlerFor[In]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err)
	}
	if tweak != nil {
		tweak(in)
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Errorf("tool %s: input schema: %w", t.Name, err))
	}
	// The answers are pointers; their schema is the struct's (an object,
	// never null).
	ot := reflect.TypeFor[Out]()
	if ot.Kind() == reflect.Pointer {
		ot = ot.Elem()
	}
	out, err := jsonschema.ForType(ot, nil)
	if err != nil {
		panic(err)
	}
	t.InputSchema, t.OutputSchema = in, out
	ms.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, invalidParams("%s: the arguments are not a JSON object: %v", t.Name, err)
			}
		}
		if err := resolved.Validate(args); err != nil {
			return nil, invalidParams("%s: invalid arguments: %v", t.Name, err)
		}
		var v In
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &v); err != nil {
				return nil, invalidParams("%s: invalid arguments: %v", t.Name, err)
			}
		}
		if s.o.IndexWhenEmpty {
			r, _ := args["root"].(string)
			if root, err := s.root(r); err == nil {
				reason, err := s.index.pending(ctx, s.ask, root)
				if err != nil {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: capText(err.Error(), s.o.MaxTokens)}}}, nil
				}
				if reason != "" {
					raw, err := json.Marshal(pendingOut(ot, reason))
					if err != nil {
						panic(err) // our own types always encode
					}
					text := fmt.Sprintf("**Partial answer**: %s.\n\n**Freshness:** base none yet. **Partial**.\n", reason)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(raw)}, nil
				}
			}
		}
		a, err := h(s, ctx, v)
		if err != nil {
			var je *jsonrpc.Error
			if errors.As(err, &je) {
				return nil, je
			}
			res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: capText(err.Error(), s.o.MaxTokens)}}}
			return res, nil
		}
		text, structured := s.fit(a)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}, nil
	})
}

// tokens estimates the tokens of an answer: ceil(bytes/4).
func tokens(n int) int { return (n + 3) / 4 }

// fit renders a, trimming it until its text and structured content fit
// the cap together.
func (s *server) fit(a shaped) (string, json.RawMessage) {
	for {
		text := a.markdown()
		raw, err := json.Marshal(a)
		if err != nil {
			panic(err) // our own types always encode
		}
		if tokens(len(text)+len(raw)) <= s.o.MaxTokens || !a.trim() {
			return text, raw
		}
	}
}

// capText cuts an error message to the cap.
func capText(msg string, maxTokens int) string {
	if limit := maxTokens * 4; len(msg) > limit {
		cut := "\n… (message cut to the size cap)"
		return msg[:limit-len(cut)] + cut
	}
	return msg
}

// root returns the workspace root of a call: the argument (absolute, a
// directory), else the server's.
func (s *server) root(arg string) (string, error) {
	if arg == "" {
		if s.o.Root == "" {
			return "", invalidParams("no workspace root: pass root (an absolute path)")
		}
		return s.o.Root, nil
	}
	if !filepath.IsAbs(arg) {
		return "", invalidParams("root must be an absolute path, not %q", arg)
	}
	if fi, err := os.Stat(arg); err != nil || !fi.IsDir() {
		return "", invalidParams("root %s is not a directory", arg)
	}
	return filepath.Clean(arg), nil
}

// plural is "1 dependent", "2 dependents".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// joinNonEmpty joins the non-empty strings with sep.
func joinNonEmpty(sep string, ss ...string) string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, sep)
}
