// Package hugeheap asks the kernel for transparent huge pages under the Go
// heap of a batch command, where the kernel gives them only on request
// (transparent_hugepage/enabled set to "madvise", as on the machines this
// project is measured on).
//
// The Go runtime maps its heap without that request, so every 4 KiB page
// of it is faulted in on first touch. On those machines a fault of a small
// page costs 10-14 µs, and faults were a quarter of the CPU time of an
// incremental index (9,400 of them). Reserve maps address space for the
// heap ahead of need, advises the mapping that holds it, and hands the
// space back to the runtime untouched: the runtime then allocates from
// advised memory, which the kernel faults in 2 MiB at a time.
package hugeheap
