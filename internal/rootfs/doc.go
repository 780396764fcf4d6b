// Package rootfs reads the files of one workspace root and nothing outside
// it. Every read of a project file (the source files an index extracts, the
// manifests it consults, the texts snippets and freshness compare) goes
// through a [Root], so that a symbolic link in the work tree, tracked or
// not, can never make lspgraph read, store or show a file elsewhere.
//
// Its principal type is [Root], opened on a directory with [Open]. Paths
// given to it are root-relative and slash-separated; [Root.Rel] turns an
// absolute path into one, refusing (lexically, without touching the disk)
// anything outside the root, a sibling directory sharing the root's name as
// a prefix included.
//
// The rules:
//   - A symbolic link whose target stays inside the root is followed, and
//     [Root.RealPath] names the file it reaches. One that leaves the root is
//     refused with an error wrapping [ErrOutside]. The error names the path
//     asked for and says nothing about the target: not where it points,
//     whether it exists, nor its size or content.
//   - Only regular files are read: a directory, named pipe, device or socket
//     is refused with an error wrapping [ErrNotRegular], and a named pipe is
//     never opened in a way that could block.
//   - A nil or unopened Root reads nothing (errors wrap [ErrNoRoot]).
//
// [Root.Walk] lists the tree below the root on several goroutines,
// opening each directory from its parent without following a link, and
// describes the files it keeps with one lstat each (on Linux from the
// directory's descriptor, with the entry types getdents returns).
//
// A [Lister] answers what [Root.LstatIn] and [Root.ReadFile] answer, by
// the same rules, for one goroutine that asks in the order of a sorted
// list: it holds the directories it reached last open (those whose paths
// have no links) and reaches the next file's directory from the nearest,
// not from the root, so that reading a file costs the same few system
// calls however deep it lies in the tree.
//
// A [Stamp] is what a file's metadata says of its version (size and
// modification time): a cache of what was read from a file holds while the
// stamp is the one it was read at, and only if the stamp was older than
// [RacyWindow] when the read began ([Stamp.Vouched]), the one rule every
// such cache follows.
//
// A Root holds one [os.Root] and is safe for concurrent use.
package rootfs
