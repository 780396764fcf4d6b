package contextpack

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
)

// Pricing an item counts the tokens of its rendering, whose text (a body,
// a doc, a signature) is most of it; in JSON a text is the same escaped
// string whatever item carries it. textCosts keeps what a text costs apart
// from its item, so that a text priced once (by another form or another
// pack) costs only its item's other fields again.
//
// The estimate ([Tokens]) counts runs of one kind of character, and only a
// run of whitespace looks past its end (at the next character), so a
// string splits exactly where a run ends: inside the item's JSON, the
// escaped text sits between two quotes, and its leading and trailing runs
// of punctuation join them. Hence, with esc = lead + core + trail (lead and
// trail its leading and trailing punctuation, core starting and ending
// with something else):
//
//	Tokens(P + esc + S) = Tokens(P + lead) + (Tokens(core + `"`) - 1) + Tokens(trail + S)
//
// for P ending and S starting with a quote: core's last run meets a quote
// there as in the whole, and that quote alone costs 1.
type textCost struct {
	lead, trail string
	core        int  // Tokens(core + `"`) - 1
	flat        bool // esc is all punctuation: price the item whole
}

// textCosts memoizes textCost per text, and where a body is cut to a cap
// (cutBody); safe for concurrent use.
type textCosts struct {
	mu    sync.Mutex
	m     map[string]textCost
	cuts  map[capped]bodyCut
	bytes int
}

// capped is a text cut to a cap.
type capped struct {
	text string
	cap  int
}

// maxCostedBytes bounds the texts a textCosts holds; past it, it starts over.
const maxCostedBytes = 32 << 20

func (c *textCosts) of(text string) textCost {
	return memoized(c, func() map[string]textCost { return c.m }, text, len(text), func() textCost { return costText(text) })
}

// cut is cutBody(text, cap), computed once.
func (c *textCosts) cut(text string, cap int) bodyCut {
	return memoized(c, func() map[capped]bodyCut { return c.cuts }, capped{text, cap}, len(text),
		func() bodyCut { return cutBody(text, cap) })
}

// memoized returns the value of k in a memo table of c (c.m or c.cuts, as
// table gives it under c.mu: room may replace it), computing it outside
// the lock when absent; k's text is n bytes.
func memoized[K comparable, V any](c *textCosts, table func() map[K]V, k K, n int, compute func() V) V {
	c.mu.Lock()
	v, ok := table()[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	c.mu.Lock()
	c.room(n)
	t := table()
	if _, ok := t[k]; !ok {
		c.bytes += n
	}
	t[k] = v
	c.mu.Unlock()
	return v
}

// room starts the memo over when n more bytes would pass its bound.
func (c *textCosts) room(n int) {
	if c.m == nil || c.bytes+n > maxCostedBytes {
		c.m, c.cuts, c.bytes = map[string]textCost{}, map[capped]bodyCut{}, 0
	}
}

// costText splits a text's JSON escape into its runs of punctuation at
// either end and the tokens between them.
func costText(text string) textCost {
	b, _ := json.Marshal(text)
	esc := string(b[1 : len(b)-1])
	i := 0
	for i < len(esc) && punct(esc[i]) {
		i++
	}
	if i == len(esc) {
		return textCost{flat: true}
	}
	j := len(esc)
	for punct(esc[j-1]) {
		j--
	}
	return textCost{lead: esc[:i], trail: esc[j:], core: Tokens(esc[i:j]+`"`) - 1}
}

// punct reports a byte of the estimate's punctuation runs.
func punct(c byte) bool { return c < 0x80 && !asciiLetter(c) && !digit(c) && !space(c) }

// textMarker stands for an item's text while the rest of it is rendered:
// a NUL, which no document path, symbol or reason holds, escaped.
const textMarker = "\x00"

// itemTokens is Tokens(j.item(it, "")), through costs for the text.
func (j jsonParts) itemTokens(it *Item, costs *textCosts) int {
	if costs == nil || it.Text == "" {
		return Tokens(j.item(it, ""))
	}
	tc := costs.of(it.Text)
	if tc.flat {
		return Tokens(j.item(it, ""))
	}
	q := *it
	q.Text = textMarker
	s := j.item(&q, "")
	open := `"text":"`
	if j.indent {
		open = `"text": "`
	}
	at := strings.Index(s, open+`\u0000"`)
	if at < 0 {
		return Tokens(j.item(it, ""))
	}
	pre, post := s[:at+len(open)], s[at+len(open)+len(`\u0000`):]
	return Tokens(pre+tc.lead) + tc.core + Tokens(tc.trail+post)
}

// itemHead prices the forms of one item in compact JSON: the fields before
// a form's own (role to score) are encoded and counted once per item, not
// once per form. They end with the score's digits, where no run of the
// estimate continues into the comma or brace that follows, so the count of
// the whole is the head's plus the rest's.
type itemHead struct {
	head   string // `{"role":…,"score":S`
	tokens int    // Tokens(head)
	ok     bool   // false: price each form whole (itemTokens)
}

func newItemHead(it Item) itemHead {
	it.Show, it.Start, it.Text, it.Note = "", 0, "", ""
	b, err := json.Marshal(&it)
	if err != nil || len(b) < 2 || b[len(b)-1] != '}' || !digit(b[len(b)-2]) {
		return itemHead{}
	}
	head := string(b[:len(b)-1])
	return itemHead{head: head, tokens: Tokens(head), ok: true}
}

// formTokens is jsonParts{}.itemTokens of it, whose fields before Show
// are h's.
func (h itemHead) formTokens(it *Item, costs *textCosts) int {
	if !h.ok {
		return jsonParts{}.itemTokens(it, costs)
	}
	var tc textCost
	if it.Text != "" {
		if tc = costs.of(it.Text); tc.flat {
			return jsonParts{}.itemTokens(it, costs)
		}
	}
	b := make([]byte, 0, 64+len(it.Note))
	if it.Show != "" {
		b = appendJSONString(append(b, `,"show":`...), it.Show)
	}
	if it.Start != 0 {
		b = strconv.AppendInt(append(b, `,"start":`...), int64(it.Start), 10)
	}
	n := h.tokens
	if it.Text != "" {
		b = append(b, `,"text":"`...)
		n += Tokens(string(b)+tc.lead) + tc.core
		b = append(b[:0], tc.trail...)
		b = append(b, '"')
	}
	if it.Note != "" {
		b = appendJSONString(append(b, `,"note":`...), it.Note)
	}
	b = append(b, "},"...)
	return n + Tokens(string(b))
}

// appendJSONString appends s as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
