package syntax

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the file name read-only, its pages populated at once (one
// system call, where reading it into fresh memory faults in every page
// twice over, zeroed then copied). The mapping is never undone: the
// caller keeps it for the rest of the process.
func mapFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 || int64(int(fi.Size())) != fi.Size() {
		return os.ReadFile(name)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		return os.ReadFile(name)
	}
	return b, nil
}
