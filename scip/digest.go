package scip

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// docDigester computes a Document record's digest, the key by which an
// import tells whether a document changed since the last one: the SHA-256
// of the record with its symbol informations (and each one's
// relationships) taken in a canonical order, not the order the indexer
// wrote them in. scip-go writes them in Go's map order, different at every
// run, so that a digest of the bytes as written found 48 of pebble's 815
// documents unchanged from one commit to the next where a single file
// changed; in canonical order, every one but that file's. What the
// converter makes of a document does not depend on that order either (see
// mergeInfos).
//
// It reads the record with the generic wire functions, so it fails only
// where the bindings fail too: on a malformed field.
type docDigester struct {
	doc, info  hash.Hash
	infos, rel [][sha256.Size]byte
}

// digest returns the document record b's digest.
func (d *docDigester) digest(b []byte) ([sha256.Size]byte, error) {
	if d.doc == nil {
		d.doc, d.info = sha256.New(), sha256.New()
	}
	d.doc.Reset()
	d.infos = d.infos[:0]
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return [sha256.Size]byte{}, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return [sha256.Size]byte{}, protowire.ParseError(m)
		}
		field := b[:n+m]
		b = b[n+m:]
		if num == docSymbols && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(field[n:])
			sum, err := d.infoDigest(v)
			if err != nil {
				return [sha256.Size]byte{}, err
			}
			d.infos = append(d.infos, sum)
			continue
		}
		d.doc.Write(field)
	}
	// The symbol informations, after the other fields, as a set of digests
	// (a length first: no field's bytes read like it).
	slices.SortFunc(d.infos, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	d.doc.Write(protowire.AppendVarint(protowire.AppendTag(nil, docSymbols, protowire.VarintType), uint64(len(d.infos))))
	for i := range d.infos {
		d.doc.Write(d.infos[i][:])
	}
	var out [sha256.Size]byte
	d.doc.Sum(out[:0])
	return out, nil
}

// infoDigest returns the digest of a SymbolInformation message: its
// fields in order but its relationships, then those as a set.
func (d *docDigester) infoDigest(b []byte) ([sha256.Size]byte, error) {
	d.info.Reset()
	d.rel = d.rel[:0]
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return [sha256.Size]byte{}, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return [sha256.Size]byte{}, protowire.ParseError(m)
		}
		field := b[:n+m]
		b = b[n+m:]
		if num == infoRelationships && typ == protowire.BytesType {
			d.rel = append(d.rel, sha256.Sum256(field))
			continue
		}
		d.info.Write(field)
	}
	slices.SortFunc(d.rel, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	d.info.Write(protowire.AppendVarint(protowire.AppendTag(nil, infoRelationships, protowire.VarintType), uint64(len(d.rel))))
	for i := range d.rel {
		d.info.Write(d.rel[i][:])
	}
	var out [sha256.Size]byte
	d.info.Sum(out[:0])
	return out, nil
}
