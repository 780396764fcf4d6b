package syntax

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// residentKB returns the process's resident memory (Rss of
// /proc/self/smaps_rollup), in kB.
func residentKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Skipf("no smaps_rollup: %v", err)
	}
	for l := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(l, "Rss:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Rss in smaps_rollup")
	return 0
}

// TestReleaseMapping: a file mapFile maps is resident at once; released,
// its pages leave the process's resident memory, and the mapping still
// reads the file.
func TestReleaseMapping(t *testing.T) {
	const size = 32 << 20
	want := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	name := filepath.Join(t.TempDir(), "table")
	if err := os.WriteFile(name, want, 0o600); err != nil {
		t.Fatal(err)
	}
	before := residentKB(t)
	b, mapped, err := mapFile(name, nil)
	if err != nil || !mapped {
		t.Fatalf("mapFile: mapped %v, %v", mapped, err)
	}
	loaded := residentKB(t)
	if loaded-before < size>>10/2 {
		t.Fatalf("mapping %d kB made %d kB resident, want it populated", size>>10, loaded-before)
	}
	releaseMapping(b)
	released := residentKB(t)
	if loaded-released < size>>10/2 {
		t.Errorf("releasing %d kB left the process %d kB smaller, want about as much", size>>10, loaded-released)
	}
	if !bytes.Equal(b, want) {
		t.Error("the released mapping reads other bytes than the file's")
	}
}
