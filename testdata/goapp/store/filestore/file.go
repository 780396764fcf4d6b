// Package filestore is a store.Store that keeps one file per key.
package filestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"example.com/goapp/store"
)

var _ store.Store = (*File)(nil)

// File stores each key as a file under Dir.
type File struct {
	Dir string
}

func (f *File) path(key string) string {
	return filepath.Join(f.Dir, key)
}

// Get implements store.Store.
func (f *File) Get(key string) (string, error) {
	b, err := os.ReadFile(f.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return "", store.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("filestore: reading %q: %w", key, err)
	}
	return string(b), nil
}

// Put implements store.Store.
func (f *File) Put(key, value string) error {
	if err := os.WriteFile(f.path(key), []byte(value), 0o644); err != nil {
		return fmt.Errorf("filestore: writing %q: %w", key, err)
	}
	return nil
}
