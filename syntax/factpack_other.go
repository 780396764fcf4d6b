//go:build !unix

package syntax

import (
	"os"
	"time"
)

// packLocks: without flock, a pack written within the last hour is taken
// for one a writer still runs on.
const packLocks = false

// lockPack does nothing here.
func lockPack(*os.File) error { return nil }

// claimPack reports whether the pack at path was written more than an
// hour ago (stalePack).
func claimPack(path string) (release func(), ok bool) {
	fi, err := os.Stat(path)
	if err != nil || fi.ModTime().After(time.Now().Add(-stalePack)) {
		return nil, false
	}
	return func() {}, true
}
