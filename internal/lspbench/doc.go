// Package lspbench is the editor end of the proxy benchmark: a minimal
// synchronous LSP client on a process's stdio, and the percentiles it
// reports.
package lspbench
