package graph

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
)

// DefiningDocuments returns, for each symbol of syms, the first document
// in path order that defines it, "" when no visible document does: one
// whose description of the symbol places its definition there and does
// not call it external (a module is defined by its file without a
// definition occurrence of its own, so Definitions would miss it). A
// symbol local to a document ("local 4 a/b.go") is defined in that
// document when the reader shows it. Each layer's ids and descriptions
// are read in id order through one iterator each, not two lookups per
// symbol.
func (r *Reader) DefiningDocuments(ctx context.Context, syms []string) ([]string, error) {
	out := make([]string, len(syms))
	for _, ls := range r.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := r.definingIn(ls, syms, out); err != nil {
			return nil, fmt.Errorf("graph: reading definitions of %d symbols in %s: %w", len(syms), spaceName(ls.space), err)
		}
	}
	for i, sym := range syms {
		if p, ok := localPath(sym); ok {
			_, shown, err := r.Document(ctx, p)
			if err != nil {
				return nil, err
			}
			if shown {
				out[i] = p
			}
		}
	}
	return out, nil
}

// definingIn lowers out[i] to the first document of layer ls that defines
// syms[i] (see DefiningDocuments), if one comes before it.
func (r *Reader) definingIn(ls layerSpace, syms []string, out []string) error {
	type wanted struct {
		id uint64
		i  int
	}
	ids, err := r.symIDs(ls.space, syms)
	if err != nil {
		return err
	}
	var want []wanted
	for i, id := range ids {
		if id.ok {
			want = append(want, wanted{id.id, i})
		}
	}
	if len(want) == 0 {
		return nil
	}
	slices.SortFunc(want, func(a, b wanted) int { return cmp.Compare(a.id, b.id) })
	lower := appendPrefix(nil, ls.space, kindSym)
	var prefix []byte
	return withIter(r.kv(), lower, prefixEnd(lower), func(it *pebble.Iterator) error {
		for _, w := range want {
			prefix = appendSymPrefix(prefix[:0], ls.space, kindSym, w.id)
			for ok := it.SeekGE(prefix); ok && bytes.HasPrefix(it.Key(), prefix); ok = it.Next() {
				path := it.Key()[len(prefix):]
				if p := out[w.i]; p != "" && string(path) >= p {
					break // a layer before found one first
				}
				if r.hiddenBytes(ls, path) {
					continue
				}
				v, err := it.ValueAndErr()
				if err != nil {
					return err
				}
				here, err := definedIn(v, path)
				if err != nil {
					return fmt.Errorf("%w of %q", err, syms[w.i])
				}
				if here {
					out[w.i] = string(path)
					break
				}
			}
		}
		return it.Error()
	})
}

// definedIn reports whether a symbol value, the description of its symbol
// by the document at path, places the definition there and does not call
// the symbol external.
func definedIn(v, path []byte) (bool, error) {
	r := valueReader{b: v, borrow: true}
	for range 6 { // display name, kind, language, package, signature, doc
		r.skipStr()
	}
	external := r.uvarint()&1 != 0
	def := r.str()
	if r.bad {
		return false, fmt.Errorf("%w: symbol value", errBadValue)
	}
	return !external && def == string(path), nil
}

// symIDResult is a symbol's id in a space, if it has one.
type symIDResult struct {
	id uint64
	ok bool
}

// symIDs is symID for many symbols of space: those not translated yet are
// probed in id order through one iterator (probeSymIDs), not one
// lookup each.
func (r *Reader) symIDs(space uint64, syms []string) ([]symIDResult, error) {
	out := make([]symIDResult, len(syms))
	c := r.syms(space)
	var unknown []string
	var at []int // the index in syms of each unknown symbol
	c.mu.Lock()
	for i, s := range syms {
		if _, local := localPath(s); local {
			continue // in its document's records only
		}
		if id, ok := c.ids[spaceSym{space, s}]; ok {
			out[i] = symIDResult{id, true}
		} else {
			unknown, at = append(unknown, s), append(at, i)
		}
	}
	c.mu.Unlock()
	if len(unknown) == 0 {
		return out, nil
	}
	err := probeSymIDs(r.kv(), space, unknown, func(i int, id uint64, _ bool) { out[at[i]] = symIDResult{id, true} })
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	for i, s := range unknown {
		if res := out[at[i]]; res.ok {
			c.note(space, res.id, strings.Clone(s))
		}
	}
	c.mu.Unlock()
	return out, nil
}
