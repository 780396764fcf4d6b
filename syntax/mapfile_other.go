//go:build !linux

package syntax

import "os"

// mapFile reads the file name: mapping it is done on Linux only. It does
// not call digest: the caller digests the bytes read.
func mapFile(name string, digest func(f *os.File, size int64) error) (b []byte, mapped bool, err error) {
	b, err = os.ReadFile(name)
	return b, false, err
}

// releaseMapping does nothing: mapFile maps nothing here.
func releaseMapping(b []byte) {}
