// Package goplsshim decides how lspgraph stands in for gopls where an
// editor extension starts gopls itself (VS Code's Go extension, through
// "go.alternateTools"): which of gopls's command lines serve the Language
// Server Protocol on stdin and stdout, and so go through the proxy, and
// which are one-shot commands (version, help, stats, vulncheck, ...) that
// the real gopls runs unchanged; and where the real gopls is, never the
// shim itself.
//
// [Classify] reads a command line the way gopls's own flag parsing does:
// global flags (a flag that is not boolean takes the next argument as its
// value unless written -flag=value), then a subcommand, "serve" when there
// is none. [Find] looks for the real gopls in $LSPGRAPH_GOPLS, then on
// PATH, then in $GOBIN and each GOPATH's bin directory (where `go install`
// puts it and the Go extension looks), skipping every candidate that is
// the running executable.
//
// It imports nothing of ours.
package goplsshim
