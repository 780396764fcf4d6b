// Package arena holds many strings in large byte chunks, so that tables
// of them cost the garbage collector nothing to scan: a string is kept as
// a Ref of plain integers, and its bytes in a chunk that holds no
// pointers.
package arena
