package lang

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/lspgraph/lspgraph/internal/textpos"
)

// HashContent returns the hash of a document's text: "sha256:" and the
// first 16 bytes of its SHA-256 in hex. Every producer stores it in
// Document.ContentHash, and the overlay's digests (freshness.DigestDisk,
// freshness.DigestBuffer) carry it, so hashes from different producers
// compare equal for the same text. Live documents persist these digests
// across sessions: changing the format makes every stored one stale.
func HashContent(text []byte) string {
	sum := sha256.Sum256(text)
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// LSPSymbolID returns the id of a symbol a language server names only by
// its definition: "lsp PATH:LINE:COL", the start of its name, 1-based,
// with the column in UTF-8 bytes. The live adapter and the headless crawl
// make the same ids.
func LSPSymbolID(path string, start textpos.Position) string {
	return "lsp " + path + ":" + start.String()
}
