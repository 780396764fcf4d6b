package hugeheap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// modeFile says when the kernel backs anonymous memory with transparent
// huge pages: always, on request (madvise) or never.
const modeFile = "/sys/kernel/mm/transparent_hugepage/enabled"

// Reserve maps n bytes of heap address space, asks for transparent huge
// pages over the mapping of the heap that holds them (the heap before
// them too, where adjacent), and gives them back to the runtime
// untouched; it reports whether it asked. It does nothing unless the
// kernel gives huge pages on request only: with "always" the heap has
// them already, with "never" it cannot. Memory the runtime maps later,
// past the n bytes, is not advised.
//
// It runs a collection (debug.FreeOSMemory) so that the space counts as
// released, not as heap held: call it at the start of a command that
// grows its heap to tens of megabytes, before its goroutines allocate.
// Only the first call of a process does anything (the heap is the
// process's): a later one, in a process whose heap has been used, could
// make the runtime clear n bytes of reused memory.
func Reserve(n int) (bool, error) {
	if !reserved.CompareAndSwap(false, true) {
		return false, nil
	}
	return reserve(n, modeFile, "/proc/self/maps")
}

// reserved records that Reserve has run in this process.
var reserved atomic.Bool

func reserve(n int, modePath, mapsPath string) (bool, error) {
	b, err := os.ReadFile(modePath)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil // a kernel without transparent huge pages
	}
	if err != nil {
		return false, fmt.Errorf("hugeheap: %w", err)
	}
	mode, err := parseMode(string(b))
	if err != nil || mode != "madvise" {
		return false, err
	}
	err = advise(n, mapsPath)
	// The space goes back as released memory whether or not it was
	// advised: held, it would count against the heap's memory limit.
	debug.FreeOSMemory()
	return err == nil, err
}

// advise allocates n bytes, which the runtime maps for the heap, and asks
// for huge pages over the mapping that holds them.
func advise(n int, mapsPath string) error {
	space := make([]byte, n)
	at := uintptr(unsafe.Pointer(unsafe.SliceData(space)))
	f, err := os.Open(mapsPath)
	if err != nil {
		return fmt.Errorf("hugeheap: %w", err)
	}
	lo, hi, err := mappingOf(f, at)
	f.Close()
	if err != nil {
		return err
	}
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, unix.MADV_HUGEPAGE); e != 0 {
		return fmt.Errorf("hugeheap: advising %#x-%#x: %w", lo, hi, e)
	}
	runtime.KeepAlive(space)
	return nil
}

// parseMode returns the mode the kernel's setting selects: the word in
// brackets ("always [madvise] never" selects madvise).
func parseMode(s string) (string, error) {
	_, rest, ok := strings.Cut(s, "[")
	mode, _, closed := strings.Cut(rest, "]")
	if !ok || !closed || mode == "" || strings.ContainsAny(mode, " \n") {
		return "", fmt.Errorf("hugeheap: unexpected transparent huge page setting %q", strings.TrimSpace(s))
	}
	return mode, nil
}

// mappingOf returns the bounds of the mapping that holds the address at,
// as /proc/PID/maps lists the mappings (one per line, "lo-hi perms ...",
// the bounds in hexadecimal).
func mappingOf(r io.Reader, at uintptr) (lo, hi uintptr, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		bounds, _, _ := strings.Cut(sc.Text(), " ")
		a, b, ok := strings.Cut(bounds, "-")
		if !ok {
			return 0, 0, fmt.Errorf("hugeheap: unexpected mapping line %q", sc.Text())
		}
		l, errL := strconv.ParseUint(a, 16, 64)
		h, errH := strconv.ParseUint(b, 16, 64)
		if errL != nil || errH != nil || h < l {
			return 0, 0, fmt.Errorf("hugeheap: unexpected mapping line %q", sc.Text())
		}
		if uintptr(l) <= at && at < uintptr(h) {
			return uintptr(l), uintptr(h), nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("hugeheap: reading the mappings: %w", err)
	}
	return 0, 0, fmt.Errorf("hugeheap: no mapping holds %#x", at)
}
