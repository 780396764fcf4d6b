//go:build !unix

package rootfs

import "os"

// openFlags open read-only; the mode is checked before and after.
const openFlags = os.O_RDONLY
