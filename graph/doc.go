// Package graph is the embedded Pebble store of the code graph: symbols,
// occurrences, edges and documents, in two layers.
//
// Its principal types are [Store] (open with [Open]; writes documents with
// [Store.PutDocument]), [GenerationWriter] (a bulk load of the base layer,
// from [Store.BeginGeneration] to [GenerationWriter.Commit]), and [Reader]
// (a consistent snapshot answering [Reader.References], [Reader.Incoming],
// [Reader.Traverse] and the other queries). The facts are [Symbol],
// [Occurrence], [Edge] and [Document], written per document as
// [DocumentFacts]; a layer is described by its [Manifest].
//
// # Invariants
//
// Per-document ownership: writing a document replaces, in one batch, every
// record it wrote before in that layer, including the index keys derived
// from them, so nothing is left behind that its current content does not
// justify. A symbol described by several documents, or an edge justified by
// several, lives until the last of them is gone; readers merge symbols and
// aggregate edges (counts add up, the highest confidence wins).
//
// Atomic generations: the base layer is a generation written into a space
// of its own and switched to by one synced batch that moves the current
// generation pointer. A [Reader] reads the pointer inside its snapshot, so
// it sees the old or the new generation, never a mix. Open removes the
// remains of a load that did not commit.
//
// No silent shrink: a producer that calls [GenerationWriter.RefuseShrink]
// has Commit refuse a generation that keeps fewer than half the documents
// of the one it replaces, when both come from the same tool for the same
// root ([CheckShrink]; the error wraps [ErrShrink] and says "documents
// before → after"). A dump cut at a record boundary, which a crashed
// indexer leaves, decodes cleanly; without the rule it would replace a
// whole index with its first documents. The previous generation stays
// current. The SCIP importer and the syntax indexer guard every
// generation unless their AllowShrink option (--allow-shrink) is set.
//
// Layers: the live layer ([Live]) owns documents changed since the base
// was built or unsaved in an editor; for such a document the base layer's
// ([Base]) facts are not served. Deleting the live document reveals them
// again.
//
// # Storage
//
// The on-disk format is described in keys.go and values.go: every record
// lives in a space (meta, live, or one per base generation), and each
// document's doc-first records are accompanied by the index records derived
// from them (references and definitions by symbol, edges both ways, names,
// packages). Index keys name symbols by 8-byte ids from their space's
// symbol table (symid.go): the XXH64 hash of the string, probed past a
// collision, so the ids, and the bytes written, do not depend on the order
// of the documents; readers translate them, and no API shows them. A
// store of another [SchemaVersion] is refused with [ErrSchema];
// one held by another process with [ErrLocked] naming its pid. The store's
// directory is mode 0700 and every file in it 0600 (Pebble's, through a
// filesystem wrapper, the pid file, the generation writer's run files,
// and [WritePrivateFile]'s), whatever the umask: the graph describes the
// code it indexes. Pebble locks a store exclusively, so even a read-only
// [Open] fails while another process holds it.
//
// Live-layer writes are Pebble batches, one per document. A generation is
// written without the write-ahead log or the memtable: its records are
// sorted in chunks of bounded size, spilled as sorted runs to files
// (themselves merged into larger runs as they accumulate, so that the last
// merge reads a bounded number of them), and
// merged at the end into sstables that do not overlap, which are ingested
// into the bottom level in one step. That costs a fraction of inserting
// small keys in random order into a memtable, and no compaction follows.
// [TableFloor] writes the current generation's records again, from memory
// and to throwaway tables, the way that last step does: the cost of a load
// that no producer of the same records avoids, for benchmarks.
//
// Reads go through Pebble's block cache ([CacheSize]). A symbol's records,
// names and edges sit in different parts of a generation's space, so the
// first answers about a neighbourhood load many blocks. [Store.Warm] reads
// the kinds answers read of the current generation, in order of use and up
// to a budget of bytes, through ordinary iterators a chunk at a time, and
// stops when the store closes or another generation becomes current; a
// long-lived holder of the store runs it in the background.
package graph
