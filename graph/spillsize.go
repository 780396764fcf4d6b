package graph

// SetSpillBytes sets how many bytes of records the writer holds in memory
// before it sorts them and spills them to a run file (chunkBytes unless set).
// Two such chunks are held at a time (one filling, one being spilled), so
// a writer whose producer must stay in bounded memory sets less; more
// runs then make the final merge open more files. n ≤ 0 leaves the
// setting unchanged. Call it before the first PutDocument.
func (g *GenerationWriter) SetSpillBytes(n int) {
	if n <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.limit = n
}
