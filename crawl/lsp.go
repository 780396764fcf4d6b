package crawl

import (
	"fmt"

	"github.com/lspgraph/lspgraph/internal/lspwire"
)

// kindName returns the graph's kind name of an LSP SymbolKind, naming a
// kind the protocol does not define by its number.
func kindName(k int) string {
	if name := lspwire.KindName(k); name != "" {
		return name
	}
	return fmt.Sprintf("kind-%d", k)
}

// functionKind reports whether k is a method, constructor or function: the
// kinds whose nested symbols are locals, and whose incoming calls are worth
// asking.
func functionKind(k int) bool {
	switch k {
	case 6, 9, 12: // method, constructor, function
		return true
	}
	return false
}
