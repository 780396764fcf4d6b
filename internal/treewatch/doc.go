// Package treewatch follows a git work tree with the operating system's
// file notifications (fsnotify: inotify on Linux), so that a look at the
// tree's git state can be reused while nothing it depends on changed.
//
// A [Watcher] watches every directory under the workspace root except
// .git and the directories git ignores (asked once, at [Start]; a
// directory created later is watched with its subtree unless git ignores
// it), the git state a look reads: HEAD, the index, the config,
// info/exclude, packed-refs and the branches under refs/heads, and the
// .gitignore files between the root and the work tree's top. It never
// watches .git/objects, and git's lock files do not count (a change is
// their rename). Every other change counts, git's own rewrite of the
// index included (a status refreshing racily clean entries): [Watcher.Sync]
// returns a generation that grows with each change seen.
//
// Notifications are read on their own goroutine, so a write that finished
// before Sync was called may not have been read yet. Sync closes that
// window as Watchman does: it creates a uniquely named cookie file in the
// git directory and waits for its event. Events arrive in the order the
// changes were made, so every change made before Sync was called has been
// counted when the cookie's event arrives.
//
// Outside a git work tree it watches every directory under the root but
// .git, with no ignore rules and no git state, and its cookies go to a
// temporary directory of its own (events of one watcher arrive in order,
// whatever directory they are in); a .git created under the root breaks
// it, so that the next one follows git.
//
// A watcher that lost events (the kernel's queue overflowed), saw its
// ignore rules change (a .gitignore, info/exclude, the config), whose git
// directory was replaced, or that failed otherwise is broken for good: Sync returns the error, and the caller
// starts a new one. [Start] fails when watching is impossible: more
// directories than the cap, or the user's inotify watches used up.
package treewatch
