package graph

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/lspgraph/lspgraph/internal/textpos"
	"io"
	"maps"
	"slices"
	"strings"
)

// Dump writes every key of the snapshot in printable form, one per line in
// key order, "key => value", for goldens: the meta records, the live layer,
// and every base generation present (normally only the current one).
// Symbol ids print as the strings their space's symid records give
// (those records sort before the indexes that use them).
func (r *Reader) Dump(w io.Writer) error {
	bw := bufio.NewWriter(w)
	names := map[spaceID]string{}
	name := func(space, id uint64) (string, bool) {
		s, ok := names[spaceID{space, id}]
		return s, ok
	}
	err := scanRange(context.Background(), r.kv(), nil, nil, func(k, v []byte) error {
		if d, ok := decodeKey(k); ok && d.kind == kindSymID {
			names[spaceID{d.space, d.syms[0]}] = string(v)
		}
		line := formatKeyWith(k, name)
		if val := formatValue(k, v, name); val != "" {
			line += " => " + val
		}
		_, err := fmt.Fprintln(bw, line)
		return err
	})
	if err != nil {
		return fmt.Errorf("graph: dumping: %w", err)
	}
	return bw.Flush()
}

// formatValue renders a value by its key's kind, fields as name=value,
// leaving out empty ones; name resolves symbol ids.
func formatValue(k, v []byte, name func(space, id uint64) (string, bool)) string {
	d, ok := decodeKey(k)
	if !ok {
		return fmt.Sprintf("%q", v)
	}
	var f fieldList
	switch d.kind {
	case kindSchema:
		n, _ := binary.Uvarint(v)
		f.add("version", n)
	case kindCurrent, kindAlloc:
		if len(v) == 8 {
			f.add("gen", binary.BigEndian.Uint64(v))
		}
	case kindVersion, kindBaseVersion:
		if len(v) == 8 {
			f.add("writes", binary.BigEndian.Uint64(v))
		}
	case kindChanges:
		layer, cleared, paths, err := decodeChanges(v)
		if err != nil {
			return err.Error()
		}
		f.add("layer", layer.String())
		if cleared {
			f.add("whole", "yes")
		}
		f.add("paths", strings.Join(paths, ","))
	case kindManifest:
		var m Manifest
		if err := json.Unmarshal(v, &m); err != nil {
			return err.Error()
		}
		formatManifest(&f, &m)
	case kindDoc:
		doc, err := decodeDocValue(d.fields[0], v)
		if err != nil {
			return err.Error()
		}
		f.add("lang", doc.Language, "pkg", doc.Package, "hash", doc.ContentHash, "digest", doc.Digest,
			"source", doc.Source, "flags", uint64(doc.Flags))
	case kindSym:
		s, err := decodeSymbolValue("", v)
		if err != nil {
			return err.Error()
		}
		formatSymbol(&f, &s)
	case kindDocSym:
		syms, err := decodeDocSymsValue(d.fields[0], v)
		if err != nil {
			return err.Error()
		}
		parts := make([]string, len(syms))
		for i := range syms {
			var sf fieldList
			formatSymbol(&sf, &syms[i])
			parts[i] = strings.TrimSpace(quoteIfNeeded(syms[i].ID) + " " + sf.String())
		}
		return strings.Join(parts, "; ")
	case kindDocOcc:
		occs, err := decodeDocOccsValue(d.fields[0], v, nil)
		if err != nil {
			return err.Error()
		}
		parts := make([]string, len(occs))
		for i, o := range occs {
			var of fieldList
			of.add("roles", formatRoles(o.Roles), "enclosing", o.Enclosing)
			parts[i] = fmt.Sprintf("%s %s %s", o.Range, quoteIfNeeded(o.Symbol), of)
		}
		return strings.Join(parts, "; ")
	case kindSymID:
		return quoteIfNeeded(string(v))
	case kindRef:
		var parts []string
		err := decodeRefsValue(v, func(rng textpos.Range, roles Role, enc uint64, hasEnc bool) bool {
			var of fieldList
			of.add("roles", formatRoles(roles))
			if hasEnc {
				of.add("enclosing", symName(name, d.space, enc))
			}
			parts = append(parts, rng.String()+" "+of.String())
			return true
		})
		if err != nil {
			return err.Error()
		}
		return strings.Join(parts, "; ")
	case kindDef:
		roles, enc, ok, err := decodeOccValue(v)
		if err != nil {
			return err.Error()
		}
		f.add("roles", formatRoles(roles))
		if ok {
			s, known := name(d.space, enc)
			if !known {
				s = formatSymID(enc)
			}
			f.add("enclosing", s)
		}
	case kindDocEdge:
		edges, err := decodeDocEdgesValue(d.fields[0], v)
		if err != nil {
			return err.Error()
		}
		parts := make([]string, len(edges))
		for i, e := range edges {
			var ef fieldList
			ef.add("conf", fmt.Sprintf("%.2f", e.Confidence), "source", e.Source, "reason", e.Reason, "count", uint64(e.Count))
			parts[i] = fmt.Sprintf("%s -%s-> %s %s", quoteIfNeeded(e.From), e.Kind, quoteIfNeeded(e.To), ef)
		}
		return strings.Join(parts, "; ")
	case kindDocTerms:
		ts, err := decodeDocTermsValue(d.fields[0], v)
		if err != nil {
			return err.Error()
		}
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = fmt.Sprintf("%s/%s×%d", t.Word, t.Field, t.Count)
		}
		return strings.Join(parts, " ")
	case kindTerm:
		p := Posting{Path: d.fields[1]}
		if err := decodeTermValue(&p, v); err != nil {
			return err.Error()
		}
		f.add("len", uint64(p.Length))
		for _, tf := range TermFields {
			if c := p.Count(tf); c > 0 {
				f.add(tf.String(), uint64(c))
			}
		}
	case kindOut, kindIn:
		arrow := "-%s-> %s"
		if d.kind == kindIn {
			arrow = "<-%s- %s"
		}
		var parts []string
		err := decodeEdgesValue(v, func(e *groupEdge) bool {
			var ef fieldList
			ef.add("conf", fmt.Sprintf("%.2f", e.confidence), "source", e.source, "reason", e.reason, "count", uint64(e.count))
			parts = append(parts, fmt.Sprintf(arrow, e.kind, quoteIfNeeded(symName(name, d.space, e.other)))+" "+ef.String())
			return true
		})
		if err != nil {
			return err.Error()
		}
		return strings.Join(parts, "; ")
	}
	return f.String()
}

// symName is the symbol id names in space, or the id itself when it names
// none.
func symName(name func(space, id uint64) (string, bool), space, id uint64) string {
	if s, ok := name(space, id); ok {
		return s
	}
	return formatSymID(id)
}

func formatSymbol(f *fieldList, s *Symbol) {
	f.add("name", s.DisplayName, "kind", s.Kind, "lang", s.Language, "pkg", s.Package,
		"sig", s.Signature, "doc", s.Doc)
	if s.External {
		f.add("external", "true")
	}
	if s.Def.Path != "" {
		f.add("def", s.Def.Path+"@"+s.Def.Range.String())
	}
	if s.DefExtent != (Symbol{}).DefExtent {
		f.add("extent", s.DefExtent.String())
	}
}

// formatManifest renders a manifest without its times, which goldens
// cannot hold.
func formatManifest(f *fieldList, m *Manifest) {
	f.add("gen", m.Generation, "state", string(m.State), "commit", m.Commit, "tool", m.Tool,
		"version", m.ToolVersion, "docs", uint64(m.Documents), "syms", uint64(m.Symbols),
		"occs", uint64(m.Occurrences), "edges", uint64(m.Edges))
	for _, k := range slices.Sorted(maps.Keys(m.Extra)) {
		f.add(k, uint64(m.Extra[k]))
	}
}

// fieldList accumulates name=value pairs, skipping zero values.
type fieldList []string

func (f *fieldList) add(kv ...any) {
	for i := 0; i+1 < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case string:
			if v != "" {
				*f = append(*f, fmt.Sprintf("%s=%s", kv[i], quoteIfNeeded(v)))
			}
		case uint64:
			if v != 0 {
				*f = append(*f, fmt.Sprintf("%s=%d", kv[i], v))
			}
		}
	}
}

func (f fieldList) String() string { return strings.Join(f, " ") }

// roleNames name the Role bits in order.
func roleNames() []string {
	return []string{"def", "ref", "import", "write", "read", "call", "test", "generated", "fwd-def", "conversion"}
}

// formatRoles renders roles as "def|call".
func formatRoles(r Role) string {
	var parts []string
	for i, n := range roleNames() {
		if r&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := r &^ (1<<len(roleNames()) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint32(rest)))
	}
	return strings.Join(parts, "|")
}

// ParseRoles parses the form formatRoles prints ("def|call").
func ParseRoles(s string) (Role, error) {
	var r Role
	if s == "" {
		return 0, nil
	}
	for _, p := range strings.Split(s, "|") {
		i := indexOf(roleNames(), p)
		if i < 0 {
			return 0, fmt.Errorf("graph: unknown role %q", p)
		}
		r |= 1 << i
	}
	return r, nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// String renders roles as "def|call".
func (r Role) String() string { return formatRoles(r) }
