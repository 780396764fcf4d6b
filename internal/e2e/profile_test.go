package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestIndexCPUProfile indexes a new store with --cpuprofile: the index
// runs itself again for a new generation (selfexec), and the profile is
// written by the process that indexes.
func TestIndexCPUProfile(t *testing.T) {
	t.Parallel()
	root := fixture(t, "goapp")
	dir := t.TempDir()
	profile := filepath.Join(dir, "index.pprof")
	cmd := exec.Command(lspgraphBin(t), "index", "--store", filepath.Join(dir, "store"), "--no-fact-cache", "--cpuprofile", profile, "--root", root, root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lspgraph index --cpuprofile: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(profile); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("the index's CPU profile: %d bytes, %v; want a gzipped profile", len(b), err)
	}
}
