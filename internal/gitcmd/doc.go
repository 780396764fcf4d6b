// Package gitcmd is the one place lspgraph runs git: every package that
// asks git something (the work tree's state, a file at a commit, the
// listing of a repository) goes through Run, so that errors read the same
// everywhere and carry git's own message, and TopLevel finds a work tree
// without starting a process.
package gitcmd
