// Package treewatch follows a git work tree with the operating system's
// file notifications (fsnotify: inotify on Linux), so that a look at the
// tree's git state can be reused while nothing it depends on changed.
//
// A [Watcher] watches every directory under the workspace root except
// .git and the directories git ignores (asked once, at [Start]; a
// directory created later is watched with its subtree unless git ignores
// it), and the git state a look reads: HEAD, the index, the config,
// info/exclude, packed-refs and the branches under refs/heads. It never
// watches .git/objects. Every other change counts: [Watcher.Sync] returns
// a generation that grows with each change seen.
//
// Notifications are read on their own goroutine, so a write that finished
// before Sync was called may not have been read yet. Sync closes that
// window as Watchman does: it creates a uniquely named cookie file in the
// git directory and waits for its event. Events arrive in the order the
// changes were made, so every change made before Sync was called has been
// counted when the cookie's event arrives.
//
// A watcher that lost events (the kernel's queue overflowed), saw its
// ignore rules change (a .gitignore, info/exclude, the config) or failed
// otherwise is broken for good: Sync returns the error, and the caller
// starts a new one. [Start] fails when watching is impossible: no git work
// tree, more directories than the cap, or the user's inotify watches used up.
package treewatch
