package freelist

import "sync"

// List holds values for reuse. The zero value is empty and ready to use;
// its methods are safe for concurrent use.
type List[T any] struct {
	mu   sync.Mutex
	free []T
}

// Get returns a value put back before, the last one first, or a new one
// made by fresh when none is left.
func (l *List[T]) Get(fresh func() T) T {
	l.mu.Lock()
	if n := len(l.free); n > 0 {
		v := l.free[n-1]
		var zero T
		l.free[n-1] = zero
		l.free = l.free[:n-1]
		l.mu.Unlock()
		return v
	}
	l.mu.Unlock()
	return fresh()
}

// Put keeps v for a later Get.
func (l *List[T]) Put(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.free = append(l.free, v)
}

// Drop forgets every value kept.
func (l *List[T]) Drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.free = nil
}
