// Package workspace is one workspace's live session, served to every client
// at once: editors through their proxies, the command line and agents.
//
// A [Session] owns the workspace's state: the graph store, the live-layer
// adapter that records what the language server answered (ingest), the
// overlay that keeps the live layer in step with the work tree and the
// editor's unsaved buffers, those buffers' text, the live server to verify
// answers with, and the command table ([Session.Command]): lspgraph.status,
// .impact, .context, .changes, .scope, .symbols, .index and .scipImport,
// JSON in and JSON out, knowing nothing of the transport. Before answering,
// a command takes one look at the work tree (freshness.Look: three git
// processes, none outside git), syncs the overlay with it and computes the
// freshness block from the same look. A session opened with Options.Watch
// follows the tree with a watcher (internal/treewatch) and reuses its last
// look while the watcher, after a cookie sync, has seen no change since it
// was taken and the base commit is the same; it runs git only then, or
// always when the tree cannot be watched. An impact answer computed without
// the live server is reused while the store's version, the look and the
// buffers are unchanged.
//
// The process that holds the store serves its session on a Unix socket next
// to the store ([Session.Listen], [SocketPath]): mode 0600 in a 0700
// directory, every peer checked to be this user (SO_PEERCRED). [Dial]
// connects a client; [Client.Command] runs a command there.
//
// A proxy does not open the store itself but joins the session ([Join]):
// the first proxy of a workspace owns it, later ones attach to it, sending
// their observations and their editor's notifications there, and when the
// owner exits or dies each member takes the store over (or attaches to
// whichever member did) and replays its editor's open buffers and the
// observations the old owner did not confirm.
//
// Everything read from the workspace goes through internal/rootfs: an
// editor position, a buffer or a target outside the root, or behind a
// symlink that leaves it, is refused before anything is opened.
package workspace
