package workspace

import (
	"fmt"
	"io/fs"

	"github.com/lspgraph/lspgraph/internal/rootfs"
)

// readInRoot reads a regular file by its root-relative path (forward
// slashes) through the root-confined reader: a symlink that leaves the
// root is refused, and so is anything but a regular file. The error names
// the path only.
func readInRoot(root, rel string) ([]byte, error) {
	r, err := rootfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("opening the workspace root: %w", err)
	}
	defer r.Close()
	return r.ReadFile(rel)
}

// statInRoot stats a root-relative path without leaving the root.
func statInRoot(root, rel string) (fs.FileInfo, error) {
	r, err := rootfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("opening the workspace root: %w", err)
	}
	defer r.Close()
	return r.Stat(rel)
}
