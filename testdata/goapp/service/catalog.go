// Package service implements the product catalog on top of a store.Store.
package service

import (
	"fmt"
	"strings"

	"example.com/goapp/store"
)

// Version is the catalog format version.
const Version = "v1"

// Banner is shown by the command line. Its literal mixes 1-, 2-, 3- and 4-byte UTF-8
// characters before a reference to Version on the same line.
const Banner = "café ☕ 𝄞 " + Version

// Catalog maps SKUs to product names.
type Catalog struct {
	st store.Store
}

// NewCatalog returns a Catalog backed by st.
func NewCatalog(st store.Store) *Catalog {
	return &Catalog{st: st}
}

// Save stores one product. It calls Put through the store.Store interface.
func (c *Catalog) Save(sku, name string) error {
	if err := c.st.Put(sku, name); err != nil {
		return fmt.Errorf("service: saving %s: %w", sku, err)
	}
	return nil
}

// Import saves every "sku=name" line.
func (c *Catalog) Import(lines []string) (int, error) {
	n := 0
	for _, line := range lines {
		sku, name, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if err := c.Save(sku, name); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Lookup returns the product name for sku.
func (c *Catalog) Lookup(sku string) (string, error) {
	return c.st.Get(sku)
}

// Describe formats a product for display. Nothing calls it.
func Describe(sku, name string) string {
	return store.Entry{Key: sku, Value: name}.String()
}

// normalizeSKU upper-cases a SKU and trims spaces; only the tests call it.
func normalizeSKU(sku string) string {
	return strings.ToUpper(strings.TrimSpace(sku))
}
