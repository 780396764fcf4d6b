//go:build !linux || !cgo

package indexbench

// trimCHeap does nothing where glibc's malloc_trim is not at hand.
func trimCHeap() {}
