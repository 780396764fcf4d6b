package search

// DocReads returns how many times c read a document's links, package or
// names.
func DocReads(c *Cache) int64 { return c.docReads.Load() }
