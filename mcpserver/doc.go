// Package mcpserver is lspgraph's Model Context Protocol server: the tool
// definitions (status, search, symbols, impact, context, changes), their schemas,
// and the shaping of every answer into a compact markdown text beside
// structured content, with its freshness block and within a size cap.
//
// It knows no transport beyond the SDK's and no store: it reaches a
// workspace through an [Asker], which runs a workspace command (the
// workspace's running session over its socket, else a one-shot session).
package mcpserver
