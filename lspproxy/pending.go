package lspproxy

import "sync/atomic"

// pendingSlots is how many slots a pendingTable has for numeric ids; a
// power of two.
const pendingSlots = 64

// pendingTable holds the editor requests awaiting the server's answer, by
// raw id token. Editors number their requests counting up from 0 or 1: a
// request with such an id (see slotID) has the slot its number falls on
// in a ring, unless a request still pending holds it (one outlived the
// next pendingSlots requests) — then, as a request with any other id, it
// is kept in a map.
//
// Every change is made under Proxy.mu. The server loop also reads and
// empties a slot without the lock (see Proxy.forwardAnswer): an answer
// to a request the proxy only forwards is forwarded once its request is
// claimed by one compare-and-swap, and what else the answer needs is done
// under the lock after. On a 2-core machine, with the editor, gopls and
// the proxy taking turns, taking the lock, looking the id up in a map and
// deleting it cost the answer 0.8 µs before it was forwarded (its caches
// cold after the server's turn), as much as reading its frame.
type pendingTable struct {
	slots [pendingSlots]atomic.Pointer[pendingCall]
	other map[string]*pendingCall
}

// slotID returns the number of a non-negative integer id token written
// without a sign, fraction, exponent or leading zero, and whether id is
// one: the ids that have a slot. Other spellings of a number are other
// ids (ids are compared as raw tokens).
func slotID(id []byte) (uint64, bool) {
	if len(id) == 0 || len(id) > 18 || id[0] == '0' && len(id) > 1 {
		return 0, false
	}
	var n uint64
	for _, c := range id {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// slot returns the slot of id, nil when id has none.
func (t *pendingTable) slot(id []byte) *atomic.Pointer[pendingCall] {
	n, ok := slotID(id)
	if !ok {
		return nil
	}
	return &t.slots[n%pendingSlots]
}

// get returns the request pending under id, nil when there is none.
// Called with Proxy.mu held.
func (t *pendingTable) get(id []byte) *pendingCall {
	if s := t.slot(id); s != nil {
		if pc := s.Load(); pc != nil && pc.id == string(id) {
			return pc
		}
	}
	return t.other[string(id)] // string(id) in a map index does not allocate
}

// put makes pc pending under its id, in place of any request pending
// under the same id. Called with Proxy.mu held.
func (t *pendingTable) put(pc *pendingCall) {
	id := []byte(pc.id)
	if old := t.get(id); old != nil {
		t.remove(old)
	}
	if s := t.slot(id); s != nil && s.Load() == nil {
		s.Store(pc)
		return
	}
	if t.other == nil {
		t.other = make(map[string]*pendingCall)
	}
	t.other[pc.id] = pc
}

// remove takes pc out of the table and reports whether it was in it.
// Called with Proxy.mu held.
func (t *pendingTable) remove(pc *pendingCall) bool {
	if s := t.slot([]byte(pc.id)); s != nil && s.CompareAndSwap(pc, nil) {
		return true
	}
	if t.other[pc.id] == pc {
		delete(t.other, pc.id)
		return true
	}
	return false
}

// len returns how many requests are pending. Called with Proxy.mu held.
func (t *pendingTable) len() int {
	n := len(t.other)
	for i := range t.slots {
		if t.slots[i].Load() != nil {
			n++
		}
	}
	return n
}

// claimSlot takes the request pending under id out of its slot without
// the lock when the proxy only forwards its answer (see forwardsAnswer),
// and returns it; nil when there is none in a slot, it is not one such,
// or something else took it first (then Proxy.mu decides).
//
// Requests are made pending by the editor loop alone. The server loop
// claims from slots (here, or under the lock); the editor loop takes a
// request whose answer came before it was pending (see forwardCall)
// through the same path, and such a request is never used again, nor is
// one a cancel's grace, shutdown's timeout or the server's end took out.
// A request is recycled for a later one only after the server loop took
// it for its answer (see Proxy.recycle, answerTaken). So a request the
// server loop loads here cannot, before its swap, be taken by another
// path and be back in its slot under another id; and the editor loop
// makes no request pending while it claims one.
func (t *pendingTable) claimSlot(id []byte) *pendingCall {
	s := t.slot(id)
	if s == nil {
		return nil
	}
	pc := s.Load()
	if pc == nil || pc.id != string(id) || !pc.forwardsAnswer() || !s.CompareAndSwap(pc, nil) {
		return nil
	}
	return pc
}

// all empties the table and returns what it held. Called with Proxy.mu
// held.
func (t *pendingTable) all() []*pendingCall {
	calls := make([]*pendingCall, 0, t.len())
	for i := range t.slots {
		if pc := t.slots[i].Swap(nil); pc != nil {
			calls = append(calls, pc)
		}
	}
	for key, pc := range t.other {
		calls = append(calls, pc)
		delete(t.other, key)
	}
	return calls
}

// forwardsAnswer reports whether the proxy forwards the server's answer
// to the request as it comes: it does not for initialize (whose result it
// extends) and for a codeLens it adds lenses to. Both are set before the
// request is pending and never change while it is.
func (pc *pendingCall) forwardsAnswer() bool {
	return pc.method != "initialize" && pc.lens == nil
}
