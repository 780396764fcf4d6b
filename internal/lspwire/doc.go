// Package lspwire decodes the few Language Server Protocol shapes that
// lspgraph reads from raw JSON: positions, ranges and locations, document
// symbols, call hierarchy items, and file URIs.
//
// Its principal types are [Range], [Location], [LocationOrLink],
// [DocumentSymbol] and [CallHierarchyItem]. [DecodeLocations] accepts every
// form a definition-like answer may take. [Range.TextRange] converts a
// server's range to the graph's UTF-8 columns with a [textpos.Mapper];
// [WorkspacePath] maps a file URI to a workspace-relative path.
//
// It imports nothing of ours but internal/textpos, so both the crawl and
// the live ingest can share it.
package lspwire
