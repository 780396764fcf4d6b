//go:build !linux

package hugeheap

// Reserve does nothing where the kernel is not Linux: it reports false.
func Reserve(n int) (bool, error) { return false, nil }
