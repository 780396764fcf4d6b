package service

import (
	"testing"

	"example.com/goapp/store/memstore"
)

func TestImport(t *testing.T) {
	m := memstore.New()
	c := NewCatalog(m)
	n, err := c.Import([]string{"a1=apple", "bad line", "b2=banana"})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || m.Len() != 2 {
		t.Fatalf("imported %d, stored %d; want 2, 2", n, m.Len())
	}
	if got, _ := c.Lookup("b2"); got != "banana" {
		t.Fatalf("Lookup(b2) = %q; want banana", got)
	}
}

func TestNormalizeSKU(t *testing.T) {
	if got := normalizeSKU("  ab-1 "); got != "AB-1" {
		t.Fatalf("normalizeSKU = %q; want AB-1", got)
	}
}
