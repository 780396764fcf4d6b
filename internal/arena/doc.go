// Package arena holds many strings in large byte chunks ([Strings]) and
// finds numbers by string through an open-addressing table of integers
// ([Index]), so that tables of them cost the garbage collector nothing to
// scan: a string is kept as a Ref of plain integers, its bytes in a chunk
// that holds no pointers.
package arena
