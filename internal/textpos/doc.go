// Package textpos holds the one position type used inside the graph and the
// conversions between it and the positions the outside world speaks.
//
// Inside lspgraph a [Position] is a 0-based line and a 0-based column counted
// in UTF-8 bytes from the start of that line; a [Range] is half-open. LSP
// clients count columns in UTF-16 code units unless another
// [Encoding] was negotiated, and some SCIP indexers do the same. A [Mapper]
// converts exactly between the encodings for one document's text, including
// characters outside the Basic Multilingual Plane and CRLF line endings.
package textpos
