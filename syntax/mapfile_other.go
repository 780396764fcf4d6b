//go:build !linux

package syntax

import "os"

// mapFile reads the file name: mapping it is done on Linux only.
func mapFile(name string) ([]byte, error) { return os.ReadFile(name) }
