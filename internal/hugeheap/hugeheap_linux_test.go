package hugeheap

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

func TestParseMode(t *testing.T) {
	for in, want := range map[string]string{
		"always [madvise] never\n": "madvise",
		"[always] madvise never\n": "always",
		"always madvise [never]":   "never",
	} {
		if got, err := parseMode(in); err != nil || got != want {
			t.Errorf("parseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "always madvise never", "[always", "[] never", "[al ways]"} {
		if got, err := parseMode(in); err == nil {
			t.Errorf("parseMode(%q) = %q, want an error", in, got)
		}
	}
}

const maps = `00400000-00c5c000 r-xp 00000000 fd:00 1234   /usr/bin/lspgraph
c000000000-c004400000 rw-p 00000000 00:00 0
7f0000000000-7f0000021000 rw-p 00000000 00:00 0
`

func TestMappingOf(t *testing.T) {
	for _, tc := range []struct {
		at     uintptr
		lo, hi uintptr
	}{
		{0xc000000000, 0xc000000000, 0xc004400000},
		{0xc0043fffff, 0xc000000000, 0xc004400000},
		{0x400000, 0x400000, 0xc5c000},
		{0x7f0000020fff, 0x7f0000000000, 0x7f0000021000},
	} {
		lo, hi, err := mappingOf(strings.NewReader(maps), tc.at)
		if err != nil || lo != tc.lo || hi != tc.hi {
			t.Errorf("mappingOf(%#x) = %#x-%#x, %v; want %#x-%#x", tc.at, lo, hi, err, tc.lo, tc.hi)
		}
	}
	for _, at := range []uintptr{0xc004400000, 0x3fffff, 0x7f0000021000} {
		if lo, hi, err := mappingOf(strings.NewReader(maps), at); err == nil {
			t.Errorf("mappingOf(%#x) = %#x-%#x, want an error: no mapping holds it", at, lo, hi)
		}
	}
	for _, bad := range []string{"c000000000 rw-p\n", "zz-c0 rw-p\n", "c0-b0 rw-p\n"} {
		if _, _, err := mappingOf(strings.NewReader(bad), 0xc0); err == nil {
			t.Errorf("mappingOf(%q) read a mapping, want an error", bad)
		}
	}
}

// TestReserveDoesNothing gives reserve kernels whose setting asks for no
// advice: huge pages always, never, none at all; and a setting it cannot
// read.
func TestReserveDoesNothing(t *testing.T) {
	dir := t.TempDir()
	for name, setting := range map[string]string{
		"always": "[always] madvise never\n",
		"never":  "always madvise [never]\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(setting), 0o644); err != nil {
			t.Fatal(err)
		}
		// A maps file that does not exist: reserve must not get to it.
		if ok, err := reserve(1<<20, path, filepath.Join(dir, "no-maps")); ok || err != nil {
			t.Errorf("%s: reserve = %v, %v; want false, nil", name, ok, err)
		}
	}
	if ok, err := reserve(1<<20, filepath.Join(dir, "absent"), "/proc/self/maps"); ok || err != nil {
		t.Errorf("no setting: reserve = %v, %v; want false, nil", ok, err)
	}
	// On request, but the mappings cannot be read or do not hold the
	// space: an error, and the space is handed back all the same.
	madvise := filepath.Join(dir, "madvise")
	if err := os.WriteFile(madvise, []byte("always [madvise] never\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(dir, "maps")
	if err := os.WriteFile(elsewhere, []byte("00400000-00401000 r-xp 00000000 fd:00 1 /bin/true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, maps := range []string{filepath.Join(dir, "no-maps"), elsewhere} {
		if ok, err := reserve(1<<20, madvise, maps); ok || err == nil {
			t.Errorf("maps %s: reserve = %v, %v; want false and an error", filepath.Base(maps), ok, err)
		}
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("madvise\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := reserve(1<<20, bad, "/proc/self/maps"); ok || err == nil {
		t.Errorf("unreadable setting: reserve = %v, %v; want false and an error", ok, err)
	}
}

// TestReserve asks for huge pages under this test's heap, where the kernel
// gives them on request, and checks that the kernel marks the mapping
// holding what the heap allocates next as advised ("hg" in its VmFlags).
func TestReserve(t *testing.T) {
	b, err := os.ReadFile(modeFile)
	if err != nil {
		t.Skipf("no transparent huge pages here: %v", err)
	}
	if mode, err := parseMode(string(b)); err != nil || mode != "madvise" {
		t.Skipf("transparent huge pages are %q here, %v: nothing to ask for", mode, err)
	}
	ok, err := Reserve(64 << 20)
	if err != nil || !ok {
		t.Fatalf("Reserve = %v, %v; want true", ok, err)
	}
	if ok, err := Reserve(64 << 20); ok || err != nil {
		t.Errorf("Reserve again = %v, %v; want false, nil: the process's heap is advised once", ok, err)
	}
	next := make([]byte, 8<<20)
	at := uintptr(unsafe.Pointer(&next[0]))
	flags := vmFlags(t, at)
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping of the heap's next allocation (%#x) has VmFlags %q, without hg", at, flags)
	}
}

// vmFlags returns the VmFlags /proc/self/smaps gives the mapping holding at.
func vmFlags(t *testing.T, at uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if first, _, _ := strings.Cut(line, " "); strings.Contains(first, "-") && !strings.HasSuffix(first, ":") {
			lo, hi, err := mappingOf(strings.NewReader(line), at)
			in = err == nil && lo <= at && at < hi
			continue
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.TrimSpace(flags)
		}
	}
	t.Fatalf("no mapping in /proc/self/smaps holds %#x", at)
	return ""
}
