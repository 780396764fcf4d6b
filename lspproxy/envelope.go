package lspproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// kind classifies a JSON-RPC message by the members its envelope has.
type kind uint8

const (
	kindCall         kind = iota + 1 // method and id
	kindNotification                 // method, no id
	kindResponse                     // id (possibly null), no method
)

// envelope is what routing needs from a message: its kind, method and id,
// and where params, result and error lie in the body. Slices point into the
// body; nothing else is decoded.
type envelope struct {
	kind   kind
	method string
	// id is the raw id token (`7`, `"abc"`, `null`); nil when absent.
	id     []byte
	params []byte
	result []byte
	err    []byte
}

// idKey returns the key under which a message's id is paired with its
// response: the raw token, so numeric ids stay numbers and string ids strings.
func (e *envelope) idKey() string { return string(e.id) }

var errNotObject = errors.New("message is not a JSON object")

// scanEnvelope walks the top level of a JSON-RPC message. Member values are
// skipped by a structural scan (strings, nesting, literals) rather than fully
// decoded, so the cost is one pass over the bytes with no allocation beyond
// the method name.
func scanEnvelope(b []byte) (envelope, error) {
	es := startEnvelope(b)
	return es.finish()
}

// envelopeScan reads a message's envelope a member at a time, so that a
// router can stop once it knows what it needs (see [envelopeScan.head]) and
// read the rest later ([envelopeScan.finish]).
type envelopeScan struct {
	s    scanner
	e    envelope
	err  error
	done bool // the object's closing brace was read, or err set
}

// startEnvelope reads b's opening brace.
func startEnvelope(b []byte) envelopeScan {
	es := envelopeScan{s: scanner{b: b}}
	es.s.ws()
	if !es.s.eat('{') {
		es.err, es.done = errNotObject, true
		return es
	}
	es.s.ws()
	es.done = es.s.eat('}')
	return es
}

// head reads members until the message's method and id are both known or
// none is left.
func (es *envelopeScan) head() {
	for !es.done && (es.e.method == "" || es.e.id == nil) {
		es.member()
	}
}

// requestHead is how a request begins as vscode-jsonrpc (VS Code's
// client, and the servers and clients built on it) and Emacs's jsonrpc.el
// (eglot) write one: the version, the id, then the method. Neovim's
// client writes the version last (idHead, as Neovim 0.7 does).
const (
	requestHead = `{"jsonrpc":"2.0","id":`
	idHead      = `{"id":`
)

// fastHead reads the id and method of a request whose body begins
// requestHead or idHead, the id (a number in digits or a string without escapes),
// `,"method":"`, a method commonMethod knows and a closing quote, followed
// by a comma or the closing brace; es is then where head leaves it, with
// the same id and method, and fastHead reports true. Otherwise es is left
// as it was. Reading a head so takes one comparison of the bytes and a
// search for two quotes instead of the scanner's walk over three members.
func (es *envelopeScan) fastHead(b []byte) bool {
	var i int
	switch {
	case len(b) >= len(requestHead) && string(b[:len(requestHead)]) == requestHead:
		i = len(requestHead)
	case len(b) >= len(idHead) && string(b[:len(idHead)]) == idHead:
		i = len(idHead)
	default:
		return false
	}
	start := i
	switch {
	case i < len(b) && b[i] == '"':
		j := bytes.IndexByte(b[i+1:], '"')
		if j < 0 || bytes.IndexByte(b[i+1:i+1+j], '\\') >= 0 {
			return false
		}
		i += j + 2
	default:
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	id := b[start:i]
	const methodKey = `,"method":"`
	if len(b)-i < len(methodKey) || string(b[i:i+len(methodKey)]) != methodKey {
		return false
	}
	i += len(methodKey)
	j := bytes.IndexByte(b[i:], '"')
	if j < 0 || i+j+1 >= len(b) {
		return false
	}
	method := commonMethod(b[i : i+j])
	i += j + 1
	if method == "" || b[i] != ',' && b[i] != '}' {
		return false
	}
	es.e.id, es.e.method = id, method
	es.s.i = i + 1
	es.done = b[i] == '}'
	return true
}

// member reads one member, and the comma or closing brace after it.
func (es *envelopeScan) member() {
	if err := es.readMember(); err != nil {
		es.err, es.done = err, true
	}
}

func (es *envelopeScan) readMember() error {
	s, e := &es.s, &es.e
	key, err := s.memberKey()
	if err != nil {
		return err
	}
	start := s.i
	if err := s.value(); err != nil {
		return err
	}
	v := s.b[start:s.i]
	switch string(key) {
	case "id":
		e.id = v
	case "method":
		if v[0] != '"' {
			return s.errorf("method is not a string")
		}
		if m := commonMethod(v[1 : len(v)-1]); m != "" {
			e.method = m
		} else if e.method, err = unquote(v); err != nil {
			return fmt.Errorf("method: %w", err)
		}
	case "params":
		e.params = v
	case "result":
		e.result = v
	case "error":
		e.err = v
	}
	s.ws()
	if s.eat(',') {
		return nil
	}
	if s.eat('}') {
		es.done = true
		return nil
	}
	return s.errorf("expected ',' or '}'")
}

// finish reads the members left and classifies the message.
func (es *envelopeScan) finish() (envelope, error) {
	for !es.done {
		es.member()
	}
	e, s := es.e, &es.s
	if es.err != nil {
		return e, es.err
	}
	s.ws()
	if s.i != len(s.b) {
		return e, s.errorf("trailing data after the message")
	}
	switch {
	case e.method != "" && e.id != nil:
		e.kind = kindCall
	case e.method != "":
		e.kind = kindNotification
	case e.id != nil:
		// A response should carry result or error; one with neither is
		// still routed by its id rather than dropped.
		e.kind = kindResponse
	default:
		return e, errors.New("neither a request (method) nor a response (id with result or error)")
	}
	if e.id != nil && e.kind != kindResponse && !validID(e.id) {
		return e, fmt.Errorf("id %s is neither a number nor a string", truncate(e.id))
	}
	return e, nil
}

// commonMethod returns the method named by the raw (unquoted, unescaped)
// bytes of a method string when it is one the proxy routes by or sees
// often, without allocating; "" otherwise.
func commonMethod(raw []byte) string {
	switch string(raw) {
	case "initialize":
		return "initialize"
	case "initialized":
		return "initialized"
	case "shutdown":
		return "shutdown"
	case "exit":
		return "exit"
	case "$/cancelRequest":
		return "$/cancelRequest"
	case "$/progress":
		return "$/progress"
	case "textDocument/didOpen":
		return "textDocument/didOpen"
	case "textDocument/didChange":
		return "textDocument/didChange"
	case "textDocument/didSave":
		return "textDocument/didSave"
	case "textDocument/didClose":
		return "textDocument/didClose"
	case "textDocument/publishDiagnostics":
		return "textDocument/publishDiagnostics"
	case "textDocument/definition":
		return "textDocument/definition"
	case "textDocument/declaration":
		return "textDocument/declaration"
	case "textDocument/typeDefinition":
		return "textDocument/typeDefinition"
	case "textDocument/implementation":
		return "textDocument/implementation"
	case "textDocument/references":
		return "textDocument/references"
	case "textDocument/documentSymbol":
		return "textDocument/documentSymbol"
	case "textDocument/hover":
		return "textDocument/hover"
	case "textDocument/completion":
		return "textDocument/completion"
	case "textDocument/signatureHelp":
		return "textDocument/signatureHelp"
	case "textDocument/documentHighlight":
		return "textDocument/documentHighlight"
	case "textDocument/codeAction":
		return "textDocument/codeAction"
	case "textDocument/codeLens":
		return "textDocument/codeLens"
	case "codeLens/resolve":
		return "codeLens/resolve"
	case "textDocument/semanticTokens/full":
		return "textDocument/semanticTokens/full"
	case "textDocument/inlayHint":
		return "textDocument/inlayHint"
	case "textDocument/prepareCallHierarchy":
		return "textDocument/prepareCallHierarchy"
	case "callHierarchy/incomingCalls":
		return "callHierarchy/incomingCalls"
	case "callHierarchy/outgoingCalls":
		return "callHierarchy/outgoingCalls"
	case "workspace/symbol":
		return "workspace/symbol"
	case "workspace/executeCommand":
		return "workspace/executeCommand"
	case "window/workDoneProgress/create":
		return "window/workDoneProgress/create"
	case "window/logMessage":
		return "window/logMessage"
	}
	return ""
}

// textDocumentURI returns params.textDocument.uri (params being a text
// document request's or notification's), false when there is none or it
// is not a non-empty string. It reads only as far as the uri: in didOpen
// and in a didChange that sends the whole text, the text comes after it,
// and decoding the params whole cost the editor's next message a wait of
// tens of milliseconds on a large document.
func textDocumentURI(params []byte) (string, bool) {
	doc := memberValue(params, "textDocument")
	uri := memberValue(doc, "uri")
	if len(uri) == 0 || uri[0] != '"' {
		return "", false
	}
	s := scanner{b: uri}
	if _, err := s.str(); err != nil {
		return "", false
	}
	v, err := unquote(uri[:s.i])
	if err != nil || v == "" {
		return "", false
	}
	return v, true
}

// memberValue returns obj from the value of its first member named key
// on (that value and whatever follows it), having scanned only the
// members before it; nil when obj is not an object or has no such member.
// Names are matched exactly, as JSON-RPC's are.
func memberValue(obj []byte, key string) []byte {
	s := scanner{b: obj}
	s.ws()
	if !s.eat('{') {
		return nil
	}
	s.ws()
	if s.eat('}') {
		return nil
	}
	for {
		k, err := s.memberKey()
		if err != nil {
			return nil
		}
		if string(k) == key {
			return obj[s.i:]
		}
		if s.value() != nil {
			return nil
		}
		s.ws()
		if !s.eat(',') {
			return nil
		}
	}
}

func validID(id []byte) bool {
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("byte %d: %s", s.i, fmt.Sprintf(format, args...))
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// memberKey reads a member's name and the colon after it, leaving s at
// its value.
func (s *scanner) memberKey() ([]byte, error) {
	s.ws()
	key, err := s.key()
	if err != nil {
		return nil, err
	}
	s.ws()
	if !s.eat(':') {
		return nil, s.errorf("expected ':' after member %q", key)
	}
	s.ws()
	return key, nil
}

// key reads a member name. Names without escapes are returned as a slice
// of the message, so matching them allocates nothing.
func (s *scanner) key() ([]byte, error) {
	start := s.i
	escaped, err := s.str()
	if err != nil {
		return nil, err
	}
	raw := s.b[start:s.i]
	if !escaped {
		return raw[1 : len(raw)-1], nil
	}
	k, err := unquote(raw)
	return []byte(k), err
}

// unquote decodes a JSON string token as encoding/json does (invalid UTF-8
// becomes U+FFFD); the common case, plain UTF-8 without escapes, costs one
// allocation.
func unquote(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	return v, nil
}

// str skips a string starting at s.i and reports whether it had escapes.
// Control characters inside strings are not checked: the proxy delimits
// values, it does not validate them.
//
// Most strings of a message are short (member names, kinds): their first
// bytes are looked at one by one, which costs less than the calls to
// bytes.IndexByte that find the end of a long one (a URI, a document's
// text) faster.
func (s *scanner) str() (bool, error) {
	if !s.eat('"') {
		return false, s.errorf("expected a string")
	}
	b := s.b
	i := s.i
	for end := min(i+shortString, len(b)); i < end; i++ {
		switch b[i] {
		case '"':
			s.i = i + 1
			return false, nil
		case '\\':
			return s.longStr(i)
		}
	}
	return s.longStr(i)
}

// shortString is how many bytes of a string str looks at one by one.
const shortString = 16

// longStr finishes a string whose bytes before i hold no quote or escape,
// and reports whether it had escapes. It looks at each byte at most twice:
// the next quote, once found, stands until an escape is found to reach
// past it (a document's text in didOpen is megabytes with an escape on
// every line, and searching for the quote again after each one cost a
// megabyte's text 130 ms).
func (s *scanner) longStr(i int) (bool, error) {
	b := s.b
	escaped := false
	quote := -1 // the first quote at or after i, once found
	for {
		if quote < i {
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				s.i = len(b)
				return false, s.errorf("unterminated string")
			}
			quote = i + j
		}
		k := bytes.IndexByte(b[i:quote], '\\')
		if k < 0 {
			s.i = quote + 1
			return escaped, nil
		}
		// Skip the escape and the character it escapes (possibly a quote).
		escaped = true
		i += k + 2
		if i > len(b) {
			s.i = len(b)
			return false, s.errorf("unterminated string")
		}
	}
}

// value skips one JSON value: strings and nesting are tracked exactly;
// numbers and literals are taken up to the next delimiter and checked by
// their first byte only.
func (s *scanner) value() error {
	if s.i >= len(s.b) {
		return s.errorf("unexpected end of message")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, err := s.str()
		return err
	case c == '{' || c == '[':
		return s.nested()
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		start := s.i
		for s.i < len(s.b) && !isDelim(s.b[s.i]) {
			s.i++
		}
		if c == 't' || c == 'f' || c == 'n' {
			switch string(s.b[start:s.i]) {
			case "true", "false", "null":
			default:
				return s.errorf("invalid literal %q", truncate(s.b[start:s.i]))
			}
		}
		return nil
	default:
		return s.errorf("unexpected character %q", c)
	}
}

// structural marks the bytes nested stops at: quotes and brackets.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// nested skips an object or array, checking that opening and closing
// brackets balance in number (strings are skipped exactly, so brackets
// inside them do not count).
func (s *scanner) nested() error {
	depth := 0
	b := s.b
	for i := s.i; i < len(b); i++ {
		if !structural[b[i]] {
			continue
		}
		switch b[i] {
		case '"':
			s.i = i
			if _, err := s.str(); err != nil {
				return err
			}
			i = s.i - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i = i + 1
				return nil
			}
		}
	}
	s.i = len(b)
	return s.errorf("unexpected end of message inside an object or array")
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// answerID returns the id of a message that is plainly a response: its
// members before "result" or "error" are read as scanEnvelope reads them,
// none of them is "method", and the id is one of them or the message's last
// member. The result itself is not read: an id after it (gopls writes its
// answers so) is read backwards from the end of the message, where, as the
// last member of the object, it is a scalar after a name — as exact a read
// as the forward one. ok is false for anything else; scanEnvelope decides
// those. (A message with both a method and a result is no JSON-RPC
// message: one whose method comes after its result is taken for the
// answer it claims to be.)
//
// The server loop routes an answer by this id and forwards it without
// reading its result; only an observed answer's is read, after forwarding.
func answerID(b []byte) (id []byte, ok bool) {
	if id, ok, known := answerIDFast(b); known {
		return id, ok
	}
	return scanAnswerID(b)
}

// answerHead is how gopls begins an answer, its id after the result.
const answerHead = `{"jsonrpc":"2.0","result":`

// answerIDFast is answerID for an answer that begins answerHead, or
// requestHead, an id in digits and `,"result":` (as vscode-jsonrpc
// writes answers): known reports whether b is one, and then id and ok
// are what the scan in scanAnswerID finds, without it.
func answerIDFast(b []byte) (id []byte, ok, known bool) {
	if len(b) >= len(answerHead) && string(b[:len(answerHead)]) == answerHead {
		id, ok = lastMemberID(b, len(answerHead))
		return id, ok, true
	}
	if len(b) < len(requestHead) || string(b[:len(requestHead)]) != requestHead {
		return nil, false, false
	}
	i := len(requestHead)
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	const resultKey = `,"result":`
	if i == len(requestHead) || len(b)-i < len(resultKey) || string(b[i:i+len(resultKey)]) != resultKey {
		return nil, false, false
	}
	return b[len(requestHead):i], true, true
}

// scanAnswerID is answerID read by the scanner.
func scanAnswerID(b []byte) (id []byte, ok bool) {
	s := scanner{b: b}
	s.ws()
	if !s.eat('{') {
		return nil, false
	}
	for {
		key, err := s.memberKey()
		if err != nil {
			return nil, false
		}
		switch string(key) {
		case "method":
			return nil, false
		case "result", "error":
			if id != nil {
				return id, true
			}
			return lastMemberID(b, s.i)
		}
		start := s.i
		if s.value() != nil {
			return nil, false
		}
		if string(key) == "id" {
			id = b[start:s.i]
			if !validID(id) {
				return nil, false
			}
		}
		s.ws()
		if !s.eat(',') {
			return nil, false
		}
	}
}

// lastMemberID reads an object's last member backwards from the end of b
// and returns its value when the member is "id" with a number or string
// value that follows a comma at or after from (where the value before it
// starts).
func lastMemberID(b []byte, from int) ([]byte, bool) {
	i := trimWSLeft(b, len(b))
	if i == 0 || b[i-1] != '}' {
		return nil, false
	}
	end := trimWSLeft(b, i-1)
	start := end
	if end > 0 && b[end-1] == '"' {
		// The opening quote is the first one before the closing quote
		// that no odd run of backslashes escapes.
		start = -1
		for j := end - 2; j >= from; j-- {
			if b[j] == '"' && !escapedAt(b, j) {
				start = j
				break
			}
		}
		if start < 0 {
			return nil, false
		}
	} else {
		for start > from && isNumberByte(b[start-1]) {
			start--
		}
	}
	if start == end || !validID(b[start:end]) {
		return nil, false
	}
	k := trimWSLeft(b, start)
	if k == 0 || b[k-1] != ':' {
		return nil, false
	}
	k = trimWSLeft(b, k-1)
	const name = `"id"`
	if k-len(name) < from || string(b[k-len(name):k]) != name || escapedAt(b, k-len(name)) {
		return nil, false
	}
	k = trimWSLeft(b, k-len(name))
	if k-1 < from || b[k-1] != ',' {
		return nil, false
	}
	return b[start:end], true
}

// escapedAt reports whether b[j] follows an odd run of backslashes.
func escapedAt(b []byte, j int) bool {
	n := 0
	for j--; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// trimWSLeft returns i moved left past JSON whitespace.
func trimWSLeft(b []byte, i int) int {
	for i > 0 {
		switch b[i-1] {
		case ' ', '\t', '\n', '\r':
			i--
		default:
			return i
		}
	}
	return i
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
