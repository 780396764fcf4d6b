package freelist

import (
	"runtime"
	"sync"
	"testing"
)

func TestList(t *testing.T) {
	var l List[*[]byte]
	made := 0
	fresh := func() *[]byte { made++; return new([]byte) }
	a, b := l.Get(fresh), l.Get(fresh)
	if made != 2 || a == b {
		t.Fatalf("two Gets of an empty list made %d values (same: %v), want 2 distinct", made, a == b)
	}
	l.Put(a)
	l.Put(b)
	runtime.GC() // a sync.Pool would lose them here
	if got := l.Get(fresh); got != b || made != 2 {
		t.Errorf("Get after Put(a), Put(b) and a collection = %p (made %d), want b %p, the last put", got, made, b)
	}
	if got := l.Get(fresh); got != a || made != 2 {
		t.Errorf("second Get = %p (made %d), want a %p", got, made, a)
	}
	l.Put(a)
	l.Drop()
	if got := l.Get(fresh); got == a || made != 3 {
		t.Errorf("Get after Drop returned a kept value or made none (made %d)", made)
	}
}

// TestListConcurrent puts and gets from several goroutines: every value
// got is held by one of them at a time (run with -race).
func TestListConcurrent(t *testing.T) {
	var l List[*int]
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 1000 {
				v := l.Get(func() *int { return new(int) })
				*v = i
				if *v != i {
					t.Errorf("value changed while held")
				}
				l.Put(v)
			}
		})
	}
	wg.Wait()
}
