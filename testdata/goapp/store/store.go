// Package store defines the key-value storage contract used by the catalog.
package store

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned by Get when the key has no value.
var ErrNotFound = errors.New("store: key not found")

// Store is a string key-value store.
type Store interface {
	// Get returns the value stored under key, or ErrNotFound.
	Get(key string) (string, error)
	// Put stores value under key, replacing any previous value.
	Put(key, value string) error
}

// Entry is one key-value pair.
type Entry struct {
	Key   string
	Value string
}

// String renders the entry as key=value.
func (e Entry) String() string {
	return fmt.Sprintf("%s=%s", e.Key, e.Value)
}
