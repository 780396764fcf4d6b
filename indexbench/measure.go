package indexbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"syscall"
	"time"
)

// Run is one measured child process.
type Run struct {
	Name       string   `json:"name"`
	Command    []string `json:"command"`
	Seconds    float64  `json:"wall_seconds"`
	CPUSeconds float64  `json:"cpu_seconds"` // user + system
	// SysSeconds is the system part of CPUSeconds. On a virtual machine
	// whose host takes back the pages a guest frees, it is where a run
	// that touches many new pages pays: the same 4× index took 5.1-5.9 s
	// of system time over a tree written minutes before and 11.7-15.2 s
	// over one written just before.
	SysSeconds float64 `json:"sys_seconds"`
	PeakRSSMB  float64 `json:"peak_rss_mb"`
	Files      int     `json:"files"`
	FilesPerS  float64 `json:"files_per_sec"`
}

// Measure runs bin with args to completion in dir ("" for the current
// directory) and measures it. It returns the command's standard output and
// standard error; a failed command is an error carrying its standard
// error.
func Measure(ctx context.Context, name, dir, bin string, args ...string) (Run, []byte, []byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	return MeasureCmd(name, cmd)
}

// MeasureCmd is Measure for a command set up by the caller (its
// environment, …); its standard output and error are taken over.
func MeasureCmd(name string, cmd *exec.Cmd) (Run, []byte, []byte, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	lowerPeakRSS()
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return Run{}, nil, nil, fmt.Errorf("%s: %w: %s", name, err, bytes.TrimSpace(stderr.Bytes()))
	}
	run := Run{Name: name, Command: cmd.Args, Seconds: wall.Seconds()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		run.CPUSeconds = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		run.SysSeconds = time.Duration(ru.Stime.Nano()).Seconds()
		// KB on Linux: the largest of the process and the descendants it
		// waited for, and of this process's RSS when it started the child
		// (see lowerPeakRSS).
		run.PeakRSSMB = float64(ru.Maxrss) / 1024
	}
	return run, stdout.Bytes(), stderr.Bytes(), nil
}

// lowerPeakRSS returns this process's free memory to the system and resets
// its peak resident set size to what it holds now (Linux: "5" into
// /proc/self/clear_refs; elsewhere nothing). os/exec starts a child in this
// process's address space until it execs, and Linux then counts that
// address space's peak in the child's maximum RSS: without the reset, a
// child started after this process ran impact and context over a large
// store reported this process's peak (382 and 410 MB for indexes that
// peaked at 256 and 281 MB). The C allocator's free memory is returned
// too: without that, every re-index and import after the first round
// reported 203 MB, the memory a closed store had left this process.
func lowerPeakRSS() {
	debug.FreeOSMemory()
	trimCHeap()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
