package hugeheap

import (
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkFirstTouch touches every 4 KiB page of fresh anonymous memory
// once, as a growing heap does, in small pages and in memory advised for
// huge pages (where the kernel gives them on request): what Reserve saves
// a heap is the difference, per page.
func BenchmarkFirstTouch(b *testing.B) {
	const size = 64 << 20
	for _, huge := range []bool{false, true} {
		name := "small-pages"
		if huge {
			name = "advised-huge"
		}
		b.Run(name, func(b *testing.B) {
			pages := 0
			for b.Loop() {
				b.StopTimer()
				// 2 MiB more, to start at a huge page's boundary.
				raw, err := syscall.Mmap(-1, 0, size+2<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				off := (2<<20 - int(uintptr(unsafe.Pointer(&raw[0]))%(2<<20))) % (2 << 20)
				mem := raw[off : off+size]
				if huge {
					if err := unix.Madvise(mem, unix.MADV_HUGEPAGE); err != nil {
						b.Skipf("no transparent huge pages here: %v", err)
					}
				}
				b.StartTimer()
				for i := 0; i < len(mem); i += 4096 {
					mem[i] = 1
				}
				pages += len(mem) / 4096
				b.StopTimer()
				if err := syscall.Munmap(raw); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pages), "ns/page")
		})
	}
}
