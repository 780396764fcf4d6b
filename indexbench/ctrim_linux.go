//go:build linux && cgo

package indexbench

// #include <malloc.h>
import "C"

// trimCHeap returns what the C allocator holds free to the system
// (glibc's malloc_trim). Pebble's block cache is C memory: a store this
// process opened and closed (the scale benchmark times impact and context
// in process) left 60-200 MB of it with the allocator, which a child then
// counted in its peak RSS (see lowerPeakRSS).
func trimCHeap() { C.malloc_trim(0) }
