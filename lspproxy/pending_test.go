package lspproxy

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
)

// writeHook is an io.Writer that runs a func on each write.
type writeHook func([]byte)

func (h writeHook) Write(b []byte) (int, error) { h(b); return len(b), nil }

// testFrame returns body framed and read back as the loops read frames.
func testFrame(t *testing.T, body string) frame {
	t.Helper()
	var buf bytes.Buffer
	fw := frameWriter{w: &buf}
	if err := fw.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	f, err := newFrameReader(&buf).next()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAnswerBeforeRegistration: an answer that comes back while the
// editor loop still registers the request it forwarded first (forwardCall)
// is routed to the editor once the request is registered, not dropped as
// an answer to an unknown request.
func TestAnswerBeforeRegistration(t *testing.T) {
	var toEditor bytes.Buffer
	p := New(Config{})
	p.editorW = frameWriter{w: &toEditor}
	answer := testFrame(t, `{"jsonrpc":"2.0","result":null,"id":7}`)
	p.serverW = frameWriter{w: writeHook(func([]byte) {
		// The server answers at once: the server loop routes the
		// answer before forwardCall has registered the request.
		p.serverFrame(answer)
		if toEditor.Len() != 0 {
			t.Errorf("answer forwarded before its request was pending: %q", toEditor.String())
		}
	})}
	request := testFrame(t, `{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{}}`)
	es := startEnvelope(request.body)
	es.head()
	if !p.forwardCall(&es, request) {
		t.Fatal("forwardCall did not forward a hover request")
	}
	if got := toEditor.String(); got != string(answer.wire) {
		t.Fatalf("editor got %q, want the answer %q", got, answer.wire)
	}
	if st := p.Stats(); st.PendingEditor != 0 {
		t.Errorf("%d requests still pending", st.PendingEditor)
	}
	// The editor loop took the request for its answer: it is not used
	// again (see pendingTable.claimSlot).
	if pc, _ := p.calls.Get().(*pendingCall); pc != nil {
		t.Errorf("the request answered before it was pending was recycled: %+v", pc)
	}
	// An answer to an unknown id outside registration is dropped at once.
	toEditor.Reset()
	p.serverFrame(testFrame(t, `{"jsonrpc":"2.0","result":null,"id":8}`))
	if toEditor.Len() != 0 || len(p.early) != 0 {
		t.Errorf("answer to an unknown request: editor got %q, %d kept", toEditor.String(), len(p.early))
	}
}

func TestSlotID(t *testing.T) {
	for _, c := range []struct {
		id   string
		n    uint64
		slot bool
	}{
		{`0`, 0, true}, {`7`, 7, true}, {`64`, 64, true}, {`123456789012345678`, 123456789012345678, true},
		{`1234567890123456789`, 0, false}, // 19 digits: could overflow
		{`07`, 0, false}, {`-1`, 0, false}, {`1.0`, 0, false}, {`1e3`, 0, false},
		{`"7"`, 0, false}, {``, 0, false}, {`null`, 0, false},
	} {
		n, ok := slotID([]byte(c.id))
		if ok != c.slot || ok && n != c.n {
			t.Errorf("slotID(%s) = %d, %v; want %d, %v", c.id, n, ok, c.n, c.slot)
		}
	}
}

// TestPendingTable runs random puts, removes and claims against a map of
// what is pending: ids that share a slot (n and n+64), numbers spelled
// otherwise, string ids, an id pending twice, and requests whose answers
// the proxy works on (never claimed from a slot).
func TestPendingTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := []string{`"a"`, `"b"`, `07`, `-1`, `1.5`}
	for n := range 3 * pendingSlots {
		ids = append(ids, strconv.Itoa(n))
	}
	var tab pendingTable
	want := map[string]*pendingCall{}
	check := func(step int, op string) {
		t.Helper()
		if got := tab.len(); got != len(want) {
			t.Fatalf("step %d (%s): len %d, want %d", step, op, got, len(want))
		}
		for _, id := range ids {
			if got := tab.get([]byte(id)); got != want[id] {
				t.Fatalf("step %d (%s): get(%s) = %p, want %p", step, op, id, got, want[id])
			}
		}
	}
	for step := range 20000 {
		id := ids[rng.IntN(len(ids))]
		switch op := rng.IntN(4); op {
		case 0, 1:
			pc := &pendingCall{method: "textDocument/hover", id: id}
			if rng.IntN(8) == 0 {
				pc.method = "initialize"
			}
			tab.put(pc)
			want[id] = pc
			check(step, "put "+id)
		case 2:
			pc := want[id]
			if pc == nil {
				pc = &pendingCall{id: id}
			}
			if got := tab.remove(pc); got != (want[id] != nil) {
				t.Fatalf("step %d: remove(%s) = %v, want %v", step, id, got, want[id] != nil)
			}
			delete(want, id)
			check(step, "remove "+id)
		case 3:
			pc := tab.claimSlot([]byte(id))
			if pc != nil {
				if want[id] != pc || !pc.forwardsAnswer() {
					t.Fatalf("step %d: claimSlot(%s) = %+v, pending %+v", step, id, pc, want[id])
				}
				delete(want, id)
			}
			check(step, "claim "+id)
		}
	}
	calls := tab.all()
	if len(calls) != len(want) || tab.len() != 0 {
		t.Fatalf("all returned %d, %d pending; %d left", len(calls), len(want), tab.len())
	}
	for _, pc := range calls {
		if want[pc.id] != pc {
			t.Errorf("all returned %s, not pending", pc.id)
		}
	}
}

// TestPendingClaimRace: the server loop claims a request from its slot
// without the lock while a cancel's grace or shutdown's timeout removes
// it under the lock; exactly one of them gets it.
func TestPendingClaimRace(t *testing.T) {
	var mu sync.Mutex
	var tab pendingTable
	for i := range 2000 {
		pc := &pendingCall{method: "textDocument/definition", id: strconv.Itoa(i)}
		mu.Lock()
		tab.put(pc)
		mu.Unlock()
		var claimed, removed bool
		var wg sync.WaitGroup
		wg.Go(func() { claimed = tab.claimSlot([]byte(pc.id)) == pc })
		wg.Go(func() {
			mu.Lock()
			removed = tab.remove(pc)
			mu.Unlock()
		})
		wg.Wait()
		if claimed == removed {
			t.Fatalf("request %d: claimed %v, removed %v", i, claimed, removed)
		}
	}
}
