package rootfs

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStampVouched: a stamp vouches for a read that starts more than
// RacyWindow after the file's modification time, and for nothing when the
// file was modified within the window.
func TestStampVouched(t *testing.T) {
	name := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(name, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stamp := func() Stamp {
		fi, err := os.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		return StampOf(fi)
	}
	st := stamp()
	if st.Size != 10 || st.MTime == 0 || !st.Vouches() {
		t.Fatalf("StampOf = %+v, want size 10 and a time", st)
	}
	if got := st.Vouched(time.Now()); got.Vouches() {
		t.Errorf("a file written just now vouches for a read now: %+v", got)
	}
	if got := st.Vouched(time.Unix(0, st.MTime).Add(RacyWindow)); got.Vouches() {
		t.Errorf("a read exactly RacyWindow after the write is vouched for: %+v", got)
	}
	old := time.Now().Add(-3 * RacyWindow)
	if err := os.Chtimes(name, old, old); err != nil {
		t.Fatal(err)
	}
	if st = stamp(); st.Vouched(time.Now()) != st {
		t.Errorf("a file written %v ago does not vouch for a read now: %+v", 3*RacyWindow, st.Vouched(time.Now()))
	}
}
