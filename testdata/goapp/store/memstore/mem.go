// Package memstore is an in-memory store.Store.
package memstore

import "example.com/goapp/store"

var _ store.Store = (*Mem)(nil)

// Mem keeps values in a map.
type Mem struct {
	data map[string]string
}

// New returns an empty Mem.
func New() *Mem {
	return &Mem{data: make(map[string]string)}
}

// Get implements store.Store.
func (m *Mem) Get(key string) (string, error) {
	v, ok := m.data[key]
	if !ok {
		return "", store.ErrNotFound
	}
	return v, nil
}

// Put implements store.Store.
func (m *Mem) Put(key, value string) error {
	m.data[key] = value
	return nil
}

// Len reports how many keys are stored.
func (m *Mem) Len() int {
	return len(m.data)
}
