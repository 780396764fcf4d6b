package memstore

import (
	"errors"
	"testing"

	"example.com/goapp/store"
)

func TestPutGet(t *testing.T) {
	m := New()
	if err := m.Put("a", "1"); err != nil {
		t.Fatal(err)
	}
	got, err := m.Get("a")
	if err != nil || got != "1" {
		t.Fatalf("Get(a) = %q, %v; want 1, nil", got, err)
	}
	if _, err := m.Get("b"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(b) error = %v; want ErrNotFound", err)
	}
}
