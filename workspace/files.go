package workspace

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// readInRoot reads a regular file by its root-relative path (forward
// slashes) through os.Root: a symlink that leaves the root is refused, and
// so is anything but a regular file. The error names the path only.
func readInRoot(root, rel string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("opening the workspace root: %w", err)
	}
	defer r.Close()
	f, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: not a readable file inside the workspace root", rel)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("reading %s: not a regular file", rel)
	}
	return io.ReadAll(f)
}
